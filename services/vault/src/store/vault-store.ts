import type { Queryable } from "@vestibule/shared/db";

export interface ProjectKeyRow {
  readonly id: string;
  readonly wrapped_key: string;
}

/** The only SQL of the vault service. */
export const vaultStore = {
  async activeKey(db: Queryable, projectId: string): Promise<ProjectKeyRow | undefined> {
    const { rows } = await db.query<ProjectKeyRow>(`SELECT id, wrapped_key FROM project_keys WHERE project_id = $1 AND active`, [projectId]);
    return rows[0];
  },

  async keyById(db: Queryable, projectId: string, id: string): Promise<ProjectKeyRow | undefined> {
    const { rows } = await db.query<ProjectKeyRow>(`SELECT id, wrapped_key FROM project_keys WHERE id = $1 AND project_id = $2`, [id, projectId]);
    return rows[0];
  },

  /** Inserts the project's first active key unless another replica just did; false when it lost the race. */
  async insertFirstKey(db: Queryable, projectId: string, key: ProjectKeyRow): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO project_keys (id, project_id, wrapped_key, active) VALUES ($1, $2, $3, true) ON CONFLICT (project_id) WHERE active DO NOTHING`,
      [key.id, projectId, key.wrapped_key],
    );
    return rowCount === 1;
  },

  /** Makes `key` the project's active key (inside the caller's transaction). */
  async replaceActiveKey(db: Queryable, projectId: string, key: ProjectKeyRow): Promise<void> {
    await db.query(`UPDATE project_keys SET active = false WHERE project_id = $1 AND active`, [projectId]);
    await db.query(`INSERT INTO project_keys (id, project_id, wrapped_key, active) VALUES ($1, $2, $3, true)`, [key.id, projectId, key.wrapped_key]);
  },

  async upsertEntry(db: Queryable, e: { projectId: string; storeId: string; keyHash: string; ciphertext: string; projectKeyId: string }): Promise<void> {
    await db.query(
      `INSERT INTO entries (project_id, store_id, key_hash, ciphertext, project_key_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, store_id, key_hash) DO UPDATE
         SET ciphertext = EXCLUDED.ciphertext, project_key_id = EXCLUDED.project_key_id, updated_at = now()`,
      [e.projectId, e.storeId, e.keyHash, e.ciphertext, e.projectKeyId],
    );
  },

  async getEntry(db: Queryable, projectId: string, storeId: string, keyHash: string): Promise<string | undefined> {
    const { rows } = await db.query<{ ciphertext: string }>(`SELECT ciphertext FROM entries WHERE project_id = $1 AND store_id = $2 AND key_hash = $3`, [
      projectId,
      storeId,
      keyHash,
    ]);
    return rows[0]?.ciphertext;
  },

  /** Everything of a deleted project: values first, then the keys (without the keys, nothing left could be read). */
  async deleteProject(db: Queryable, projectId: string): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM entries WHERE project_id = $1`, [projectId]);
    await db.query(`DELETE FROM project_keys WHERE project_id = $1`, [projectId]);
    return rowCount ?? 0;
  },
};
