import type { Queryable } from "@vestibule/shared/db";

export interface PublicJwk {
  readonly kty: string;
  readonly alg: string;
  readonly crv: string;
  readonly kid: string;
  readonly x: string;
  readonly y: string;
}

export interface SigningKeyRow {
  readonly kid: string;
  readonly project_id: string;
  readonly audience: string;
  readonly public_jwk: PublicJwk;
  readonly private_jwk_sealed: string;
  readonly created_at: Date;
  readonly retired_at: Date | null;
  readonly publish_until: Date | null;
}

const COLUMNS = "kid, project_id, audience, public_jwk, private_jwk_sealed, created_at, retired_at, publish_until";

/** The only SQL about signing keys. */
export const signingKeyStore = {
  async current(db: Queryable, projectId: string, audience: string, forUpdate = false): Promise<SigningKeyRow | undefined> {
    const { rows } = await db.query<SigningKeyRow>(
      `SELECT ${COLUMNS} FROM signing_keys WHERE project_id = $1 AND audience = $2 AND retired_at IS NULL${forUpdate ? " FOR UPDATE" : ""}`,
      [projectId, audience],
    );
    return rows[0];
  },

  /** Inserts a current key unless the audience already has one (another replica won the race): then false. */
  async insertCurrent(db: Queryable, key: Pick<SigningKeyRow, "kid" | "project_id" | "audience" | "public_jwk" | "private_jwk_sealed">): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO signing_keys (kid, project_id, audience, public_jwk, private_jwk_sealed)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, audience) WHERE retired_at IS NULL DO NOTHING`,
      [key.kid, key.project_id, key.audience, JSON.stringify(key.public_jwk), key.private_jwk_sealed],
    );
    return rowCount === 1;
  },

  async retire(db: Queryable, kid: string, publishForSeconds: number): Promise<void> {
    await db.query(
      `UPDATE signing_keys SET retired_at = now(), publish_until = now() + make_interval(secs => $2) WHERE kid = $1 AND retired_at IS NULL`,
      [kid, publishForSeconds],
    );
  },

  /** Keys to publish for an audience: the current one first, then retired keys still in their publication window. */
  async published(db: Queryable, projectId: string, audience: string): Promise<PublicJwk[]> {
    const { rows } = await db.query<{ public_jwk: PublicJwk }>(
      `SELECT public_jwk FROM signing_keys
       WHERE project_id = $1 AND audience = $2 AND (retired_at IS NULL OR publish_until > now())
       ORDER BY (retired_at IS NULL) DESC, created_at DESC`,
      [projectId, audience],
    );
    return rows.map((r) => r.public_jwk);
  },

  async deleteExpired(db: Queryable, olderThanDays: number): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM signing_keys WHERE publish_until < now() - make_interval(days => $1)`, [olderThanDays]);
    return rowCount ?? 0;
  },

  /** The audience's next key (published, signs nothing yet). */
  async next(db: Queryable, projectId: string, audience: string): Promise<NextKeyRow | undefined> {
    const { rows } = await db.query<NextKeyRow>(
      `SELECT kid, project_id, audience, public_jwk, private_jwk_sealed FROM next_signing_keys WHERE project_id = $1 AND audience = $2`,
      [projectId, audience],
    );
    return rows[0];
  },

  /** Inserts the next key unless the audience has one (another replica won the race): then false. */
  async insertNext(db: Queryable, key: NextKeyRow): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO next_signing_keys (kid, project_id, audience, public_jwk, private_jwk_sealed)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, audience) DO NOTHING`,
      [key.kid, key.project_id, key.audience, JSON.stringify(key.public_jwk), key.private_jwk_sealed],
    );
    return rowCount === 1;
  },

  /** Removes and returns the audience's next key (a rotation promotes it). */
  async takeNext(db: Queryable, projectId: string, audience: string): Promise<NextKeyRow | undefined> {
    const { rows } = await db.query<NextKeyRow>(
      `DELETE FROM next_signing_keys WHERE project_id = $1 AND audience = $2
       RETURNING kid, project_id, audience, public_jwk, private_jwk_sealed`,
      [projectId, audience],
    );
    return rows[0];
  },
};

/** A next key: the columns insertCurrent takes. */
export type NextKeyRow = Pick<SigningKeyRow, "kid" | "project_id" | "audience" | "public_jwk" | "private_jwk_sealed">;
