import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about notification preferences and unsubscribe tokens. */
export const preferenceStore = {
  /** category id → enabled, for the categories the user has a row for. */
  async forUser(db: Queryable, projectId: string, userId: string): Promise<Map<string, boolean>> {
    const { rows } = await db.query<{ category_id: string; enabled: boolean }>(
      `SELECT category_id, enabled FROM notification_preferences WHERE project_id = $1 AND user_id = $2`,
      [projectId, userId],
    );
    return new Map(rows.map((r) => [r.category_id, r.enabled]));
  },

  async set(db: Queryable, projectId: string, userId: string, categoryId: string, enabled: boolean): Promise<void> {
    await db.query(
      `INSERT INTO notification_preferences (project_id, user_id, category_id, enabled) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, user_id, category_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
      [projectId, userId, categoryId, enabled],
    );
  },

  async deleteUser(db: Queryable, projectId: string, userId: string): Promise<void> {
    await db.query(`DELETE FROM notification_preferences WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
    await db.query(`DELETE FROM unsubscribe_tokens WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
  },

  async insertToken(db: Queryable, t: { tokenHash: string; projectId: string; userId: string; categoryId: string }): Promise<void> {
    await db.query(`INSERT INTO unsubscribe_tokens (token_hash, project_id, user_id, category_id) VALUES ($1, $2, $3, $4)`, [
      t.tokenHash,
      t.projectId,
      t.userId,
      t.categoryId,
    ]);
  },

  async token(db: Queryable, tokenHash: string): Promise<{ project_id: string; user_id: string; category_id: string } | undefined> {
    const { rows } = await db.query<{ project_id: string; user_id: string; category_id: string }>(
      `SELECT project_id, user_id, category_id FROM unsubscribe_tokens WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0];
  },
};
