/**
 * How an item's quantity is made (contract §10): the customer's non-expired quantity changes, plus the items included
 * in its purchases and subscriptions under their `repeat` and `expires` rules, plus the include-by-default offers of
 * groups in which it owns nothing. Pure functions, no I/O.
 */
import { wholeDurationsBetween } from "../offers/durations.ts";
import type { CustomerType, IncludedItem, Offer } from "../offers/offer-rules.ts";

export interface PurchaseFacts {
  readonly offerId: string | null;
  readonly offer: Offer;
  readonly quantity: number;
  readonly status: "active" | "canceled" | "refunded";
  readonly createdAt: Date;
  /** When it stops (subscription canceled at period end, or ended); null: runs on. */
  readonly endedAt: Date | null;
}

export function isPurchaseActive(p: Pick<PurchaseFacts, "status" | "endedAt">, now: Date): boolean {
  return p.status === "active" && (p.endedAt === null || p.endedAt.getTime() > now.getTime());
}

/** What one included item of one purchase adds now. */
export function grantedByPurchase(included: IncludedItem, p: PurchaseFacts, now: Date): number {
  if (p.status === "refunded") return 0;
  const active = isPurchaseActive(p, now);
  const perGrant = included.quantity * p.quantity;
  if (included.repeat === "never") {
    return included.expires === "never" ? perGrant : active ? perGrant : 0;
  }
  if (included.expires === "when-repeated") return active ? perGrant : 0;
  // Repeated grants accumulate while the purchase runs (one at the start, one per elapsed interval).
  const until = active || p.endedAt === null ? now : p.endedAt;
  const grants = 1 + wholeDurationsBetween(p.createdAt, until, included.repeat);
  if (included.expires === "when-purchase-expires") return active ? grants * perGrant : 0;
  return grants * perGrant;
}

/** Items from purchases plus include-by-default offers for `itemId`. */
export function includedQuantity(opts: {
  readonly itemId: string;
  readonly customerType: CustomerType;
  readonly purchases: readonly PurchaseFacts[];
  readonly offers: Iterable<Offer>;
  readonly now: Date;
}): number {
  const { itemId, purchases, now } = opts;
  let total = 0;
  for (const p of purchases) {
    const included = p.offer.includedItems[itemId];
    if (included) total += grantedByPurchase(included, p, now);
  }
  const ownedGroups = new Set(purchases.filter((p) => isPurchaseActive(p, now) && p.offer.groupId).map((p) => p.offer.groupId));
  for (const offer of opts.offers) {
    if (!offer.includeByDefault || (offer.customerType !== null && offer.customerType !== opts.customerType)) continue;
    if (offer.groupId && ownedGroups.has(offer.groupId)) continue;
    total += offer.includedItems[itemId]?.quantity ?? 0;
  }
  return total;
}
