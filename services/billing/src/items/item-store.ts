import type { Queryable } from "@vestibule/shared/db";

export interface CustomerItemKey {
  readonly projectId: string;
  readonly customerType: string;
  readonly customerId: string;
  readonly itemId: string;
}

const KEY = `project_id = $1 AND customer_type = $2 AND customer_id = $3 AND item_id = $4`;
const args = (k: CustomerItemKey) => [k.projectId, k.customerType, k.customerId, k.itemId];

/** `ledgerQuantities`, run by every batch of item reads: prepared once per connection, not parsed and planned per batch. */
const LEDGER_QUANTITIES = {
  name: "billing_ledger_quantities",
  text: `SELECT k.n, COALESCE(b.quantity, 0)
            + COALESCE((SELECT sum(c.delta) FROM item_quantity_changes c
                         WHERE c.project_id = k.project_id AND c.customer_type = k.customer_type AND c.customer_id = k.customer_id
                           AND c.item_id = k.item_id AND c.expires_at IS NOT NULL AND c.expires_at > now()), 0) AS q
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS k(project_id, customer_type, customer_id, item_id, n)
         LEFT JOIN item_balances b
           ON b.project_id = k.project_id AND b.customer_type = k.customer_type AND b.customer_id = k.customer_id AND b.item_id = k.item_id`,
};

export interface QuantityChangeRow {
  readonly id: string;
  readonly project_id: string;
  readonly customer_type: string;
  readonly customer_id: string;
  readonly item_id: string;
  readonly delta: string;
  readonly expires_at: Date | null;
  readonly description: string | null;
  readonly created_at: Date;
}

/** The ledger's SQL: quantity changes and the running total of the non-expiring ones (item_balances). */
export const itemStore = {
  /** Sum of the customer item's non-expired changes: the running total plus the expiring changes still valid. */
  async ledgerQuantity(db: Queryable, k: CustomerItemKey): Promise<number> {
    const { rows } = await db.query<{ q: string }>(
      `SELECT COALESCE((SELECT quantity FROM item_balances WHERE ${KEY}), 0)
            + COALESCE((SELECT sum(delta) FROM item_quantity_changes WHERE ${KEY} AND expires_at IS NOT NULL AND expires_at > now()), 0) AS q`,
      args(k),
    );
    return Number(rows[0]!.q);
  },

  /** `ledgerQuantity` of many customer items in one statement, in the keys' order. */
  async ledgerQuantities(db: Queryable, keys: readonly CustomerItemKey[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const { rows } = await db.query<{ n: string; q: string }>({
      ...LEDGER_QUANTITIES,
      values: [keys.map((k) => k.projectId), keys.map((k) => k.customerType), keys.map((k) => k.customerId), keys.map((k) => k.itemId)],
    });
    const out = new Array<number>(keys.length).fill(0);
    for (const r of rows) out[Number(r.n) - 1] = Number(r.q);
    return out;
  },

  /**
   * Locks the customer item's balance row (created when missing) until the transaction ends and answers the ledger
   * quantity, in one statement: concurrent changes of one customer item run one after the other.
   */
  async lockLedgerQuantity(db: Queryable, k: CustomerItemKey): Promise<number> {
    const { rows } = await db.query<{ q: string }>(
      `WITH b AS (
         INSERT INTO item_balances (project_id, customer_type, customer_id, item_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, customer_type, customer_id, item_id) DO UPDATE SET quantity = item_balances.quantity
         RETURNING quantity)
       SELECT (SELECT quantity FROM b)
            + COALESCE((SELECT sum(delta) FROM item_quantity_changes WHERE ${KEY} AND expires_at IS NOT NULL AND expires_at > now()), 0) AS q`,
      args(k),
    );
    return Number(rows[0]!.q);
  },

  /** Records a change; a non-expiring one also moves the running total (the row is locked by the caller). One statement. */
  async insertChange(db: Queryable, id: string, k: CustomerItemKey, c: { delta: number; expiresAt: Date | null; description: string | null }): Promise<void> {
    await db.query(
      `WITH c AS (
         INSERT INTO item_quantity_changes (id, project_id, customer_type, customer_id, item_id, delta, expires_at, description)
         VALUES ($5, $1, $2, $3, $4, $6, $7, $8))
       UPDATE item_balances SET quantity = quantity + $6 WHERE ${KEY} AND $7::timestamptz IS NULL`,
      [...args(k), id, c.delta, c.expiresAt, c.description],
    );
  },

  /** Newest first, before the (created_at, id) cursor. */
  async listChanges(db: Queryable, projectId: string, opts: { before?: { at: string; id: string }; customerType?: string; customerId?: string; limit: number }): Promise<(QuantityChangeRow & { cursor_at: string })[]> {
    const { rows } = await db.query<QuantityChangeRow & { cursor_at: string }>(
      `SELECT *, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at FROM item_quantity_changes
        WHERE project_id = $1 AND ($2::text IS NULL OR customer_type = $2) AND ($6::text IS NULL OR customer_id = $6)
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [projectId, opts.customerType ?? null, opts.before?.at ?? null, opts.before?.id ?? null, opts.limit, opts.customerId ?? null],
    );
    return rows;
  },

  async deleteProject(db: Queryable, projectId: string): Promise<void> {
    await db.query(`DELETE FROM item_quantity_changes WHERE project_id = $1`, [projectId]);
    await db.query(`DELETE FROM item_balances WHERE project_id = $1`, [projectId]);
  },
};
