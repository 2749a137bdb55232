/**
 * Offers (seed era) ≡ products (current SDK): reading them from the project config or an inline body (camelCase or
 * snake_case keys), and the spec's payments rules (ids, money amounts per currency). Pure functions, no I/O.
 */
import { CURRENCY_DECIMALS, isValidPaymentsId, moneyAmountProblem } from "@vestibule/shared/payments";
import { parseDuration, type Duration } from "./durations.ts";

export type CustomerType = "user" | "team" | "custom";
export const CUSTOMER_TYPES: readonly CustomerType[] = ["user", "team", "custom"];
export type ItemExpiry = "never" | "when-purchase-expires" | "when-repeated";

export { CURRENCY_DECIMALS };

export interface Price {
  readonly id: string;
  /** Currency code → amount as a decimal string ("9.99"). */
  readonly amounts: Readonly<Record<string, string>>;
  readonly interval: Duration | null;
  readonly freeTrial: Duration | null;
  readonly serverOnly: boolean;
}

export interface IncludedItem {
  readonly quantity: number;
  readonly repeat: Duration | "never";
  readonly expires: ItemExpiry;
}

export interface Offer {
  /** Config id; null for an inline offer. */
  readonly id: string | null;
  readonly displayName: string;
  readonly groupId: string | null;
  readonly customerType: CustomerType | null;
  readonly serverOnly: boolean;
  readonly stackable: boolean;
  readonly includeByDefault: boolean;
  readonly prices: readonly Price[];
  readonly includedItems: Readonly<Record<string, IncludedItem>>;
}

export { isValidPaymentsId, moneyAmountProblem };

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const pick = (o: Raw, camel: string, snake: string): unknown => (o[camel] !== undefined ? o[camel] : o[snake]);

function customerTypeOf(v: unknown): CustomerType | null {
  return typeof v === "string" && (CUSTOMER_TYPES as readonly string[]).includes(v) ? (v as CustomerType) : null;
}

function readPrice(id: string, raw: Raw): Price {
  const amounts: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (k in CURRENCY_DECIMALS && typeof v === "string") amounts[k] = v;
  return {
    id,
    amounts,
    interval: parseDuration(raw.interval) ?? null,
    freeTrial: parseDuration(pick(raw, "freeTrial", "free_trial")) ?? null,
    serverOnly: pick(raw, "serverOnly", "server_only") === true,
  };
}

function readIncludedItem(raw: Raw): IncludedItem {
  const q = raw.quantity;
  const repeat = raw.repeat === "never" || raw.repeat === undefined ? "never" : (parseDuration(raw.repeat) ?? "never");
  const expires = raw.expires === "when-purchase-expires" || raw.expires === "when-repeated" ? raw.expires : "never";
  return { quantity: typeof q === "number" && Number.isFinite(q) ? Math.trunc(q) : 0, repeat, expires };
}

/** An offer/product as the config or an inline body describes it (both key styles). */
export function readOffer(id: string | null, raw: Raw, opts: { inline?: boolean } = {}): Offer {
  const prices = pick(raw, "prices", "prices");
  const included = pick(raw, "includedItems", "included_items");
  const group = pick(raw, "productLineId", "product_line_id") ?? pick(raw, "catalogId", "catalog_id") ?? pick(raw, "groupId", "group_id");
  return {
    id,
    displayName: String(pick(raw, "displayName", "display_name") ?? id ?? ""),
    groupId: typeof group === "string" && group ? group : null,
    customerType: customerTypeOf(pick(raw, "customerType", "customer_type")),
    // The snake_case (inline) variant is always server-only (spec §3).
    serverOnly: opts.inline === true || pick(raw, "serverOnly", "server_only") === true,
    stackable: raw.stackable === true,
    includeByDefault: prices === "include-by-default",
    prices: isObj(prices) ? Object.entries(prices).filter(([, p]) => isObj(p)).map(([pid, p]) => readPrice(pid, p as Raw)) : [],
    includedItems: isObj(included)
      ? Object.fromEntries(Object.entries(included).filter(([, v]) => isObj(v)).map(([iid, v]) => [iid, readIncludedItem(v as Raw)]))
      : {},
  };
}

/** Every problem of an inline offer/product body (`path: message`), empty when it is valid. */
export function inlineOfferProblems(raw: unknown, path: string): string[] {
  if (!isObj(raw)) return [`${path} must be an object`];
  const problems: string[] = [];
  const dn = pick(raw, "displayName", "display_name");
  if (dn !== undefined && typeof dn !== "string") problems.push(`${path}.display_name must be a string`);
  const ct = pick(raw, "customerType", "customer_type");
  if (customerTypeOf(ct) === null) problems.push(`${path}.customer_type must be one of user, team, custom`);
  const prices = raw.prices;
  if (prices !== undefined && prices !== "include-by-default") {
    if (!isObj(prices)) problems.push(`${path}.prices must be an object`);
    else {
      for (const [pid, p] of Object.entries(prices)) {
        if (!isValidPaymentsId(pid)) problems.push(`${path}.prices.${pid}: invalid price id`);
        if (!isObj(p)) {
          problems.push(`${path}.prices.${pid} must be an object`);
          continue;
        }
        const currencies = Object.keys(p).filter((k) => k in CURRENCY_DECIMALS);
        if (currencies.length === 0) problems.push(`${path}.prices.${pid}: At least one currency is required`);
        for (const c of currencies) {
          const problem = moneyAmountProblem(p[c], c);
          if (problem) problems.push(`${path}.prices.${pid}.${c}: ${problem}`);
        }
        if (p.interval !== undefined && !parseDuration(p.interval)) problems.push(`${path}.prices.${pid}.interval must be [count, unit]`);
      }
    }
  }
  const included = pick(raw, "includedItems", "included_items");
  if (included !== undefined) {
    if (!isObj(included)) problems.push(`${path}.included_items must be an object`);
    else {
      for (const [iid, v] of Object.entries(included)) {
        if (!isValidPaymentsId(iid)) problems.push(`${path}.included_items.${iid}: invalid item id`);
        if (!isObj(v) || typeof v.quantity !== "number" || !Number.isInteger(v.quantity)) {
          problems.push(`${path}.included_items.${iid}.quantity must be an integer`);
        }
      }
    }
  }
  return problems;
}

/** The offer as JSON on the wire (snake_case), for the hosted page and product lists. */
export function offerToWire(offer: Offer): Record<string, unknown> {
  return {
    display_name: offer.displayName,
    customer_type: offer.customerType,
    server_only: offer.serverOnly,
    stackable: offer.stackable,
    prices: offer.includeByDefault
      ? "include-by-default"
      : Object.fromEntries(
          offer.prices.map((p) => [
            p.id,
            { ...p.amounts, ...(p.interval ? { interval: p.interval } : {}), ...(p.freeTrial ? { free_trial: p.freeTrial } : {}) },
          ]),
        ),
    included_items: Object.fromEntries(
      Object.entries(offer.includedItems).map(([id, i]) => [id, { quantity: i.quantity, repeat: i.repeat, expires: i.expires }]),
    ),
  };
}
