import type { Queryable } from "@vestibule/shared/db";
import type { Offer } from "../offers/offer-rules.ts";

export interface PurchaseRow {
  readonly id: string;
  readonly project_id: string;
  readonly customer_type: string;
  readonly customer_id: string;
  readonly offer_id: string | null;
  readonly offer: Offer;
  readonly price_id: string | null;
  readonly quantity: number;
  readonly kind: "one_time" | "subscription";
  readonly status: "active" | "canceled" | "refunded";
  readonly creation_source: "purchase_page" | "test_mode" | "api_grant";
  readonly test_mode: boolean;
  readonly current_period_end: Date | null;
  readonly cancel_at_period_end: boolean;
  readonly ended_at: Date | null;
  readonly stripe_subscription_id: string | null;
  readonly created_at: Date;
}

export interface NewPurchase {
  readonly id: string;
  readonly projectId: string;
  readonly customerType: string;
  readonly customerId: string;
  readonly offerId: string | null;
  readonly offer: Offer;
  readonly priceId: string | null;
  readonly quantity: number;
  readonly kind: "one_time" | "subscription";
  readonly source: PurchaseRow["creation_source"];
  readonly testMode: boolean;
  readonly currentPeriodEnd: Date | null;
  readonly stripeSubscriptionId?: string | null;
  readonly stripePaymentIntentId?: string | null;
}

export interface PurchaseCodeRow {
  readonly id: string;
  readonly project_id: string;
  readonly customer_type: string;
  readonly customer_id: string;
  readonly offer_id: string | null;
  readonly offer: Offer;
  readonly return_url: string | null;
  readonly expires_at: Date;
}

/** The SQL of purchases and purchase codes. */
export const purchaseStore = {
  async customerPurchases(db: Queryable, projectId: string, customerType: string, customerId: string): Promise<PurchaseRow[]> {
    const { rows } = await db.query<PurchaseRow>(
      `SELECT * FROM purchases WHERE project_id = $1 AND customer_type = $2 AND customer_id = $3 ORDER BY created_at, id`,
      [projectId, customerType, customerId],
    );
    return rows;
  },

  async insertPurchase(db: Queryable, p: NewPurchase): Promise<void> {
    await db.query(
      `INSERT INTO purchases (id, project_id, customer_type, customer_id, offer_id, offer, price_id, quantity, kind, creation_source, test_mode,
                              current_period_start, current_period_end, stripe_subscription_id, stripe_payment_intent_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $12::timestamptz IS NULL THEN NULL ELSE now() END, $12, $13, $14)`,
      [p.id, p.projectId, p.customerType, p.customerId, p.offerId, JSON.stringify(p.offer), p.priceId, p.quantity, p.kind, p.source, p.testMode,
        p.currentPeriodEnd, p.stripeSubscriptionId ?? null, p.stripePaymentIntentId ?? null],
    );
  },

  /** Serialises purchases of one customer (advisory lock until the transaction ends). */
  async lockCustomer(db: Queryable, projectId: string, customerType: string, customerId: string): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`billing:customer:${projectId}:${customerType}:${customerId}`]);
  },

  /** Ends the customer's active purchases of these offers now (a switch inside a group); answers their ids. */
  async endActiveOffers(db: Queryable, projectId: string, customerType: string, customerId: string, offerIds: readonly string[]): Promise<string[]> {
    if (offerIds.length === 0) return [];
    const { rows } = await db.query<{ id: string }>(
      `UPDATE purchases SET status = 'canceled', ended_at = now()
        WHERE project_id = $1 AND customer_type = $2 AND customer_id = $3 AND offer_id = ANY($4::text[])
          AND status = 'active' AND (ended_at IS NULL OR ended_at > now())
        RETURNING id`,
      [projectId, customerType, customerId, offerIds],
    );
    return rows.map((r) => r.id);
  },

  async insertCode(db: Queryable, c: { id: string; projectId: string; codeHash: string; customerType: string; customerId: string; offerId: string | null; offer: Offer; returnUrl: string | null; expiresAt: Date }): Promise<void> {
    await db.query(
      `INSERT INTO purchase_codes (id, project_id, code_hash, customer_type, customer_id, offer_id, offer, return_url, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [c.id, c.projectId, c.codeHash, c.customerType, c.customerId, c.offerId, JSON.stringify(c.offer), c.returnUrl, c.expiresAt],
    );
  },

  async codeByHash(db: Queryable, codeHash: string): Promise<PurchaseCodeRow | undefined> {
    const { rows } = await db.query<PurchaseCodeRow>(`SELECT * FROM purchase_codes WHERE code_hash = $1`, [codeHash]);
    return rows[0];
  },

  async purchaseById(db: Queryable, projectId: string, id: string): Promise<(PurchaseRow & { stripe_payment_intent_id: string | null }) | undefined> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
    const { rows } = await db.query<PurchaseRow & { stripe_payment_intent_id: string | null }>(`SELECT * FROM purchases WHERE id = $1 AND project_id = $2`, [id, projectId]);
    return rows[0];
  },

  async codeById(db: Queryable, id: string): Promise<PurchaseCodeRow | undefined> {
    const { rows } = await db.query<PurchaseCodeRow>(`SELECT * FROM purchase_codes WHERE id = $1`, [id]);
    return rows[0];
  },

  async updateSubscription(db: Queryable, id: string, u: { currentPeriodEnd?: Date | null; cancelAtPeriodEnd?: boolean; endedAt?: Date | null; status?: PurchaseRow["status"] }): Promise<void> {
    await db.query(
      `UPDATE purchases SET current_period_end = CASE WHEN $2 THEN $3::timestamptz ELSE current_period_end END,
                            cancel_at_period_end = COALESCE($4, cancel_at_period_end),
                            ended_at = CASE WHEN $5 THEN $6::timestamptz ELSE ended_at END,
                            status = COALESCE($7, status)
        WHERE id = $1`,
      [id, u.currentPeriodEnd !== undefined, u.currentPeriodEnd ?? null, u.cancelAtPeriodEnd ?? null, u.endedAt !== undefined, u.endedAt ?? null, u.status ?? null],
    );
  },

  /** A subscription moved to another product (switchSubscription): same row, same Stripe subscription. */
  /**
   * Locks the purchase row until the transaction ends: refunds, switches and the Stripe webhooks about the purchase
   * serialise on it.
   */
  async lockPurchase(db: Queryable, projectId: string, purchaseId: string): Promise<(PurchaseRow & { stripe_payment_intent_id: string | null }) | undefined> {
    const { rows } = await db.query<PurchaseRow & { stripe_payment_intent_id: string | null }>(
      `SELECT * FROM purchases WHERE id = $1 AND project_id = $2 FOR UPDATE`,
      [purchaseId, projectId],
    );
    return rows[0];
  },

  async switchProduct(db: Queryable, id: string, to: { offerId: string; offer: Offer; priceId: string; quantity: number; currentPeriodEnd: Date | null }): Promise<void> {
    await db.query(
      `UPDATE purchases SET offer_id = $2, offer = $3, price_id = $4, quantity = $5, current_period_end = COALESCE($6, current_period_end) WHERE id = $1`,
      [id, to.offerId, JSON.stringify(to.offer), to.priceId, to.quantity, to.currentPeriodEnd],
    );
  },

  async markRefundedByPaymentIntent(db: Queryable, paymentIntentId: string): Promise<void> {
    await db.query(`UPDATE purchases SET status = 'refunded', ended_at = COALESCE(ended_at, now()) WHERE stripe_payment_intent_id = $1`, [paymentIntentId]);
  },

  /** `forUpdate`: waits for (and then blocks) a refund or cancellation of the purchase in progress. */
  async purchaseBySubscription(db: Queryable, stripeSubscriptionId: string, forUpdate = false): Promise<PurchaseRow | undefined> {
    const { rows } = await db.query<PurchaseRow>(`SELECT * FROM purchases WHERE stripe_subscription_id = $1${forUpdate ? " FOR UPDATE" : ""}`, [stripeSubscriptionId]);
    return rows[0];
  },

  async listPurchases(db: Queryable, projectId: string, opts: { before?: { at: string; id: string }; customerType?: string; customerId?: string; kind?: string; limit: number }): Promise<(PurchaseRow & { cursor_at: string })[]> {
    const { rows } = await db.query<PurchaseRow & { cursor_at: string }>(
      `SELECT *, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at FROM purchases
        WHERE project_id = $1 AND ($2::text IS NULL OR customer_type = $2) AND ($3::text IS NULL OR kind = $3)
          AND ($7::text IS NULL OR customer_id = $7)
          AND ($4::timestamptz IS NULL OR (created_at, id) < ($4, $5::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $6`,
      [projectId, opts.customerType ?? null, opts.kind ?? null, opts.before?.at ?? null, opts.before?.id ?? null, opts.limit, opts.customerId ?? null],
    );
    return rows;
  },

  /** Records a Stripe event id; false when it was handled before. */
  async claimStripeEvent(db: Queryable, id: string, type: string): Promise<boolean> {
    const { rowCount } = await db.query(`INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [id, type]);
    return rowCount === 1;
  },

  async deleteProject(db: Queryable, projectId: string): Promise<void> {
    await db.query(`DELETE FROM purchases WHERE project_id = $1`, [projectId]);
    await db.query(`DELETE FROM purchase_codes WHERE project_id = $1`, [projectId]);
  },
};
