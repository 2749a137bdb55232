import type { Queryable } from "@vestibule/shared/db";
import type { ApiKeyKind } from "../domain/api-keys.ts";

export interface ApiKeyRow {
  readonly id: string;
  readonly project_id: string;
  readonly type: ApiKeyKind;
  readonly owner_id: string;
  readonly description: string;
  readonly is_public: boolean;
  readonly last_four: string;
  readonly created_at: Date;
  readonly expires_at: Date | null;
  readonly manually_revoked_at: Date | null;
}

const COLUMNS = "id, project_id, type, owner_id, description, is_public, last_four, created_at, expires_at, manually_revoked_at";

/** A check runs on every API request of a customer's backend: one prepared, indexed statement. */
const BY_HASH = { name: "auth_api_key_by_hash", text: `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1` };

/** The only SQL about user and team API keys. */
export const apiKeyStore = {
  async insert(
    db: Queryable,
    k: { id: string; projectId: string; type: ApiKeyKind; ownerId: string; description: string; isPublic: boolean; keyHash: string; lastFour: string; expiresAt: Date | null },
  ): Promise<ApiKeyRow> {
    const { rows } = await db.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, project_id, type, owner_id, description, is_public, key_hash, last_four, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [k.id, k.projectId, k.type, k.ownerId, k.description, k.isPublic, k.keyHash, k.lastFour, k.expiresAt],
    );
    return rows[0]!;
  },

  async byHash(db: Queryable, keyHash: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>({ ...BY_HASH, values: [keyHash] });
    return rows[0];
  },

  async byHashForUpdate(db: Queryable, keyHash: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1 FOR UPDATE`, [keyHash]);
    return rows[0];
  },

  async get(db: Queryable, projectId: string, type: ApiKeyKind, id: string, ownerId?: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND project_id = $2 AND type = $3 AND ($4::uuid IS NULL OR owner_id = $4)`,
      [id, projectId, type, ownerId ?? null],
    );
    return rows[0];
  },

  async list(db: Queryable, projectId: string, type: ApiKeyKind, ownerId: string): Promise<ApiKeyRow[]> {
    const { rows } = await db.query<ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 AND type = $2 AND owner_id = $3 ORDER BY created_at DESC, id DESC`,
      [projectId, type, ownerId],
    );
    return rows;
  },

  /**
   * Applies an update to one key (of the owner, when given) and returns it, or undefined when there is no such key.
   * `expiresAt`: undefined = unchanged, null = never. Revoking keeps the first revocation time.
   */
  async update(
    db: Queryable,
    projectId: string,
    type: ApiKeyKind,
    id: string,
    ownerId: string | undefined,
    change: { description?: string; expiresAt?: Date | null; revoke: boolean },
  ): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>(
      `UPDATE api_keys SET
         description = COALESCE($5, description),
         expires_at = CASE WHEN $6 THEN $7::timestamptz ELSE expires_at END,
         manually_revoked_at = CASE WHEN $8 THEN COALESCE(manually_revoked_at, now()) ELSE manually_revoked_at END
       WHERE id = $1 AND project_id = $2 AND type = $3 AND ($4::uuid IS NULL OR owner_id = $4)
       RETURNING ${COLUMNS}`,
      [id, projectId, type, ownerId ?? null, change.description ?? null, change.expiresAt !== undefined, change.expiresAt ?? null, change.revoke],
    );
    return rows[0];
  },

  /** Revokes a key by id unless it already is; the row when this call revoked it. */
  async revoke(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await db.query<ApiKeyRow>(
      `UPDATE api_keys SET manually_revoked_at = now() WHERE id = $1 AND manually_revoked_at IS NULL RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0];
  },

  /** Deletes every key of an owner; returns the deleted ids. */
  async deleteForOwner(db: Queryable, projectId: string, type: ApiKeyKind, ownerId: string): Promise<string[]> {
    const { rows } = await db.query<{ id: string }>(`DELETE FROM api_keys WHERE project_id = $1 AND type = $2 AND owner_id = $3 RETURNING id`, [
      projectId,
      type,
      ownerId,
    ]);
    return rows.map((r) => r.id);
  },
};
