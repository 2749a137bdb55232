import type { Queryable } from "@vestibule/shared/db";
import type { Offer } from "../offers/offer-rules.ts";

export interface ProductChangeRow {
  readonly id: string;
  readonly project_id: string;
  readonly purchase_id: string;
  readonly from_offer_id: string | null;
  readonly from_offer: Offer;
  readonly from_price_id: string | null;
  readonly from_quantity: number;
  readonly to_offer_id: string | null;
  readonly to_offer: Offer;
  readonly to_price_id: string | null;
  readonly to_quantity: number;
  readonly created_at: Date;
}

/** A subscription's product, price and quantity before or after a change. */
export interface ProductState {
  readonly offerId: string | null;
  readonly offer: Offer;
  readonly priceId: string | null;
  readonly quantity: number;
}

export type ProductChangeListRow = ProductChangeRow & { cursor_at: string; customer_type: string; customer_id: string; test_mode: boolean };

/** The SQL of subscription product changes (switches). */
export const productChangeStore = {
  async insert(
    db: Queryable,
    c: { id: string; projectId: string; purchaseId: string; from: ProductState; to: ProductState },
  ): Promise<void> {
    await db.query(
      `INSERT INTO purchase_product_changes
         (id, project_id, purchase_id, from_offer_id, from_offer, from_price_id, from_quantity, to_offer_id, to_offer, to_price_id, to_quantity)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [c.id, c.projectId, c.purchaseId, c.from.offerId, JSON.stringify(c.from.offer), c.from.priceId, c.from.quantity, c.to.offerId, JSON.stringify(c.to.offer), c.to.priceId, c.to.quantity],
    );
  },

  /** purchase id → its product changes, oldest first. */
  async byPurchase(db: Queryable, purchaseIds: readonly string[]): Promise<Map<string, ProductChangeRow[]>> {
    const out = new Map<string, ProductChangeRow[]>();
    if (purchaseIds.length === 0) return out;
    const { rows } = await db.query<ProductChangeRow>(`SELECT * FROM purchase_product_changes WHERE purchase_id = ANY($1::uuid[]) ORDER BY created_at, id`, [purchaseIds]);
    for (const r of rows) out.set(r.purchase_id, [...(out.get(r.purchase_id) ?? []), r]);
    return out;
  },

  /** Newest first, before the cursor (created_at, id), optionally of one customer. */
  async list(db: Queryable, projectId: string, opts: { before?: { at: string; id: string }; customerType?: string; customerId?: string; limit: number }): Promise<ProductChangeListRow[]> {
    const { rows } = await db.query<ProductChangeListRow>(
      `SELECT c.*, p.customer_type, p.customer_id, p.test_mode,
              to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
         FROM purchase_product_changes c JOIN purchases p ON p.id = c.purchase_id
        WHERE c.project_id = $1 AND ($2::text IS NULL OR p.customer_type = $2) AND ($3::text IS NULL OR p.customer_id = $3)
          AND ($4::timestamptz IS NULL OR (c.created_at, c.id) < ($4, $5::uuid))
        ORDER BY c.created_at DESC, c.id DESC LIMIT $6`,
      [projectId, opts.customerType ?? null, opts.customerId ?? null, opts.before?.at ?? null, opts.before?.id ?? null, opts.limit],
    );
    return rows;
  },
};
