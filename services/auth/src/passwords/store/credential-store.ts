import type { Queryable } from "@vestibule/shared/db";

/** `getMany` as one statement, prepared once per connection (it runs for every batch of password sign-ins). */
const CREDENTIALS = {
  name: "auth_credentials",
  text: `SELECT c.project_id, c.user_id::text, c.password_hash
           FROM unnest($1::text[], $2::uuid[]) AS q (project_id, user_id)
           JOIN password_credentials c ON c.project_id = q.project_id AND c.user_id = q.user_id`,
};

/** Key of a user in `getMany`'s map of hashes. */
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

  /** The password hashes of many users, by `credentialKey` (users without a password have none). */
  async getMany(db: Queryable, users: readonly { projectId: string; userId: string }[]): Promise<Map<string, string>> {
    const { rows } = await db.query<{ project_id: string; user_id: string; password_hash: string }>({
      ...CREDENTIALS,
      values: [users.map((u) => u.projectId), users.map((u) => u.userId)],
    });
    return new Map(rows.map((r) => [credentialKey(r.project_id, r.user_id), r.password_hash]));
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
