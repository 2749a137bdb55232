import type { Queryable } from "@vestibule/shared/db";
import type { PurchaseRow } from "./purchase-store.ts";

export interface RefundRow {
  readonly id: string;
  readonly project_id: string;
  readonly purchase_id: string;
  readonly invoice_id: string | null;
  /** bigint from pg: a string. */
  readonly amount_usd_cents: string;
  readonly end_action: "now" | "at-period-end" | null;
  readonly stripe_refund_id: string | null;
  readonly transaction_type: RefundTransactionType;
  readonly created_at: Date;
}

/** A refund (Vestibule's, or made in Stripe's dashboard) or a chargeback (a dispute). */
export type RefundTransactionType = "refund" | "chargeback";

export type RefundListRow = RefundRow & { cursor_at: string; customer_type: string; customer_id: string; kind: PurchaseRow["kind"]; quantity: number };

/** The SQL of purchase refunds. */
export const refundStore = {
  /** USD cents refunded so far on a purchase (on one invoice when `invoiceId` is given). */
  async refundedCents(db: Queryable, purchaseId: string, invoiceId: string | null): Promise<number> {
    const { rows } = await db.query<{ total: string }>(
      `SELECT COALESCE(SUM(amount_usd_cents), 0)::text AS total FROM purchase_refunds
        WHERE purchase_id = $1 AND ($2::text IS NULL OR invoice_id = $2)`,
      [purchaseId, invoiceId],
    );
    return Number(rows[0]!.total);
  },

  /** The one-time purchase paid by this payment intent, locked (a refund of it in progress commits first). */
  async lockPurchaseByPaymentIntent(db: Queryable, paymentIntentId: string): Promise<PurchaseRow | undefined> {
    const { rows } = await db.query<PurchaseRow>(`SELECT * FROM purchases WHERE stripe_payment_intent_id = $1 FOR UPDATE`, [paymentIntentId]);
    return rows[0];
  },

  async countFor(db: Queryable, purchaseId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM purchase_refunds WHERE purchase_id = $1`, [purchaseId]);
    return rows[0]!.n;
  },

  async insert(
    db: Queryable,
    r: { id: string; projectId: string; purchaseId: string; invoiceId: string | null; amountUsdCents: number; endAction: string | null; stripeRefundId: string | null; transactionType?: RefundTransactionType },
  ): Promise<void> {
    await db.query(
      `INSERT INTO purchase_refunds (id, project_id, purchase_id, invoice_id, amount_usd_cents, end_action, stripe_refund_id, transaction_type)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [r.id, r.projectId, r.purchaseId, r.invoiceId, r.amountUsdCents, r.endAction, r.stripeRefundId, r.transactionType ?? "refund"],
    );
  },

  /** The project's refunds newest first, with their purchase's customer (admin transactions list). */
  async list(
    db: Queryable,
    projectId: string,
    opts: { before?: { at: string; id: string }; customerType?: string; customerId?: string; transactionType?: RefundTransactionType; limit: number },
  ): Promise<RefundListRow[]> {
    const { rows } = await db.query<RefundListRow>(
      `SELECT r.*, p.customer_type, p.customer_id, p.kind, p.quantity,
              to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at
         FROM purchase_refunds r JOIN purchases p ON p.id = r.purchase_id
        WHERE r.project_id = $1 AND ($2::text IS NULL OR p.customer_type = $2) AND ($3::text IS NULL OR p.customer_id = $3)
          AND ($4::timestamptz IS NULL OR (r.created_at, r.id) < ($4, $5::uuid)) AND ($7::text IS NULL OR r.transaction_type = $7)
        ORDER BY r.created_at DESC, r.id DESC LIMIT $6`,
      [projectId, opts.customerType ?? null, opts.customerId ?? null, opts.before?.at ?? null, opts.before?.id ?? null, opts.limit, opts.transactionType ?? null],
    );
    return rows;
  },

  /** purchase id → its refund ids, oldest first. */
  async idsByPurchase(db: Queryable, purchaseIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (purchaseIds.length === 0) return out;
    const { rows } = await db.query<{ purchase_id: string; id: string }>(
      `SELECT purchase_id, id FROM purchase_refunds WHERE purchase_id = ANY($1::uuid[]) ORDER BY created_at, id`,
      [purchaseIds],
    );
    for (const r of rows) out.set(r.purchase_id, [...(out.get(r.purchase_id) ?? []), r.id]);
    return out;
  },
};
