/**
 * The user row as the API shows it (users plus its primary e-mail channel and last activity), the writable fields,
 * and the one SELECT every user read shares (user-store.ts, user-listing.ts).
 */

/** The writable columns of users (everything the API can set). */
export interface UserFields {
  readonly display_name: string | null;
  readonly profile_image_url: string | null;
  /** JSON texts; null = JSON null. */
  readonly client_metadata: string | null;
  readonly client_read_only_metadata: string | null;
  readonly server_metadata: string | null;
  readonly has_password: boolean;
  readonly otp_auth_enabled: boolean;
  readonly passkey_auth_enabled: boolean;
  readonly requires_totp_mfa: boolean;
  readonly is_anonymous: boolean;
  readonly selected_team_id: string | null;
  readonly restricted_by_admin: boolean;
  readonly restricted_by_admin_reason: string | null;
  readonly restricted_by_admin_private_details: string | null;
  readonly country_code: string | null;
  readonly risk_score_bot: number;
  readonly risk_score_free_trial_abuse: number;
}

export interface StoredOAuthProvider {
  readonly id: string;
  readonly account_id: string;
  readonly email: string | null;
}

export interface NewUser extends UserFields {
  readonly id: string;
  readonly project_id: string;
  readonly oauth_providers: readonly StoredOAuthProvider[];
  readonly sign_up_method: string;
}

/** One user as the API shows it: the users row plus its primary e-mail channel and last activity. */
export interface UserRow extends NewUser {
  readonly signed_up_at_millis: number;
  readonly last_active_at_millis: number;
  /** UTC date of sign-up, YYYY-MM-DD. */
  readonly sign_up_day: string;
  readonly version: number;
  readonly primary_email: string | null;
  readonly primary_email_verified: boolean;
  readonly primary_email_auth_enabled: boolean;
}

/** What a user message (toUserMessage) and listing pages need: UserRow without what only the aggregates read. */
export type ShownUserRow = Omit<UserRow, "sign_up_day" | "sign_up_method">;

const SHOWN_COLUMNS = `u.id, u.project_id, u.display_name, u.profile_image_url,
         u.client_metadata::text AS client_metadata,
         u.client_read_only_metadata::text AS client_read_only_metadata,
         u.server_metadata::text AS server_metadata,
         u.has_password, u.otp_auth_enabled, u.passkey_auth_enabled, u.requires_totp_mfa, u.oauth_providers,
         u.is_anonymous, u.selected_team_id, u.country_code, u.risk_score_bot,
         u.risk_score_free_trial_abuse, u.restricted_by_admin, u.restricted_by_admin_reason,
         u.restricted_by_admin_private_details,
         floor(extract(epoch FROM u.signed_up_at) * 1000)::int8 AS signed_up_at_millis,
         floor(extract(epoch FROM coalesce(a.last_active_at, u.signed_up_at)) * 1000)::int8 AS last_active_at_millis,
         u.version,
         p.value AS primary_email,
         coalesce(p.is_verified, false) AS primary_email_verified,
         coalesce(p.used_for_auth, false) AS primary_email_auth_enabled`;

const JOINS = `
    LEFT JOIN contact_channels p ON p.user_id = u.id AND p.is_primary
    LEFT JOIN user_activity a ON a.user_id = u.id`;

/** Users of `source` (a table or a subquery aliased u) with their primary e-mail channel and last activity. */
export function selectUsers(source: string): string {
  return `
  SELECT ${SHOWN_COLUMNS}, u.sign_up_method, (u.signed_up_at AT TIME ZONE 'UTC')::date::text AS sign_up_day
    FROM ${source}${JOINS}`;
}

/**
 * selectUsers without sign_up_method and sign_up_day, for listing pages: a page of 100 parses 200 fewer values, and
 * the day is a date computation per row.
 */
export function selectShownUsers(source: string): string {
  return `
  SELECT ${SHOWN_COLUMNS}
    FROM ${source}${JOINS}`;
}

export const SELECT_USER = selectUsers("users u");
