import type { Queryable } from "@vestibule/shared/db";

export interface CliLoginRow {
  readonly id: string;
  readonly project_id: string;
  readonly expires_at: Date;
  readonly completed_at: Date | null;
  readonly delivered_at: Date | null;
  readonly anon_user_id: string | null;
}

const COLUMNS = "id, project_id, expires_at, completed_at, delivered_at, anon_user_id";

/** The only SQL about CLI logins. */
export const cliLoginStore = {
  async insert(
    db: Queryable,
    l: { id: string; projectId: string; pollingCodeHash: string; loginCodeHash: string; expiresAt: Date; anonUserId?: string },
  ): Promise<void> {
    await db.query(
      `INSERT INTO cli_logins (id, project_id, polling_code_hash, login_code_hash, expires_at, anon_user_id) VALUES ($1, $2, $3, $4, $5, $6)`,
      [l.id, l.projectId, l.pollingCodeHash, l.loginCodeHash, l.expiresAt, l.anonUserId ?? null],
    );
  },

  async byPollingCode(db: Queryable, projectId: string, pollingCodeHash: string): Promise<CliLoginRow | undefined> {
    const { rows } = await db.query<CliLoginRow>(`SELECT ${COLUMNS} FROM cli_logins WHERE polling_code_hash = $1 AND project_id = $2`, [
      pollingCodeHash,
      projectId,
    ]);
    return rows[0];
  },

  async byLoginCodeForUpdate(db: Queryable, projectId: string, loginCodeHash: string): Promise<CliLoginRow | undefined> {
    const { rows } = await db.query<CliLoginRow>(`SELECT ${COLUMNS} FROM cli_logins WHERE login_code_hash = $1 AND project_id = $2 FOR UPDATE`, [
      loginCodeHash,
      projectId,
    ]);
    return rows[0];
  },

  async complete(db: Queryable, id: string, c: { userId: string; sessionId: string; refreshTokenCiphertext: string }): Promise<void> {
    await db.query(
      `UPDATE cli_logins SET completed_at = now(), user_id = $2, session_id = $3, refresh_token_ciphertext = $4 WHERE id = $1`,
      [id, c.userId, c.sessionId, c.refreshTokenCiphertext],
    );
  },

  /**
   * Hands out the refresh token of a completed login once: marks it delivered, erases the ciphertext and returns it.
   * Undefined when it was delivered already (also by a concurrent poll) or is not completed.
   */
  async deliver(db: Queryable, id: string): Promise<string | undefined> {
    const { rows } = await db.query<{ refresh_token_ciphertext: string }>(
      `WITH taken AS (
         SELECT id, refresh_token_ciphertext FROM cli_logins
         WHERE id = $1 AND delivered_at IS NULL AND completed_at IS NOT NULL FOR UPDATE
       )
       UPDATE cli_logins l SET delivered_at = now(), refresh_token_ciphertext = NULL
       FROM taken WHERE l.id = taken.id
       RETURNING taken.refresh_token_ciphertext`,
      [id],
    );
    return rows[0]?.refresh_token_ciphertext;
  },

  /** Logins past expiry for a day; also erases any refresh token nobody collected. */
  async deleteExpired(db: Queryable): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM cli_logins WHERE expires_at < now() - interval '1 day'`);
    return rowCount ?? 0;
  },
};
