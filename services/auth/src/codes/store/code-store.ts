import type { Queryable } from "@vestibule/shared/db";

export interface CodeRow {
  readonly id: string;
  readonly project_id: string;
  readonly purpose: string;
  readonly user_id: string | null;
  readonly data: Record<string, unknown>;
  readonly created_at: Date;
  readonly expires_at: Date;
  readonly used_at: Date | null;
  readonly attempts: number;
}

const COLUMNS = "id, project_id, purpose, user_id, data, created_at, expires_at, used_at, attempts";

/** The only SQL about verification codes. */
export const codeStore = {
  async insert(
    db: Queryable,
    c: { id: string; projectId: string; purpose: string; codeHash: string; tailHash: string; userId: string | null; data: Record<string, unknown>; lifetimeMs: number },
  ): Promise<void> {
    await db.query(
      `INSERT INTO verification_codes (id, project_id, purpose, code_hash, tail_hash, user_id, data, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
      [c.id, c.projectId, c.purpose, c.codeHash, c.tailHash, c.userId, JSON.stringify(c.data), c.lifetimeMs / 1000],
    );
  },

  /** Counts one attempt on every code of the project sharing the tail (the code itself included). */
  async countAttempt(db: Queryable, projectId: string, tailHash: string): Promise<void> {
    await db.query(`UPDATE verification_codes SET attempts = attempts + 1 WHERE project_id = $1 AND tail_hash = $2`, [projectId, tailHash]);
  },

  async byHash(db: Queryable, projectId: string, purpose: string, codeHash: string): Promise<CodeRow | undefined> {
    const { rows } = await db.query<CodeRow>(
      `SELECT ${COLUMNS} FROM verification_codes WHERE code_hash = $1 AND project_id = $2 AND purpose = $3`,
      [codeHash, projectId, purpose],
    );
    return rows[0];
  },

  /** Marks the code used unless it already is (single use even under concurrency); false when it was. */
  async markUsed(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`UPDATE verification_codes SET used_at = now() WHERE id = $1 AND used_at IS NULL`, [id]);
    return rowCount === 1;
  },

  /** Deletes the user's unused codes of one purpose (a used code stays, so that a replay answers ALREADY_USED). */
  async deleteUnusedForUser(db: Queryable, projectId: string, userId: string, purpose: string): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM verification_codes WHERE project_id = $1 AND user_id = $2 AND purpose = $3 AND used_at IS NULL`,
      [projectId, userId, purpose],
    );
    return rowCount ?? 0;
  },

  async deleteForUser(db: Queryable, projectId: string, userId: string): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM verification_codes WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
    return rowCount ?? 0;
  },

  async deleteExpired(db: Queryable): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM verification_codes WHERE expires_at < now() - interval '1 day'`);
    return rowCount ?? 0;
  },
};
