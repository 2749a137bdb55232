import type { Queryable } from "@vestibule/shared/db";

export interface PasskeyRow {
  readonly id: string;
  readonly project_id: string;
  readonly user_id: string;
  readonly credential_id: string;
  readonly public_key: Buffer;
  /** bigint column (the pool parses it as a number). */
  readonly counter: number | string;
  readonly transports: string[];
  readonly name: string;
  readonly rp_id: string;
  readonly origin: string;
  readonly created_at: Date;
  readonly last_used_at: Date | null;
}

export interface NewPasskey {
  readonly id: string;
  readonly projectId: string;
  readonly userId: string;
  readonly credentialId: string;
  readonly publicKey: Uint8Array;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly name: string;
  readonly rpId: string;
  readonly origin: string;
  readonly aaguid: string;
  readonly deviceType: string;
  readonly backedUp: boolean;
  readonly userVersion: number;
}

const COLUMNS = "id, project_id, user_id, credential_id, public_key, counter, transports, name, rp_id, origin, created_at, last_used_at";

/** The only SQL about passkey credentials. */
export const passkeyStore = {
  /** Inserts a credential; the unique constraint `passkey_credentials_credential_unique` guards credential ids. */
  async insert(db: Queryable, p: NewPasskey): Promise<PasskeyRow> {
    const { rows } = await db.query<PasskeyRow>(
      `INSERT INTO passkey_credentials (id, project_id, user_id, credential_id, public_key, counter, transports, name, rp_id,
         origin, aaguid, device_type, backed_up, user_version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ${COLUMNS}`,
      [
        p.id,
        p.projectId,
        p.userId,
        p.credentialId,
        Buffer.from(p.publicKey),
        p.counter,
        [...p.transports],
        p.name,
        p.rpId,
        p.origin,
        p.aaguid,
        p.deviceType,
        p.backedUp,
        p.userVersion,
      ],
    );
    return rows[0]!;
  },

  /** The identity user version at which the credential's user had passkeys on (see deleteEnabledBefore). */
  async setUserVersion(db: Queryable, id: string, version: number): Promise<void> {
    await db.query(`UPDATE passkey_credentials SET user_version = $2 WHERE id = $1`, [id, version]);
  },

  async byCredentialId(db: Queryable, projectId: string, credentialId: string): Promise<PasskeyRow | undefined> {
    const { rows } = await db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkey_credentials WHERE project_id = $1 AND credential_id = $2`, [
      projectId,
      credentialId,
    ]);
    return rows[0];
  },

  async listForUser(db: Queryable, projectId: string, userId: string): Promise<PasskeyRow[]> {
    const { rows } = await db.query<PasskeyRow>(
      `SELECT ${COLUMNS} FROM passkey_credentials WHERE project_id = $1 AND user_id = $2 ORDER BY created_at, id`,
      [projectId, userId],
    );
    return rows;
  },

  async countForUser(db: Queryable, projectId: string, userId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM passkey_credentials WHERE project_id = $1 AND user_id = $2`, [
      projectId,
      userId,
    ]);
    return rows[0]?.n ?? 0;
  },

  /**
   * Records a successful sign-in: the new counter and the time, only if the stored counter is still the one the
   * assertion was checked against (two racing uses of one assertion: one wins). False when it lost.
   */
  async recordUse(db: Queryable, id: string, expectedCounter: number | string, newCounter: number): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE passkey_credentials SET counter = $3, last_used_at = now() WHERE id = $1 AND counter = $2::bigint`,
      [id, String(expectedCounter), newCounter],
    );
    return rowCount === 1;
  },

  async rename(db: Queryable, projectId: string, userId: string, id: string, name: string): Promise<PasskeyRow | undefined> {
    const { rows } = await db.query<PasskeyRow>(
      `UPDATE passkey_credentials SET name = $4 WHERE project_id = $1 AND user_id = $2 AND id = $3 RETURNING ${COLUMNS}`,
      [projectId, userId, id, name],
    );
    return rows[0];
  },

  async delete(db: Queryable, projectId: string, userId: string, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM passkey_credentials WHERE project_id = $1 AND user_id = $2 AND id = $3`, [projectId, userId, id]);
    return rowCount === 1;
  },

  async deleteForUser(db: Queryable, projectId: string, userId: string): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM passkey_credentials WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
    return rowCount ?? 0;
  },

  /** Removes the credentials enabled before identity's user version `version` (passkeys turned off at that version). */
  async deleteEnabledBefore(db: Queryable, projectId: string, userId: string, version: number): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM passkey_credentials WHERE project_id = $1 AND user_id = $2 AND user_version < $3`,
      [projectId, userId, version],
    );
    return rowCount ?? 0;
  },
};
