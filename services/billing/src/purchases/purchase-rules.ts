/** Rules of buying (pure): owned offers, group conflicts, price choice, subscription periods. */
import { knownError } from "@vestibule/shared/errors";
import { addDuration } from "../offers/durations.ts";
import type { Offer, Price } from "../offers/offer-rules.ts";
import { isPurchaseActive, type PurchaseFacts } from "../items/ledger-rules.ts";

/** The customer already owns this (non-stackable, configured) offer. */
export function alreadyOwnsNonStackable(offerId: string | null, offer: Offer, owned: readonly PurchaseFacts[], now: Date): boolean {
  return offerId !== null && !offer.stackable && owned.some((p) => p.offerId === offerId && isPurchaseActive(p, now));
}

/** Other active offers of the same group (buying this one replaces them). */
export function conflictingGroupOffers(offerId: string | null, offer: Offer, owned: readonly PurchaseFacts[], now: Date): { offerId: string; displayName: string }[] {
  if (!offer.groupId) return [];
  const seen = new Map<string, string>();
  for (const p of owned) {
    if (p.offerId && p.offerId !== offerId && p.offer.groupId === offer.groupId && isPurchaseActive(p, now)) seen.set(p.offerId, p.offer.displayName);
  }
  return [...seen].map(([id, displayName]) => ({ offerId: id, displayName }));
}

function schemaError(message: string): never {
  throw knownError("SCHEMA_ERROR", { message });
}

/** The price a buyer picked, checked against the offer (and the quantity against stackability). */
export function choosePrice(offer: Offer, priceId: string, quantity: number): Price {
  const price = offer.prices.find((p) => p.id === priceId);
  if (!price) schemaError("Price not found on offer associated with this purchase code");
  if (!Number.isInteger(quantity) || quantity < 1) schemaError("Quantity must be a positive integer");
  if (quantity > 1 && !offer.stackable) schemaError("This offer is not stackable; quantity must be 1");
  return price;
}

/** End of the first period of a recurring price, null for a one-time price. */
export function firstPeriodEnd(price: Price | null, now: Date): Date | null {
  return price?.interval ? addDuration(now, price.interval) : null;
}
