import type { User } from "@vestibule/proto/identity/v1/user";
import type { Team } from "@vestibule/proto/teams_permissions/v1/team";
import { restrictionOf, type Restriction } from "../restriction/index.ts";

/**
 * The REST API's server views of users and teams (contract endpoints.md §0), shared by the gateway's responses and
 * the e-mail service's webhook payloads (whose `data` is the same shape as the REST server view).
 */

export function jsonOrNull(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * The selected team of a user as the caller looked it up: the team, `null` when the user's `selected_team_id` names a
 * team that no longer exists (both fields then show null until identity clears the id), `undefined` when it was not
 * looked up (`selected_team` null, `selected_team_id` as stored). See routes/selected-teams.ts.
 */
export type SelectedTeam = Team | null | undefined;

export function selectedTeamId(u: User, team: SelectedTeam): string | null {
  if (!u.selectedTeamId) return null;
  return team === null ? null : u.selectedTeamId;
}

/** The project facts a user view needs (the restriction rule's setting), from the gateway's project cache. */
export interface UserViewProject {
  readonly requireEmailVerification: boolean;
}

/** Whether the user is restricted and why (@vestibule/shared/restriction), for views and request checks. */
export function restrictionOfUser(u: User, project: UserViewProject): Restriction {
  return restrictionOf({ isAnonymous: u.isAnonymous, primaryEmailVerified: u.primaryEmailVerified, restrictedByAdmin: u.restrictedByAdmin }, project);
}

/** The restriction fields both shapes show (the current SDK's user shape, latest-sdk.md B). */
export function restrictionFields(u: User, project: UserViewProject): Record<string, unknown> {
  const r = restrictionOfUser(u, project);
  return {
    is_restricted: r.isRestricted,
    restricted_reason: r.reason,
    restricted_by_admin: u.restrictedByAdmin,
    restricted_by_admin_reason: u.restrictedByAdminReason ?? null,
  };
}

/**
 * The user as server and admin callers see it (contract endpoints.md §0), with the current SDK's restriction fields,
 * `country_code` and `risk_scores` (latest-sdk.md B). A restricted user counts as signed out in that SDK unless the
 * app asks for restricted users.
 */
export function serverUserView(u: User, team: SelectedTeam, project: UserViewProject): Record<string, unknown> {
  return {
    id: u.id,
    primary_email: u.primaryEmail ?? null,
    primary_email_verified: u.primaryEmailVerified,
    primary_email_auth_enabled: u.primaryEmailAuthEnabled,
    display_name: u.displayName ?? null,
    selected_team: team ? serverTeamView(team) : null,
    selected_team_id: selectedTeamId(u, team),
    profile_image_url: u.profileImageUrl ?? null,
    signed_up_at_millis: Number(u.signedUpAtMillis),
    has_password: u.hasPassword,
    otp_auth_enabled: u.otpAuthEnabled,
    passkey_auth_enabled: u.passkeyAuthEnabled,
    client_metadata: jsonOrNull(u.clientMetadataJson),
    client_read_only_metadata: jsonOrNull(u.clientReadOnlyMetadataJson),
    server_metadata: jsonOrNull(u.serverMetadataJson),
    last_active_at_millis: Number(u.lastActiveAtMillis),
    is_anonymous: u.isAnonymous,
    oauth_providers: u.oauthProviders.map((p) => ({ id: p.id, account_id: p.accountId, email: p.email ?? null })),
    auth_with_email: u.hasPassword || u.otpAuthEnabled,
    requires_totp_mfa: u.requiresTotpMfa,
    risk_scores: { sign_up: { bot: u.riskScores?.signUpBot ?? 0, free_trial_abuse: u.riskScores?.signUpFreeTrialAbuse ?? 0 } },
    country_code: u.countryCode ?? null,
    ...restrictionFields(u, project),
    restricted_by_admin_private_details: u.restrictedByAdminPrivateDetails ?? null,
  };
}

/** The team as server and admin callers see it. */
export function serverTeamView(t: Team): Record<string, unknown> {
  return {
    id: t.id,
    display_name: t.displayName,
    profile_image_url: t.profileImageUrl ?? null,
    created_at_millis: Number(t.createdAtMillis),
    client_metadata: jsonOrNull(t.clientMetadataJson),
    client_read_only_metadata: jsonOrNull(t.clientReadOnlyMetadataJson),
    server_metadata: jsonOrNull(t.serverMetadataJson),
  };
}

export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./webhook-events.ts";
