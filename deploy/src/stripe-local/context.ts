/**
 * What every resource handler gets: the parsed form parameters, the caller's account scope, the store, and `emit`
 * (records an event and hands it to the webhook sender). Also the shared parameter readers.
 */
import { LocalStripeStore, StripeApiError, invalid, newId, nowSeconds, type StripeObject } from "./store.ts";

export interface LocalStripeState {
  readonly store: LocalStripeStore;
  /** Public base URL of the local server (for account-link, hosted-invoice and onboarding URLs). */
  baseUrl: string;
  apiVersion: string;
  /** Cards behind payment methods (never in the object): the decline code, or null when the card pays. */
  readonly cardOutcome: Map<string, string | null>;
  emit(type: string, object: StripeObject, account: string | null, previous?: Record<string, unknown>): void;
  /** Set by the billing resources: a payment intent of an invoice succeeded (pays the invoice, activates its subscription). */
  /** Called after every request that may have changed state (the snapshot file is written from it). */
  changed?: () => void;
  onInvoicePaymentSucceeded?: (ctx: Ctx, invoiceId: string, paymentMethodId: string) => void;
}

export interface Ctx {
  readonly state: LocalStripeState;
  readonly params: Record<string, unknown>;
  /** `Stripe-Account` header (connected account) or null for the platform. */
  readonly account: string | null;
  /** True when the caller used the publishable key (Stripe.js in a browser). */
  readonly publishable: boolean;
}

export type Handler = (ctx: Ctx, id: string, sub?: string) => unknown;

export function str(params: Record<string, unknown>, name: string, required = false): string | undefined {
  const v = params[name];
  if (v === undefined || v === "") {
    if (required) throw new StripeApiError(400, "invalid_request_error", `Missing required param: ${name}.`, { code: "parameter_missing", param: name });
    return undefined;
  }
  if (typeof v !== "string") throw invalid(`Invalid string: ${name}`, name);
  return v;
}

export function int(params: Record<string, unknown>, name: string, required = false): number | undefined {
  const s = str(params, name, required);
  if (s === undefined) return undefined;
  if (!/^-?\d+$/.test(s)) throw invalid(`Invalid integer: ${s}`, name, "parameter_invalid_integer");
  return Number(s);
}

export function bool(params: Record<string, unknown>, name: string): boolean | undefined {
  const s = str(params, name);
  if (s === undefined) return undefined;
  if (s !== "true" && s !== "false") throw invalid(`Invalid boolean: ${s}`, name);
  return s === "true";
}

export function obj(params: Record<string, unknown>, name: string): Record<string, unknown> {
  const v = params[name];
  if (v === undefined || v === "") return {};
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw invalid(`Invalid object: ${name}`, name);
  return v as Record<string, unknown>;
}

/** Form arrays arrive as `items[0][price]` (an object keyed by index) or `items[][price]` (an array). */
export function arr(params: Record<string, unknown>, name: string): Record<string, unknown>[] {
  const v = params[name];
  if (v === undefined || v === "") return [];
  const list = Array.isArray(v) ? v : typeof v === "object" && v !== null ? Object.keys(v).sort((a, b) => Number(a) - Number(b)).map((k) => (v as Record<string, unknown>)[k]) : null;
  if (!list) throw invalid(`Invalid array: ${name}`, name);
  return list as Record<string, unknown>[];
}

export function metadata(params: Record<string, unknown>, previous: unknown = {}): Record<string, string> {
  const next: Record<string, string> = { ...(previous as Record<string, string>) };
  if (params.metadata === "") return {};
  for (const [k, v] of Object.entries(obj(params, "metadata"))) {
    if (v === "") delete next[k];
    else next[k] = String(v);
  }
  return next;
}

export function base(prefix: string, object: string, extra: Record<string, unknown>): StripeObject {
  return { id: newId(prefix), object, created: nowSeconds(), livemode: false, ...extra };
}

/** A publishable-key caller must prove the object with its client secret (as Stripe.js does). */
export function checkClientSecret(ctx: Ctx, o: StripeObject): void {
  if (ctx.publishable && ctx.params.client_secret !== o.client_secret) {
    throw invalid("The client_secret provided does not match the client_secret associated with this object.", "client_secret");
  }
}


/** A shallow snapshot of the given fields, for an event's `previous_attributes`. */
export function snapshot(o: StripeObject, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f, structuredClone(o[f])]));
}
