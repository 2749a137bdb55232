import type { PurchaseFacts } from "../items/ledger-rules.ts";
import type { PurchaseRow } from "./purchase-store.ts";

/** A stored purchase as the ledger rules see it. */
export function toPurchaseFacts(row: PurchaseRow): PurchaseFacts {
  return {
    offerId: row.offer_id,
    offer: row.offer,
    quantity: row.quantity,
    status: row.status,
    createdAt: row.created_at,
    endedAt: row.ended_at,
  };
}
