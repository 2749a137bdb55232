import type { Queryable } from "@vestibule/shared/db";
import { ATTEMPT_WAIT_SQL } from "./attempt-store.ts";

/** `getWithAttempts` as one statement, prepared once per connection (it runs on every password sign-in). */
const CREDENTIAL_WITH_ATTEMPTS = {
  name: "auth_credential_with_attempts",
  text: `SELECT NULL::text AS key, password_hash, NULL::int AS wait FROM password_credentials WHERE project_id = $1 AND user_id = $2
         UNION ALL
         SELECT key, NULL, ${ATTEMPT_WAIT_SQL} FROM attempt_counters WHERE key = ANY($3::text[])`,
};

/** The only SQL about password credentials. */
export const credentialStore = {
  async get(db: Queryable, projectId: string, userId: string, forUpdate = false): Promise<string | undefined> {
    const { rows } = await db.query<{ password_hash: string }>(
      `SELECT password_hash FROM password_credentials WHERE project_id = $1 AND user_id = $2${forUpdate ? " FOR UPDATE" : ""}`,
      [projectId, userId],
    );
    return rows[0]?.password_hash;
  },

  /**
   * A user's password hash and, in the same round trip, the state of brute-force counters (key → seconds still
   * blocked, for the keys that have a counter; see `RateLimiter.start`).
   */
  async getWithAttempts(
    db: Queryable,
    projectId: string,
    userId: string,
    attemptKeys: readonly string[],
  ): Promise<{ passwordHash: string | undefined; attempts: Map<string, number> }> {
    const { rows } = await db.query<{ key: string | null; password_hash: string | null; wait: number | null }>({
      ...CREDENTIAL_WITH_ATTEMPTS,
      values: [projectId, userId, attemptKeys],
    });
    let passwordHash: string | undefined;
    const attempts = new Map<string, number>();
    for (const r of rows) {
      if (r.key === null) passwordHash = r.password_hash ?? undefined;
      else attempts.set(r.key, r.wait ?? 0);
    }
    return { passwordHash, attempts };
  },

  async upsert(db: Queryable, projectId: string, userId: string, passwordHash: string): Promise<void> {
    await db.query(
      `INSERT INTO password_credentials (project_id, user_id, password_hash) VALUES ($1, $2, $3)
       ON CONFLICT (project_id, user_id) DO UPDATE SET password_hash = EXCLUDED.password_hash, updated_at = now()`,
      [projectId, userId, passwordHash],
    );
  },

  /** Inserts only when the user has no password yet; false when one exists. */
  async insertIfAbsent(db: Queryable, projectId: string, userId: string, passwordHash: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO password_credentials (project_id, user_id, password_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [projectId, userId, passwordHash],
    );
    return rowCount === 1;
  },

  /** Replaces the hash only if it is still `expected` (re-hash at sign-in must not undo a concurrent change). */
  async replaceIfUnchanged(db: Queryable, projectId: string, userId: string, expected: string, passwordHash: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE password_credentials SET password_hash = $4, updated_at = now() WHERE project_id = $1 AND user_id = $2 AND password_hash = $3`,
      [projectId, userId, expected, passwordHash],
    );
    return rowCount === 1;
  },

  async delete(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM password_credentials WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
    return rowCount === 1;
  },
};
