import type { User } from "@vestibule/proto/identity/v1/user";
import type { ContactChannel } from "@vestibule/proto/identity/v1/user";
import type { Team } from "@vestibule/proto/teams_permissions/v1/team";
import { requiresEmailVerification, restrictionOf, type Restriction } from "@vestibule/shared/restriction";
import type { CachedProject } from "../auth/caches.ts";
import { clientTeamView, serverTeamView } from "./team.ts";

function json(text: string): unknown {
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

function selectedTeamId(u: User, team: SelectedTeam): string | null {
  if (!u.selectedTeamId) return null;
  return team === null ? null : u.selectedTeamId;
}

/** The project facts a user view needs (the restriction rule's setting), from the gateway's project cache. */
export interface UserViewProject {
  readonly requireEmailVerification: boolean;
}

export function userViewProject(p: CachedProject): UserViewProject {
  return { requireEmailVerification: requiresEmailVerification(p.renderedConfig) };
}

/** Whether the user is restricted and why (@vestibule/shared/restriction), for views and request checks. */
export function restrictionOfUser(u: User, project: UserViewProject): Restriction {
  return restrictionOf({ isAnonymous: u.isAnonymous, primaryEmailVerified: u.primaryEmailVerified, restrictedByAdmin: u.restrictedByAdmin }, project);
}

/** The restriction fields both shapes show (the current SDK's user shape, latest-sdk.md B). */
function restrictionFields(u: User, project: UserViewProject): Record<string, unknown> {
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
    client_metadata: json(u.clientMetadataJson),
    client_read_only_metadata: json(u.clientReadOnlyMetadataJson),
    server_metadata: json(u.serverMetadataJson),
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

/** The user as a client sees itself (no server metadata, no last-active time). */
export function clientUserView(u: User, team: SelectedTeam, project: UserViewProject): Record<string, unknown> {
  return {
    id: u.id,
    primary_email: u.primaryEmail ?? null,
    primary_email_verified: u.primaryEmailVerified,
    display_name: u.displayName ?? null,
    client_metadata: json(u.clientMetadataJson),
    client_read_only_metadata: json(u.clientReadOnlyMetadataJson),
    profile_image_url: u.profileImageUrl ?? null,
    signed_up_at_millis: Number(u.signedUpAtMillis),
    has_password: u.hasPassword,
    auth_with_email: u.hasPassword || u.otpAuthEnabled,
    oauth_providers: u.oauthProviders.map((p) => ({ id: p.id, account_id: p.accountId, email: p.email ?? null })),
    selected_team_id: selectedTeamId(u, team),
    requires_totp_mfa: u.requiresTotpMfa,
    otp_auth_enabled: u.otpAuthEnabled,
    passkey_auth_enabled: u.passkeyAuthEnabled,
    is_anonymous: u.isAnonymous,
    selected_team: team ? clientTeamView(team) : null,
    ...restrictionFields(u, project),
  };
}

export function contactChannelView(c: ContactChannel): Record<string, unknown> {
  return {
    user_id: c.userId,
    id: c.id,
    value: c.value,
    type: c.type,
    used_for_auth: c.usedForAuth,
    is_verified: c.isVerified,
    is_primary: c.isPrimary,
  };
}
