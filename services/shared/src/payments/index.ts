/**
 * The spec's payments rules shared by billing (inline offers/products, refunds) and identity (config overrides):
 * ids, money amounts per currency, and the problems of a rendered `payments` config section. Pure functions.
 */

/** Currencies and their decimals (spec §3). */
export const CURRENCY_DECIMALS: Readonly<Record<string, number>> = { USD: 2, EUR: 2, GBP: 2, INR: 2, AUD: 2, CAD: 2, JPY: 0 };

const ID = /^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$/;

/** The spec's rule for price, offer, group and item ids: ≤ 63 characters, a letter or `_` first. */
export function isValidPaymentsId(id: string): boolean {
  return ID.test(id);
}

/** Why a payments id is refused, said the same way everywhere. */
export const PAYMENTS_ID_RULE = 'ids must be at most 63 characters, start with a letter or "_", and contain only letters, digits, "_" and "-"';

/** The spec's message for a bad money amount in `currency`, or null when the amount is fine. */
export function moneyAmountProblem(amount: unknown, currency: string): string | null {
  if (typeof amount !== "string" || !/^\d+(\.\d+)?$/.test(amount)) return "Money amount must be in the format of <number> or <number>.<number>";
  if (/^0\d/.test(amount)) return "Money amount must not have leading zeros";
  const decimals = CURRENCY_DECIMALS[currency] ?? 2;
  const fraction = amount.split(".")[1] ?? "";
  if (fraction.length > decimals) return `Too many decimals; ${currency} only has ${decimals} decimals`;
  return null;
}

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** Problems of one price (`path` is its config path). */
function priceProblems(price: unknown, path: string): string[] {
  if (!isObj(price)) return [`${path} must be an object`];
  const problems: string[] = [];
  const currencies = Object.keys(price).filter((k) => /^[A-Z]{3}$/.test(k));
  for (const c of currencies) {
    if (!(c in CURRENCY_DECIMALS)) {
      problems.push(`${path}.${c}: unsupported currency (supported: ${Object.keys(CURRENCY_DECIMALS).join(", ")})`);
      continue;
    }
    const problem = moneyAmountProblem(price[c], c);
    if (problem) problems.push(`${path}.${c}: ${problem}`);
  }
  if (currencies.length === 0) problems.push(`${path}: At least one currency is required`);
  return problems;
}

/**
 * Every problem of a rendered `payments` config section (`path: message`, empty when it is valid): ids of items,
 * offers/products, groups/catalogs/product lines and prices; each price's amounts (the spec's money messages, at
 * least one currency); included items that name no configured item. Both dialects' keys are read (`offers` ≡
 * `products`, `groups` ≡ `catalogs` ≡ `productLines`).
 */
export function paymentsConfigProblems(payments: unknown): string[] {
  if (!isObj(payments)) return [];
  const problems: string[] = [];
  const ids = (section: string): string[] => {
    const v = payments[section];
    if (!isObj(v)) return [];
    for (const id of Object.keys(v)) if (!isValidPaymentsId(id)) problems.push(`payments.${section}.${id}: invalid id (${PAYMENTS_ID_RULE})`);
    return Object.keys(v);
  };
  const items = new Set(ids("items"));
  for (const section of ["groups", "catalogs", "productLines"]) ids(section);
  for (const section of ["offers", "products"]) {
    ids(section);
    const offers = payments[section];
    if (!isObj(offers)) continue;
    for (const [offerId, offer] of Object.entries(offers)) {
      if (!isObj(offer)) continue;
      const path = `payments.${section}.${offerId}`;
      const prices = offer.prices;
      if (prices !== undefined && prices !== "include-by-default") {
        if (!isObj(prices)) problems.push(`${path}.prices must be "include-by-default" or an object of prices`);
        else {
          for (const [priceId, price] of Object.entries(prices)) {
            if (!isValidPaymentsId(priceId)) problems.push(`${path}.prices.${priceId}: invalid price id (${PAYMENTS_ID_RULE})`);
            problems.push(...priceProblems(price, `${path}.prices.${priceId}`));
          }
        }
      }
      const included = offer.includedItems ?? offer.included_items;
      if (isObj(included)) {
        for (const [itemId, inc] of Object.entries(included)) {
          if (!items.has(itemId)) problems.push(`${path}.includedItems.${itemId}: Item "${itemId}" does not exist in payments.items`);
          if (isObj(inc) && inc.quantity !== undefined && !(typeof inc.quantity === "number" && Number.isInteger(inc.quantity))) {
            problems.push(`${path}.includedItems.${itemId}.quantity must be an integer`);
          }
        }
      }
    }
  }
  return problems;
}
