import type { Queryable } from "@vestibule/shared/db";

export interface StripeCustomerRow {
  readonly stripe_account_id: string;
  readonly stripe_customer_id: string;
}

/** The SQL of the Stripe link: connected accounts, customers' Stripe customers. (Webhook event ids: purchaseStore.claimStripeEvent.) */
export const stripeStore = {
  async accountOf(db: Queryable, projectId: string): Promise<string | undefined> {
    const { rows } = await db.query<{ account_id: string }>(`SELECT account_id FROM stripe_accounts WHERE project_id = $1`, [projectId]);
    return rows[0]?.account_id;
  },

  /** Keeps the first account stored for the project (a concurrent setup's account wins); answers the stored one. */
  async saveAccount(db: Queryable, projectId: string, accountId: string): Promise<string> {
    await db.query(`INSERT INTO stripe_accounts (project_id, account_id) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING`, [projectId, accountId]);
    return (await stripeStore.accountOf(db, projectId))!;
  },

  async projectOfAccount(db: Queryable, accountId: string): Promise<string | undefined> {
    const { rows } = await db.query<{ project_id: string }>(`SELECT project_id FROM stripe_accounts WHERE account_id = $1`, [accountId]);
    return rows[0]?.project_id;
  },

  async customerOf(db: Queryable, projectId: string, customerType: string, customerId: string): Promise<StripeCustomerRow | undefined> {
    const { rows } = await db.query<StripeCustomerRow>(
      `SELECT stripe_account_id, stripe_customer_id FROM stripe_customers WHERE project_id = $1 AND customer_type = $2 AND customer_id = $3`,
      [projectId, customerType, customerId],
    );
    return rows[0];
  },

  /**
   * Keeps the first Stripe customer stored for the customer on an account (a concurrent creation's wins); with
   * `replaceOtherAccount` a stored customer of another account is replaced. Answers the stored one.
   */
  /**
   * Remembers a customer's Stripe customer; an existing row is kept unless it is of another account
   * (`replaceOtherAccount`) or is the Stripe customer being `replacing` (deleted in Stripe). Answers the row now stored.
   */
  async saveCustomer(
    db: Queryable,
    projectId: string,
    customerType: string,
    customerId: string,
    row: StripeCustomerRow,
    opts: { replaceOtherAccount?: boolean; replacing?: string } = {},
  ): Promise<StripeCustomerRow> {
    await db.query(
      `INSERT INTO stripe_customers (project_id, customer_type, customer_id, stripe_account_id, stripe_customer_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, customer_type, customer_id) DO UPDATE SET stripe_account_id = EXCLUDED.stripe_account_id, stripe_customer_id = EXCLUDED.stripe_customer_id
         WHERE ($6 AND stripe_customers.stripe_account_id <> EXCLUDED.stripe_account_id) OR stripe_customers.stripe_customer_id = $7`,
      [projectId, customerType, customerId, row.stripe_account_id, row.stripe_customer_id, opts.replaceOtherAccount === true, opts.replacing ?? null],
    );
    return (await stripeStore.customerOf(db, projectId, customerType, customerId))!;
  },

  async deleteProject(db: Queryable, projectId: string): Promise<void> {
    await db.query(`DELETE FROM stripe_customers WHERE project_id = $1`, [projectId]);
  },
};
