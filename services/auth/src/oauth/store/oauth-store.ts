import type { Queryable } from "@vestibule/shared/db";

export interface OAuthAccountRow {
  readonly id: string;
  readonly project_id: string;
  readonly user_id: string;
  readonly provider_config_id: string;
  readonly provider_type: string;
  readonly provider_account_id: string;
  readonly email: string | null;
  readonly allow_sign_in: boolean;
  readonly allow_connected_accounts: boolean;
  readonly shared_keys: boolean;
  readonly access_token_ciphertext: string | null;
  readonly access_token_expires_at: Date | null;
  readonly refresh_token_ciphertext: string | null;
  readonly scopes: string[];
}

const ACCOUNT_COLUMNS = `id, project_id, user_id, provider_config_id, provider_type, provider_account_id, email, allow_sign_in,
  allow_connected_accounts, shared_keys, access_token_ciphertext, access_token_expires_at, refresh_token_ciphertext, scopes`;

export interface NewOAuthAccount {
  readonly id: string;
  readonly projectId: string;
  readonly userId: string;
  readonly providerConfigId: string;
  readonly providerType: string;
  readonly providerAccountId: string;
  readonly email: string | null;
  readonly allowSignIn: boolean;
  readonly allowConnectedAccounts: boolean;
  readonly sharedKeys: boolean;
}

export interface StoredTokens {
  readonly accessTokenCiphertext: string | null;
  readonly accessTokenExpiresAt: Date | null;
  readonly refreshTokenCiphertext: string | null;
  readonly scopes: readonly string[];
  readonly sharedKeys: boolean;
}

/** The only SQL about OAuth links, flows and authorization codes. */
export const oauthStore = {
  async accountsOfUser(db: Queryable, projectId: string, userId: string): Promise<OAuthAccountRow[]> {
    const { rows } = await db.query<OAuthAccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM oauth_accounts WHERE project_id = $1 AND user_id = $2 ORDER BY created_at, id`,
      [projectId, userId],
    );
    return rows;
  },

  async accountsWithProviderAccount(db: Queryable, projectId: string, providerConfigId: string, providerAccountId: string): Promise<OAuthAccountRow[]> {
    const { rows } = await db.query<OAuthAccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM oauth_accounts WHERE project_id = $1 AND provider_config_id = $2 AND provider_account_id = $3
       ORDER BY allow_sign_in DESC, created_at`,
      [projectId, providerConfigId, providerAccountId],
    );
    return rows;
  },

  async account(db: Queryable, projectId: string, id: string): Promise<OAuthAccountRow | undefined> {
    const { rows } = await db.query<OAuthAccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM oauth_accounts WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rows[0];
  },

  async insertAccount(db: Queryable, a: NewOAuthAccount): Promise<void> {
    await db.query(
      `INSERT INTO oauth_accounts (id, project_id, user_id, provider_config_id, provider_type, provider_account_id, email,
         allow_sign_in, allow_connected_accounts, shared_keys)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [a.id, a.projectId, a.userId, a.providerConfigId, a.providerType, a.providerAccountId, a.email, a.allowSignIn, a.allowConnectedAccounts, a.sharedKeys],
    );
  },

  /** Inserts unless an equal link (or a sign-in link of that account elsewhere) exists; true when inserted. */
  async insertAccountIfAbsent(db: Queryable, a: NewOAuthAccount): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO oauth_accounts (id, project_id, user_id, provider_config_id, provider_type, provider_account_id, email,
         allow_sign_in, allow_connected_accounts, shared_keys)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
      [a.id, a.projectId, a.userId, a.providerConfigId, a.providerType, a.providerAccountId, a.email, a.allowSignIn, a.allowConnectedAccounts, a.sharedKeys],
    );
    return rowCount === 1;
  },

  async updateAccount(
    db: Queryable,
    id: string,
    f: { allowSignIn: boolean; allowConnectedAccounts: boolean; providerAccountId: string; email: string | null },
  ): Promise<void> {
    await db.query(
      `UPDATE oauth_accounts SET allow_sign_in = $2, allow_connected_accounts = $3, provider_account_id = $4, email = $5, updated_at = now()
       WHERE id = $1`,
      [id, f.allowSignIn, f.allowConnectedAccounts, f.providerAccountId, f.email],
    );
  },

  async setTokens(db: Queryable, id: string, t: StoredTokens, email: string | null): Promise<void> {
    await db.query(
      `UPDATE oauth_accounts SET access_token_ciphertext = $2, access_token_expires_at = $3,
         refresh_token_ciphertext = coalesce($4, refresh_token_ciphertext), scopes = $5, shared_keys = $6,
         email = coalesce($7, email), updated_at = now()
       WHERE id = $1`,
      [id, t.accessTokenCiphertext, t.accessTokenExpiresAt, t.refreshTokenCiphertext, [...t.scopes], t.sharedKeys, email],
    );
  },

  async deleteAccount(db: Queryable, projectId: string, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM oauth_accounts WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rowCount === 1;
  },

  async deleteAccountsOfUser(db: Queryable, projectId: string, userId: string): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM oauth_accounts WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
    return rowCount ?? 0;
  },

  async insertFlow(db: Queryable, f: { stateHash: string; projectId: string; providerConfigId: string; data: object; lifetimeSeconds: number }): Promise<void> {
    await db.query(
      `INSERT INTO oauth_flows (state_hash, project_id, provider_config_id, data, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [f.stateHash, f.projectId, f.providerConfigId, JSON.stringify(f.data), f.lifetimeSeconds],
    );
  },

  /** Takes a flow (single use: deleted in the same statement); `expired` tells a timed-out one apart. */
  async takeFlow(db: Queryable, stateHash: string): Promise<{ project_id: string; provider_config_id: string; data: Record<string, unknown>; expired: boolean } | undefined> {
    const { rows } = await db.query<{ project_id: string; provider_config_id: string; data: Record<string, unknown>; expired: boolean }>(
      `DELETE FROM oauth_flows WHERE state_hash = $1 RETURNING project_id, provider_config_id, data, expires_at < now() AS expired`,
      [stateHash],
    );
    return rows[0];
  },

  async insertCode(db: Queryable, c: { codeHash: string; projectId: string; userId: string; data: object; lifetimeSeconds: number }): Promise<void> {
    await db.query(
      `INSERT INTO oauth_authorization_codes (code_hash, project_id, user_id, data, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [c.codeHash, c.projectId, c.userId, JSON.stringify(c.data), c.lifetimeSeconds],
    );
  },

  /** Takes an authorization code (single use); undefined when unknown, used or of another project. */
  async takeCode(db: Queryable, projectId: string, codeHash: string): Promise<{ user_id: string; data: Record<string, unknown>; expired: boolean } | undefined> {
    const { rows } = await db.query<{ user_id: string; data: Record<string, unknown>; expired: boolean }>(
      `DELETE FROM oauth_authorization_codes WHERE code_hash = $1 AND project_id = $2 RETURNING user_id, data, expires_at < now() AS expired`,
      [codeHash, projectId],
    );
    return rows[0];
  },

  async deleteExpired(db: Queryable): Promise<number> {
    const a = await db.query(`DELETE FROM oauth_flows WHERE expires_at < now() - interval '1 day'`);
    const b = await db.query(`DELETE FROM oauth_authorization_codes WHERE expires_at < now() - interval '1 day'`);
    return (a.rowCount ?? 0) + (b.rowCount ?? 0);
  },
};
