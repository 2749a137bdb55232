import type { Queryable } from "@vestibule/shared/db";
import { ATTEMPT_WAIT_SQL } from "@vestibule/shared/rate-limit";

/** `getManyWithAttempts` as one statement, prepared once per connection (it runs for every batch of password sign-ins). */
const CREDENTIALS_WITH_ATTEMPTS = {
  name: "auth_credentials_with_attempts",
  text: `SELECT NULL::text AS key, c.project_id, c.user_id::text, c.password_hash, NULL::int AS wait
           FROM unnest($1::text[], $2::uuid[]) AS q (project_id, user_id)
           JOIN password_credentials c ON c.project_id = q.project_id AND c.user_id = q.user_id
         UNION ALL
         SELECT key, NULL, NULL, NULL, ${ATTEMPT_WAIT_SQL} FROM attempt_counters WHERE key = ANY($3::text[])`,
};

/** Key of a user in `getManyWithAttempts`'s map of hashes. */
export const credentialKey = (projectId: string, userId: string): string => `${projectId}\u0000${userId.toLowerCase()}`;

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
   * The password hashes of many users (by `credentialKey`) and, in the same round trip, the state of brute-force
   * counters (key → seconds still blocked, for the keys that have a counter; see `RateLimiter.start`).
   */
  async getManyWithAttempts(
    db: Queryable,
    users: readonly { projectId: string; userId: string }[],
    attemptKeys: readonly string[],
  ): Promise<{ passwordHashes: Map<string, string>; attempts: Map<string, number> }> {
    const { rows } = await db.query<{ key: string | null; project_id: string | null; user_id: string | null; password_hash: string | null; wait: number | null }>({
      ...CREDENTIALS_WITH_ATTEMPTS,
      values: [users.map((u) => u.projectId), users.map((u) => u.userId), attemptKeys],
    });
    const passwordHashes = new Map<string, string>();
    const attempts = new Map<string, number>();
    for (const r of rows) {
      if (r.key === null) passwordHashes.set(credentialKey(r.project_id!, r.user_id!), r.password_hash!);
      else attempts.set(r.key, r.wait ?? 0);
    }
    return { passwordHashes, attempts };
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
