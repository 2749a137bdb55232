import type { Queryable } from "@vestibule/shared/db";
import { userActivityStore } from "./user-activity-store.ts";
import { userListing } from "./user-listing.ts";
import { SELECT_USER, selectUsers, type NewUser, type StoredOAuthProvider, type UserFields, type UserRow } from "./user-rows.ts";

export type { NewUser, ShownUserRow, StoredOAuthProvider, UserFields, UserRow } from "./user-rows.ts";
export type { AuthMethod, ListUsersQuery, UserFilters } from "./user-listing.ts";
export type { DailyStatRow, NewlyActive } from "./user-activity-store.ts";

/**
 * The only SQL about users, their activity and the user aggregates: reads and writes of one user here, listing and
 * search in user-listing.ts, activity and aggregates in user-activity-store.ts.
 */
export const userStore = {
  async get(db: Queryable, projectId: string, userId: string, forUpdate = false): Promise<UserRow | undefined> {
    const { rows } = await db.query<UserRow>(
      `${SELECT_USER} WHERE u.project_id = $1 AND u.id = $2${forUpdate ? " FOR UPDATE OF u" : ""}`,
      [projectId, userId],
    );
    return rows[0];
  },

  /**
   * The users who sign in with each (project, e-mail) pair, by the pairs' position: one statement for a whole batch
   * of password sign-ins (the partial unique index contact_channels_auth_value serves each pair). E-mails must be
   * normalised by the caller.
   */
  async findByAuthEmails(
    db: Queryable,
    lookups: readonly { projectId: string; email: string }[],
  ): Promise<Map<number, UserRow & { auth_email_verified: boolean }>> {
    if (lookups.length === 0) return new Map();
    const { rows } = await db.query<UserRow & { i: string; auth_email_verified: boolean }>({
      name: "identity_users_by_auth_emails",
      text: `WITH m AS (
               SELECT q.i, c.user_id, c.is_verified
                 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q (project_id, email, i)
                 JOIN contact_channels c ON c.project_id = q.project_id AND c.type = 'email' AND c.value = q.email AND c.used_for_auth)
             SELECT m.i, m.is_verified AS auth_email_verified, s.*
               FROM m JOIN (${selectUsers("users u")} WHERE u.id IN (SELECT user_id FROM m)) s ON s.id = m.user_id`,
      values: [lookups.map((l) => l.projectId), lookups.map((l) => l.email)],
    });
    return new Map(rows.map(({ i, ...row }) => [Number(i) - 1, row]));
  },

  /** Locks the user row (serialises changes of one user's channels); false when there is no such user. */
  async lock(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`SELECT 1 FROM users WHERE project_id = $1 AND id = $2 FOR UPDATE`, [projectId, userId]);
    return rowCount === 1;
  },

  async getMany(db: Queryable, projectId: string, userIds: readonly string[]): Promise<UserRow[]> {
    if (userIds.length === 0) return [];
    const { rows } = await db.query<UserRow>(`${SELECT_USER} WHERE u.project_id = $1 AND u.id = ANY($2::uuid[])`, [projectId, userIds]);
    return rows;
  },

  async insert(db: Queryable, u: NewUser): Promise<void> {
    await db.query(
      `INSERT INTO users (id, project_id, display_name, profile_image_url, client_metadata, client_read_only_metadata,
         server_metadata, has_password, otp_auth_enabled, passkey_auth_enabled, requires_totp_mfa, oauth_providers,
         is_anonymous, selected_team_id, sign_up_method, country_code, restricted_by_admin, restricted_by_admin_reason,
         restricted_by_admin_private_details, risk_score_bot, risk_score_free_trial_abuse)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
      [
        u.id, u.project_id, u.display_name, u.profile_image_url, u.client_metadata, u.client_read_only_metadata,
        u.server_metadata, u.has_password, u.otp_auth_enabled, u.passkey_auth_enabled, u.requires_totp_mfa,
        JSON.stringify(u.oauth_providers), u.is_anonymous, u.selected_team_id, u.sign_up_method, u.country_code,
        u.restricted_by_admin, u.restricted_by_admin_reason, u.restricted_by_admin_private_details, u.risk_score_bot,
        u.risk_score_free_trial_abuse,
      ],
    );
  },

  /** Writes every field and bumps the version. */
  async update(db: Queryable, userId: string, f: UserFields): Promise<void> {
    await db.query(
      `UPDATE users SET display_name = $2, profile_image_url = $3, client_metadata = $4, client_read_only_metadata = $5,
         server_metadata = $6, has_password = $7, otp_auth_enabled = $8, passkey_auth_enabled = $9,
         requires_totp_mfa = $10, is_anonymous = $11, selected_team_id = $12, restricted_by_admin = $13,
         restricted_by_admin_reason = $14, restricted_by_admin_private_details = $15, country_code = $16,
         risk_score_bot = $17, risk_score_free_trial_abuse = $18, version = version + 1, updated_at = now()
       WHERE id = $1`,
      [
        userId, f.display_name, f.profile_image_url, f.client_metadata, f.client_read_only_metadata, f.server_metadata,
        f.has_password, f.otp_auth_enabled, f.passkey_auth_enabled, f.requires_totp_mfa, f.is_anonymous, f.selected_team_id,
        f.restricted_by_admin, f.restricted_by_admin_reason, f.restricted_by_admin_private_details, f.country_code,
        f.risk_score_bot, f.risk_score_free_trial_abuse,
      ],
    );
  },

  /** Replaces the user's OAuth provider links (the auth service owns them; this is the copy the user views show). */
  async setOAuthProviders(db: Queryable, userId: string, providers: readonly StoredOAuthProvider[]): Promise<void> {
    await db.query(`UPDATE users SET oauth_providers = $2 WHERE id = $1`, [userId, JSON.stringify(providers)]);
  },

  /** A change elsewhere (e.g. the primary channel) changed the user as shown: bump its version. */
  async bumpVersion(db: Queryable, userId: string): Promise<void> {
    await db.query(`UPDATE users SET version = version + 1, updated_at = now() WHERE id = $1`, [userId]);
  },

  async delete(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM users WHERE project_id = $1 AND id = $2`, [projectId, userId]);
    return rowCount === 1;
  },

  /** Recomputes what `query` searches for a user, after its display name or channels changed. */
  async refreshSearchText(db: Queryable, userId: string): Promise<void> {
    await db.query(
      `UPDATE users u SET search_text = lower(coalesce(u.display_name, '')) || coalesce(
         (SELECT string_agg(E'\\n' || c.value, '' ORDER BY c.created_at, c.id) FROM contact_channels c WHERE c.user_id = u.id), '')
       WHERE u.id = $1`,
      [userId],
    );
  },

  ...userListing,
  ...userActivityStore,
};
