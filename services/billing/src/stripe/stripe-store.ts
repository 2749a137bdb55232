import type { Queryable } from "@vestibule/shared/db";

/** The SQL of the Stripe link: connected accounts. (Webhook event ids: purchaseStore.claimStripeEvent.) */
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
};
