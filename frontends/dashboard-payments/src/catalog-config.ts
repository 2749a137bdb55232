/**
 * The payments part of a project's rendered config, read in either generation's keys (`offers` ≡ `products`,
 * `groups` ≡ `catalogs` ≡ `productLines`), and the override paths the editor writes (seed-era keys, which the
 * current backend reads as the new ones).
 */
export type Json = Record<string, unknown>;

export interface ItemDef {
  readonly id: string;
  readonly displayName: string;
  readonly customerType: string;
}

export interface OfferDef {
  readonly id: string;
  readonly raw: Json;
  readonly displayName: string;
  readonly customerType: string;
  readonly groupId: string | null;
  readonly stackable: boolean;
  readonly serverOnly: boolean;
  /** Price id → "USD 9.99 per month"-style summary pieces. */
  readonly prices: readonly { id: string; amounts: string; interval: readonly [number, string] | null }[];
}

export const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,62}$/;
export const idError = (id: string): string | null =>
  id === "" ? "Enter an id." : ID_PATTERN.test(id) ? null : "Ids have at most 63 characters: letters, digits, _ and -, starting with a letter or _.";

export function paymentsOf(config: Json): { items: ItemDef[]; offers: OfferDef[]; groups: string[] } {
  const payments = (config.payments ?? {}) as Json;
  const items = Object.entries((payments.items ?? {}) as Record<string, Json>).map(([id, i]) => ({
    id,
    displayName: String(i.displayName ?? i.display_name ?? id),
    customerType: String(i.customerType ?? i.customer_type ?? "user"),
  }));
  const offersRaw = { ...((payments.products ?? {}) as Record<string, Json>), ...((payments.offers ?? {}) as Record<string, Json>) };
  const offers = Object.entries(offersRaw).map(([id, o]) => {
    const prices = o.prices;
    return {
      id,
      raw: o,
      displayName: String(o.displayName ?? o.display_name ?? id),
      customerType: String(o.customerType ?? o.customer_type ?? "user"),
      groupId: (o.groupId ?? o.catalogId ?? o.productLineId ?? o.group_id ?? null) as string | null,
      stackable: o.stackable === true,
      serverOnly: (o.serverOnly ?? o.server_only) === true,
      prices:
        prices && typeof prices === "object"
          ? Object.entries(prices as Record<string, Json>).map(([pid, p]) => ({
              id: pid,
              amounts: Object.entries(p)
                .filter(([k]) => /^[A-Z]{3}$/.test(k))
                .map(([k, v]) => `${k} ${String(v)}`)
                .join(", "),
              interval: Array.isArray(p.interval) ? (p.interval as [number, string]) : null,
            }))
          : [],
    };
  });
  const groups = Object.keys({ ...((payments.groups ?? {}) as Json), ...((payments.catalogs ?? {}) as Json), ...((payments.productLines ?? {}) as Json) });
  return { items, offers, groups };
}

export function intervalLabel(interval: readonly [number, string] | null): string {
  if (!interval) return "one-time";
  return interval[0] === 1 ? `per ${interval[1]}` : `every ${interval[0]} ${interval[1]}s`;
}

export interface OfferForm {
  id: string;
  displayName: string;
  customerType: string;
  groupId: string;
  stackable: boolean;
  serverOnly: boolean;
  priceId: string;
  currency: string;
  amount: string;
  interval: string;
  itemId: string;
  itemQuantity: string;
}

export const EMPTY_OFFER: OfferForm = { id: "", displayName: "", customerType: "user", groupId: "", stackable: false, serverOnly: false, priceId: "default", currency: "USD", amount: "", interval: "month", itemId: "", itemQuantity: "1" };

/** Problems with the form, per field (the API's own validation answers the rest). */
export function offerFormErrors(f: OfferForm): Partial<Record<keyof OfferForm, string>> {
  const e: Partial<Record<keyof OfferForm, string>> = {};
  const idProblem = idError(f.id);
  if (idProblem) e.id = idProblem;
  if (!f.displayName.trim()) e.displayName = "Enter a display name.";
  const priceProblem = idError(f.priceId);
  if (priceProblem) e.priceId = priceProblem;
  if (!/^[A-Z]{3}$/.test(f.currency)) e.currency = "Use a three-letter currency code such as USD.";
  if (!/^\d+(\.\d{1,2})?$/.test(f.amount)) e.amount = "Enter an amount such as 9.99 (at most two decimals).";
  if (f.itemId && !(Number.isInteger(Number(f.itemQuantity)) && Number(f.itemQuantity) > 0)) e.itemQuantity = "Enter a whole number of at least 1.";
  return e;
}

/** The offer as the config stores it (camelCase keys of endpoints.md §13). */
export function offerFromForm(f: OfferForm): Json {
  const interval = f.interval === "one-time" ? undefined : ([1, f.interval] as const);
  return {
    displayName: f.displayName.trim(),
    customerType: f.customerType,
    ...(f.groupId ? { groupId: f.groupId } : {}),
    stackable: f.stackable,
    serverOnly: f.serverOnly,
    prices: { [f.priceId]: { [f.currency]: f.amount, ...(interval ? { interval } : {}) } },
    includedItems: f.itemId ? { [f.itemId]: { quantity: Number(f.itemQuantity), repeat: "never", expires: "when-purchase-expires" } } : {},
  };
}
