/**
 * The payments part of a project's rendered config (identity owns it), read in both dialects: `payments.offers` ≡
 * `payments.products`, `payments.groups` ≡ `catalogs` ≡ `productLines`. Pure functions, no I/O.
 */
import { readOffer, type CustomerType, type Offer } from "./offer-rules.ts";

export interface ItemDefinition {
  readonly id: string;
  readonly displayName: string;
  readonly customerType: CustomerType | null;
}

export interface PaymentsConfig {
  readonly items: ReadonlyMap<string, ItemDefinition>;
  readonly offers: ReadonlyMap<string, Offer>;
  readonly groups: ReadonlyMap<string, { readonly displayName: string }>;
  readonly testMode: boolean;
  /** `payments.blockNewPurchases`: purchase sessions, test-mode purchases and switches answer NEW_PURCHASES_BLOCKED. */
  readonly blockNewPurchases: boolean;
  /** identity's Project.version this view was read from (0 when unknown). */
  readonly version: number;
}

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);
const entries = (v: unknown): [string, Raw][] => (isObj(v) ? (Object.entries(v).filter(([, x]) => isObj(x)) as [string, Raw][]) : []);

export function readPaymentsConfig(renderedConfigJson: string, version = 0): PaymentsConfig {
  let rendered: unknown;
  try {
    rendered = JSON.parse(renderedConfigJson || "{}");
  } catch {
    rendered = {};
  }
  const payments = isObj(rendered) && isObj(rendered.payments) ? rendered.payments : {};
  const items = new Map<string, ItemDefinition>();
  for (const [id, raw] of entries(payments.items)) {
    const ct = raw.customerType ?? raw.customer_type;
    items.set(id, {
      id,
      displayName: typeof raw.displayName === "string" ? raw.displayName : id,
      customerType: ct === "user" || ct === "team" || ct === "custom" ? ct : null,
    });
  }
  const offers = new Map<string, Offer>();
  for (const [id, raw] of [...entries(payments.offers), ...entries(payments.products)]) offers.set(id, readOffer(id, raw));
  const groups = new Map<string, { displayName: string }>();
  for (const [id, raw] of [...entries(payments.groups), ...entries(payments.catalogs), ...entries(payments.productLines)]) {
    groups.set(id, { displayName: typeof raw.displayName === "string" ? raw.displayName : id });
  }
  return { items, offers, groups, testMode: payments.testMode === true, blockNewPurchases: payments.blockNewPurchases === true, version };
}
