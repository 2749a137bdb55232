import type { Queryable } from "@vestibule/shared/db";

export interface ApiKeySetRow {
  readonly id: string;
  readonly project_id: string;
  readonly description: string;
  readonly publishable_client_key_last_four: string | null;
  readonly secret_server_key_last_four: string | null;
  readonly super_secret_admin_key_last_four: string | null;
  readonly expires_at: Date | null;
  readonly manually_revoked_at: Date | null;
  readonly created_at: Date;
}

export type KeyColumn = "publishable_client_key" | "secret_server_key" | "super_secret_admin_key";

const COLUMNS =
  "id, project_id, description, publishable_client_key_last_four, secret_server_key_last_four, super_secret_admin_key_last_four, expires_at, manually_revoked_at, created_at";

/** The only SQL about internal API key sets. */
export const apiKeySetStore = {
  async insert(
    db: Queryable,
    k: {
      id: string;
      projectId: string;
      description: string;
      expiresAt: Date | null;
      keys: Partial<Record<KeyColumn, { hash: string; lastFour: string }>>;
    },
  ): Promise<ApiKeySetRow> {
    const { rows } = await db.query<ApiKeySetRow>(
      `INSERT INTO api_key_sets (id, project_id, description, expires_at,
         publishable_client_key_hash, publishable_client_key_last_four,
         secret_server_key_hash, secret_server_key_last_four,
         super_secret_admin_key_hash, super_secret_admin_key_last_four)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
      [
        k.id,
        k.projectId,
        k.description,
        k.expiresAt,
        k.keys.publishable_client_key?.hash ?? null,
        k.keys.publishable_client_key?.lastFour ?? null,
        k.keys.secret_server_key?.hash ?? null,
        k.keys.secret_server_key?.lastFour ?? null,
        k.keys.super_secret_admin_key?.hash ?? null,
        k.keys.super_secret_admin_key?.lastFour ?? null,
      ],
    );
    return rows[0]!;
  },

  async list(db: Queryable, projectId: string): Promise<ApiKeySetRow[]> {
    const { rows } = await db.query<ApiKeySetRow>(
      `SELECT ${COLUMNS} FROM api_key_sets WHERE project_id = $1 ORDER BY created_at DESC, id`,
      [projectId],
    );
    return rows;
  },

  async get(db: Queryable, projectId: string, id: string, forUpdate = false): Promise<ApiKeySetRow | undefined> {
    const { rows } = await db.query<ApiKeySetRow>(
      `SELECT ${COLUMNS} FROM api_key_sets WHERE project_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`,
      [projectId, id],
    );
    return rows[0];
  },

  async update(db: Queryable, id: string, description: string, revoke: boolean): Promise<ApiKeySetRow> {
    const { rows } = await db.query<ApiKeySetRow>(
      `UPDATE api_key_sets SET description = $2,
         manually_revoked_at = CASE WHEN $3 THEN coalesce(manually_revoked_at, now()) ELSE manually_revoked_at END
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, description, revoke],
    );
    return rows[0]!;
  },

  /** One indexed lookup by the key's hash. */
  async findByKeyHash(db: Queryable, column: KeyColumn, hash: string): Promise<ApiKeySetRow | undefined> {
    const { rows } = await db.query<ApiKeySetRow>(`SELECT ${COLUMNS} FROM api_key_sets WHERE ${column}_hash = $1`, [hash]);
    return rows[0];
  },
};
