import type { Queryable } from "@vestibule/shared/db";

export interface TotpRow {
  readonly secret_ciphertext: string;
  readonly last_used_step: number;
}

/** The only SQL about TOTP secrets. */
export const totpStore = {
  async get(db: Queryable, projectId: string, userId: string): Promise<TotpRow | undefined> {
    const { rows } = await db.query<TotpRow>(`SELECT secret_ciphertext, last_used_step FROM totp_credentials WHERE project_id = $1 AND user_id = $2`, [
      projectId,
      userId,
    ]);
    return rows[0];
  },

  async exists(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`SELECT 1 FROM totp_credentials WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
    return rowCount === 1;
  },

  /** Sets the secret; a new secret starts with no used step. */
  async upsert(db: Queryable, projectId: string, userId: string, secretCiphertext: string, lastUsedStep = 0): Promise<void> {
    await db.query(
      `INSERT INTO totp_credentials (project_id, user_id, secret_ciphertext, last_used_step) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, user_id) DO UPDATE SET secret_ciphertext = EXCLUDED.secret_ciphertext,
         last_used_step = EXCLUDED.last_used_step, updated_at = now()`,
      [projectId, userId, secretCiphertext, lastUsedStep],
    );
  },

  async delete(db: Queryable, projectId: string, userId: string): Promise<void> {
    await db.query(`DELETE FROM totp_credentials WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
  },

  /** Records `step` as used unless it (or a later one) already was: false means a replay. */
  async useStep(db: Queryable, projectId: string, userId: string, step: number): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE totp_credentials SET last_used_step = $3 WHERE project_id = $1 AND user_id = $2 AND last_used_step < $3`,
      [projectId, userId, step],
    );
    return rowCount === 1;
  },
};
