/**
 * The purchase page's data: `validate-code` and `purchase-session` (no authentication: the code names the project and
 * the customer), and reading an offer (seed era) or product (current) in either key style into one view.
 */
import { loadRuntimeConfig } from "@vestibule/ui";

export interface PriceView {
  readonly id: string;
  /** Upper-case currency → amount as the config writes it ("9.99"). */
  readonly amounts: readonly { currency: string; amount: string }[];
  /** [count, unit] or null for a one-time price. */
  readonly interval: readonly [number, string] | null;
  readonly freeTrial: readonly [number, string] | null;
}

export interface OfferView {
  readonly displayName: string;
  readonly customerType: string | null;
  readonly stackable: boolean;
  readonly prices: readonly PriceView[];
  readonly includedItems: readonly { id: string; quantity: number }[];
}

export interface PurchaseCodeView {
  readonly offer: OfferView | null;
  readonly stripeAccountId: string;
  readonly projectId: string;
  readonly alreadyBoughtNonStackable: boolean;
  readonly conflicts: readonly { id: string; displayName: string }[];
  readonly testMode: boolean;
  readonly chargesEnabled: boolean;
}

type Json = Record<string, unknown>;
const pick = (o: Json, ...keys: string[]): unknown => keys.map((k) => o[k]).find((v) => v !== undefined);

function durationOf(v: unknown): readonly [number, string] | null {
  if (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "string") return [v[0], v[1]];
  return null;
}

export function offerView(raw: Json): OfferView {
  const prices = pick(raw, "prices");
  const list: PriceView[] =
    prices && typeof prices === "object"
      ? Object.entries(prices as Record<string, Json>).map(([id, p]) => ({
          id,
          amounts: Object.entries(p)
            .filter(([k, v]) => /^[A-Z]{3}$/.test(k) && (typeof v === "string" || typeof v === "number"))
            .map(([currency, amount]) => ({ currency, amount: String(amount) })),
          interval: durationOf(p.interval),
          freeTrial: durationOf(pick(p, "free_trial", "freeTrial")),
        }))
      : [];
  const items = (pick(raw, "included_items", "includedItems") ?? {}) as Record<string, Json>;
  return {
    displayName: String(pick(raw, "display_name", "displayName") ?? "Purchase"),
    customerType: (pick(raw, "customer_type", "customerType") as string | undefined) ?? null,
    stackable: pick(raw, "stackable") === true,
    prices: list,
    includedItems: Object.entries(items).map(([id, i]) => ({ id, quantity: Number(i.quantity ?? 0) })),
  };
}

async function call<T>(path: string, body: Json): Promise<T> {
  const { apiUrl } = await loadRuntimeConfig();
  let res: Response;
  try {
    res = await fetch(`${apiUrl}/api/v1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    throw new Error("The payment service cannot be reached. Check your connection and try again.");
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = String((JSON.parse(text) as Json).message ?? text);
    } catch {
      /* plain-text error */
    }
    throw new Error(message || `The request failed (${res.status}).`);
  }
  return JSON.parse(text) as T;
}

export async function validateCode(fullCode: string): Promise<PurchaseCodeView> {
  const r = await call<Json>("/payments/purchases/validate-code", { full_code: fullCode });
  const offer = pick(r, "offer", "product") as Json | undefined;
  const conflicts = (pick(r, "conflicting_group_offers", "conflicting_products") ?? []) as Json[];
  return {
    offer: offer ? offerView(offer) : null,
    stripeAccountId: String(r.stripe_account_id ?? ""),
    projectId: String(r.project_id ?? ""),
    alreadyBoughtNonStackable: r.already_bought_non_stackable === true,
    conflicts: conflicts.map((c) => ({ id: String(pick(c, "offer_id", "product_id") ?? ""), displayName: String(c.display_name ?? pick(c, "offer_id", "product_id") ?? "") })),
    testMode: r.test_mode === true,
    chargesEnabled: r.charges_enabled !== false,
  };
}

export async function createPurchaseSession(fullCode: string, priceId: string, quantity: number): Promise<string> {
  const r = await call<{ client_secret: string }>("/payments/purchases/purchase-session", { full_code: fullCode, price_id: priceId, quantity });
  return r.client_secret;
}

// ---- wording ---------------------------------------------------------------------------------------------------

const UNITS: Record<string, [string, string]> = { day: ["day", "days"], week: ["week", "weeks"], month: ["month", "months"], year: ["year", "years"] };

export function formatAmount(amount: string, currency: string, quantity = 1): string {
  const n = Number(amount) * quantity;
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(n);
  } catch {
    return `${n.toFixed(2)} ${currency}`;
  }
}

export function intervalText(interval: readonly [number, string] | null): string {
  if (!interval) return "one-time payment";
  const [count, unit] = interval;
  const [one, many] = UNITS[unit] ?? [unit, `${unit}s`];
  return count === 1 ? `per ${one}` : `every ${count} ${many}`;
}

export function durationText(d: readonly [number, string]): string {
  const [one, many] = UNITS[d[1]] ?? [d[1], `${d[1]}s`];
  return `${d[0]} ${d[0] === 1 ? one : many}`;
}
