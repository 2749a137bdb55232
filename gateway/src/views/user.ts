import type { User } from "@vestibule/proto/identity/v1/user";
import type { ContactChannel } from "@vestibule/proto/identity/v1/user";
import { requiresEmailVerification } from "@vestibule/shared/restriction";
import { jsonOrNull, restrictionFields, selectedTeamId, type SelectedTeam, type UserViewProject } from "@vestibule/shared/views";
import type { CachedProject } from "../auth/caches.ts";
import { clientTeamView } from "./team.ts";

export { restrictionOfUser, serverUserView, type SelectedTeam, type UserViewProject } from "@vestibule/shared/views";

export function userViewProject(p: CachedProject): UserViewProject {
  return { requireEmailVerification: requiresEmailVerification(p.renderedConfig) };
}

/** The user as a client sees itself (no server metadata, no last-active time). */
export function clientUserView(u: User, team: SelectedTeam, project: UserViewProject): Record<string, unknown> {
  return {
    id: u.id,
    primary_email: u.primaryEmail ?? null,
    primary_email_verified: u.primaryEmailVerified,
    display_name: u.displayName ?? null,
    client_metadata: jsonOrNull(u.clientMetadataJson),
    client_read_only_metadata: jsonOrNull(u.clientReadOnlyMetadataJson),
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
