import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ListTransactionsRequest, ListTransactionsResponseSchema, TransactionSchema } from "@vestibule/proto/billing/v1/purchase_service";
import type { Queryable } from "@vestibule/shared/db";
import { itemStore } from "../items/item-store.ts";
import { offerToWire } from "../offers/offer-rules.ts";
import { purchaseStore } from "./purchase-store.ts";
import { formatUsd } from "./refund-rules.ts";
import { productChangeStore } from "./product-change-store.ts";
import { refundStore } from "./refund-store.ts";

type TransactionInit = MessageInitShape<typeof TransactionSchema> & { cursorAt: string };

function decodeCursor(cursor: string): { at: string; id: string } | undefined {
  if (!cursor) return undefined;
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { at?: unknown; id?: unknown };
    if (typeof v.at === "string" && typeof v.id === "string" && /^[0-9a-f-]{36}$/.test(v.id) && !Number.isNaN(Date.parse(v.at))) return { at: v.at, id: v.id };
  } catch {
    // an unreadable cursor starts from the newest
  }
  return undefined;
}

/** The fields every transaction row starts with. */
function head(id: string, type: string, at: Date, owner: { customer_type: string; customer_id: string }, cursorAt: string) {
  return { id, type, createdAtMillis: BigInt(at.getTime()), customerType: owner.customer_type, customerId: owner.customer_id, cursorAt };
}

const encodeCursor = (t: { cursorAt: string; id?: string }) => Buffer.from(JSON.stringify({ at: t.cursorAt, id: t.id }), "utf8").toString("base64url");

/**
 * The project's purchases and manual quantity changes, newest first (seed-era admin transactions), plus refunds,
 * chargebacks and product changes when `includeRefunds` (current-SDK callers; 2.8.41 knows none of these types): each table read up to `limit` rows before the
 * cursor and merged; the cursor is the last row's (created_at, id).
 */
export async function listTransactions(db: Queryable, req: ListTransactionsRequest): Promise<MessageInitShape<typeof ListTransactionsResponseSchema>> {
  const limit = Math.min(Math.max(req.limit > 0 ? req.limit : 50, 1), 200);
  const before = decodeCursor(req.cursor);
  const customerType = req.customerType || undefined;
  const customerId = req.customerId || undefined;
  const refundType = req.type === "refund" || req.type === "chargeback" ? req.type : undefined;
  const wantRefunds = req.includeRefunds && (!req.type || refundType !== undefined);
  const wantChanges = !req.type || req.type === "item_quantity_change";
  const wantKind = req.type === "subscription" || req.type === "one_time" ? req.type : undefined;
  const wantPurchases = !req.type || req.type === "purchase" || wantKind !== undefined;
  const wantProductChanges = req.includeRefunds && (!req.type || req.type === "product-change");
  const [changes, purchases, refunds, productChanges] = await Promise.all([
    wantChanges ? itemStore.listChanges(db, req.projectId, { before, customerType, customerId, limit: limit + 1 }) : [],
    wantPurchases ? purchaseStore.listPurchases(db, req.projectId, { before, customerType, customerId, kind: wantKind, limit: limit + 1 }) : [],
    wantRefunds ? refundStore.list(db, req.projectId, { before, customerType, customerId, transactionType: refundType, limit: limit + 1 }) : [],
    wantProductChanges ? productChangeStore.list(db, req.projectId, { before, customerType, customerId, limit: limit + 1 }) : [],
  ]);
  const purchaseIds = purchases.map((p) => p.id);
  const [refundIds, changesOf] = await Promise.all([
    req.includeRefunds ? refundStore.idsByPurchase(db, purchaseIds) : new Map<string, string[]>(),
    productChangeStore.byPurchase(db, purchaseIds),
  ]);
  const all: TransactionInit[] = [
    ...changes.map((c) => ({
      ...head(c.id, "item_quantity_change", c.created_at, c, c.cursor_at),
      quantity: BigInt(c.delta),
      testMode: false,
      itemId: c.item_id,
      description: c.description ?? "",
      expiresAtMillis: c.expires_at ? BigInt(c.expires_at.getTime()) : undefined,
    })),
    ...purchases.map((p) => {
      // A switched subscription shows the product it was bought with (its first change's "from").
      const switches = changesOf.get(p.id) ?? [];
      const first = switches[0];
      const bought = first ? { offerId: first.from_offer_id, offer: first.from_offer, priceId: first.from_price_id, quantity: first.from_quantity } : { offerId: p.offer_id, offer: p.offer, priceId: p.price_id, quantity: p.quantity };
      const price = bought.offer.prices.find((x) => x.id === bought.priceId);
      return {
        ...head(p.id, p.kind, p.created_at, p, p.cursor_at),
        quantity: BigInt(bought.quantity),
        testMode: p.test_mode,
        offerId: bought.offerId ?? "",
        offerDisplayName: bought.offer.displayName,
        priceJson: price ? JSON.stringify({ ...price.amounts, ...(price.interval ? { interval: price.interval } : {}) }) : "",
        status: p.status,
        offerJson: JSON.stringify(offerToWire(bought.offer)),
        priceId: bought.priceId ?? "",
        refundIds: refundIds.get(p.id) ?? [],
        productChangeIds: req.includeRefunds ? switches.map((c) => c.id) : [],
      };
    }),
    ...productChanges.map((c) => ({
      ...head(c.id, "product-change", c.created_at, c, c.cursor_at),
      quantity: BigInt(c.to_quantity),
      testMode: c.test_mode,
      offerId: c.to_offer_id ?? "",
      offerDisplayName: c.to_offer.displayName,
      offerJson: JSON.stringify(offerToWire(c.to_offer)),
      priceId: c.to_price_id ?? "",
      changedPurchaseId: c.purchase_id,
      previousQuantity: BigInt(c.from_quantity),
    })),
    ...refunds.map((r) => ({
      ...head(r.id, r.transaction_type, r.created_at, r, r.cursor_at),
      quantity: BigInt(r.quantity),
      testMode: false,
      refundAmountUsd: formatUsd(Number(r.amount_usd_cents)),
      refundedPurchaseId: r.purchase_id,
      refundedPurchaseType: r.kind,
      refundEndAction: r.end_action ?? "",
    })),
  ];
  all.sort((a, b) => (a.cursorAt === b.cursorAt ? (a.id! < b.id! ? 1 : -1) : a.cursorAt < b.cursorAt ? 1 : -1));
  const page = all.slice(0, limit);
  const next = all.length > limit ? encodeCursor(page[page.length - 1]!) : "";
  return { transactions: page.map(({ cursorAt: _c, ...t }) => t), nextCursor: next };
}
