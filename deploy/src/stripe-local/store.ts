/**
 * The local Stripe server's state: every object in memory, keyed by id and scoped to the connected account it was
 * created under (`Stripe-Account` header; `null` = the platform account), plus Stripe's error shape.
 */
import { randomBytes } from "node:crypto";

export type StripeObject = Record<string, unknown> & { id: string; object: string };

/** An error answered as Stripe does: `{error: {type, code?, decline_code?, message, param?}}` with the status. */
export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: "invalid_request_error" | "card_error" | "api_error" | "authentication_error" | "idempotency_error",
    message: string,
    readonly extra: { code?: string; param?: string; decline_code?: string; payment_intent?: unknown; setup_intent?: unknown } = {},
  ) {
    super(message);
  }
  toJSON(): unknown {
    return { error: { type: this.type, message: this.message, ...this.extra } };
  }
}

export const missing = (kind: string, id: string, param = "id"): StripeApiError =>
  new StripeApiError(404, "invalid_request_error", `No such ${kind}: '${id}'`, { code: "resource_missing", param });

export const invalid = (message: string, param?: string, code = "parameter_invalid"): StripeApiError =>
  new StripeApiError(400, "invalid_request_error", message, { code, ...(param ? { param } : {}) });

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

interface Stored {
  readonly obj: StripeObject;
  readonly account: string | null;
  readonly seq: number;
}

export class LocalStripeStore {
  private readonly objects = new Map<string, Stored>();
  private seq = 0;

  /** Everything, for a snapshot file (`npm start` keeps the local Stripe's state across restarts). */
  dump(): { obj: StripeObject; account: string | null; seq: number }[] {
    return [...this.objects.values()];
  }

  load(entries: readonly { obj: StripeObject; account: string | null; seq: number }[]): void {
    for (const e of entries) {
      this.objects.set(e.obj.id, { obj: e.obj, account: e.account, seq: e.seq });
      this.seq = Math.max(this.seq, e.seq);
    }
  }

  put(obj: StripeObject, account: string | null): StripeObject {
    const prev = this.objects.get(obj.id);
    this.objects.set(obj.id, { obj, account, seq: prev?.seq ?? ++this.seq });
    return obj;
  }

  /** The object of that kind under the caller's account, else Stripe's "No such <kind>" 404 (also once deleted). */
  get(object: string, id: unknown, account: string | null, param = "id"): StripeObject {
    const found = typeof id === "string" ? this.objects.get(id) : undefined;
    const kind = object.replace(/_/g, " ");
    if (!found || found.obj.object !== object || found.account !== account || found.obj.deleted === true) throw missing(kind, String(id), param);
    return found.obj;
  }

  find(id: string): { obj: StripeObject; account: string | null } | undefined {
    return this.objects.get(id);
  }

  /** Newest first, as Stripe lists (deleted objects are not listed). */
  list(object: string, account: string | null, filter: (o: StripeObject) => boolean = () => true): StripeObject[] {
    return [...this.objects.values()]
      .filter((s) => s.obj.object === object && s.account === account && s.obj.deleted !== true && filter(s.obj))
      .sort((a, b) => b.seq - a.seq)
      .map((s) => s.obj);
  }
}

/** Stripe's list envelope with `limit` and `starting_after` / `ending_before` cursors. */
export function listPage(all: StripeObject[], params: Record<string, unknown>, url: string): StripeObject {
  const limit = Math.min(Math.max(Number(params.limit ?? 10) || 10, 1), 100);
  let start = 0;
  if (typeof params.starting_after === "string") start = all.findIndex((o) => o.id === params.starting_after) + 1;
  const data = all.slice(start, start + limit);
  return { id: "", object: "list", data, has_more: start + limit < all.length, url } as unknown as StripeObject;
}
