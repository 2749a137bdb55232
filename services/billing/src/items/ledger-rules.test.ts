import { describe, expect, it } from "vitest";
import { readOffer } from "../offers/offer-rules.ts";
import { grantedByPurchase, includedQuantity, type PurchaseFacts } from "./ledger-rules.ts";

const day = 86_400_000;
const start = new Date("2026-01-01T00:00:00Z");
const at = (days: number) => new Date(start.getTime() + days * day);

function purchase(included: Record<string, unknown>, extra: Partial<PurchaseFacts> = {}): PurchaseFacts {
  return {
    offerId: "pro",
    offer: readOffer("pro", { displayName: "Pro", customerType: "user", groupId: "plans", includedItems: { credits: included } }),
    quantity: 1,
    status: "active",
    createdAt: start,
    endedAt: null,
    ...extra,
  };
}

describe("included items", () => {
  it("repeat never / expires never: kept after the purchase ends", () => {
    const p = purchase({ quantity: 5, repeat: "never", expires: "never" }, { endedAt: at(10) });
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, at(20))).toBe(5);
  });
  it("expires when-purchase-expires: gone after the purchase ends", () => {
    const p = purchase({ quantity: 5, expires: "when-purchase-expires" }, { endedAt: at(10) });
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, at(5))).toBe(5);
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, at(20))).toBe(0);
  });
  it("repeat weekly, expires never: accumulates one grant per elapsed week", () => {
    const p = purchase({ quantity: 3, repeat: [1, "week"], expires: "never" });
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, at(0))).toBe(3);
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, at(15))).toBe(9);
  });
  it("repeat weekly, expires when-repeated: only the current grant", () => {
    const p = purchase({ quantity: 3, repeat: [1, "week"], expires: "when-repeated" });
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, at(15))).toBe(3);
  });
  it("monthly repeats use calendar months", () => {
    const p = purchase({ quantity: 1, repeat: [1, "month"], expires: "never" });
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, new Date("2026-02-28T23:00:00Z"))).toBe(2);
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, new Date("2026-03-01T00:00:00Z"))).toBe(3);
  });
  it("refunded purchases grant nothing; quantity multiplies", () => {
    const p = purchase({ quantity: 2 }, { status: "refunded" });
    expect(grantedByPurchase(p.offer.includedItems.credits!, p, at(1))).toBe(0);
    const q = purchase({ quantity: 2 }, { quantity: 4 });
    expect(grantedByPurchase(q.offer.includedItems.credits!, q, at(1))).toBe(8);
  });
  it("include-by-default counts unless the customer owns an offer of the same group", () => {
    const free = readOffer("free", { displayName: "Free", customerType: "user", groupId: "plans", prices: "include-by-default", includedItems: { credits: { quantity: 1 } } });
    expect(includedQuantity({ itemId: "credits", customerType: "user", purchases: [], offers: [free], now: at(1) })).toBe(1);
    expect(includedQuantity({ itemId: "credits", customerType: "team", purchases: [], offers: [free], now: at(1) })).toBe(0);
    const paid = purchase({ quantity: 10, expires: "when-purchase-expires" });
    expect(includedQuantity({ itemId: "credits", customerType: "user", purchases: [paid], offers: [free], now: at(1) })).toBe(10);
  });
});
