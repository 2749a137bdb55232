/** JSON → SDK objects (and back) for users, their sessions and passkeys: pure functions, no I/O. */
import type { Json } from "../json.ts";
import type { ActiveSession, Passkey, ServerUserUpdateOptions, UserUpdateOptions } from "../types.ts";

/** The fields every user object has (client, server and current users), from the wire's user JSON. */
export function baseUserFields(json: Json) {
  return {
    id: json.id as string,
    displayName: (json.display_name ?? null) as string | null,
    primaryEmail: (json.primary_email ?? null) as string | null,
    primaryEmailVerified: !!json.primary_email_verified,
    profileImageUrl: (json.profile_image_url ?? null) as string | null,
    signedUpAt: new Date(json.signed_up_at_millis),
    clientMetadata: json.client_metadata ?? null,
    clientReadOnlyMetadata: json.client_read_only_metadata ?? null,
    hasPassword: !!json.has_password,
    otpAuthEnabled: !!json.otp_auth_enabled,
    passkeyAuthEnabled: !!json.passkey_auth_enabled,
    isMultiFactorRequired: !!json.requires_totp_mfa,
    isAnonymous: !!json.is_anonymous,
    emailAuthEnabled: !!json.auth_with_email,
    oauthProviders: ((json.oauth_providers ?? []) as Json[]).map((p) => ({ id: p.id as string })),
    toClientJson: () => ({ ...json }),
  };
}

/** A passkey of `GET /auth/passkeys`. */
export function passkeyFrom(p: Json): Passkey {
  return {
    id: p.id as string,
    name: p.name as string,
    createdAt: new Date(p.created_at_millis as number),
    lastUsedAt: p.last_used_at_millis ? new Date(p.last_used_at_millis as number) : null,
    transports: (p.transports ?? []) as string[],
  };
}

/** A session of `GET /auth/sessions`. */
export function activeSessionFrom(json: Json): ActiveSession {
  return {
    id: json.id,
    userId: json.user_id,
    createdAt: new Date(json.created_at),
    isImpersonation: !!json.is_impersonation,
    lastUsedAt: json.last_used_at == null ? undefined : new Date(json.last_used_at),
    isCurrentSession: !!json.is_current_session,
    geoInfo: json.last_used_at_end_user_ip_info ?? undefined,
  };
}

/** Bytes → standard base64 (TOTP secrets). */
function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** User update options → wire body. */
export function userUpdateBody(u: UserUpdateOptions & Json): Json {
  return {
    display_name: u.displayName,
    client_metadata: u.clientMetadata,
    selected_team_id: u.selectedTeamId,
    totp_secret_base64: u.totpMultiFactorSecret === undefined ? undefined : u.totpMultiFactorSecret === null ? null : toBase64(u.totpMultiFactorSecret),
    profile_image_url: u.profileImageUrl,
    otp_auth_enabled: u.otpAuthEnabled,
    passkey_auth_enabled: u.passkeyAuthEnabled,
  };
}

/** Server user update options → wire body. */
export function serverUserUpdateBody(u: ServerUserUpdateOptions): Json {
  return {
    ...userUpdateBody(u),
    primary_email: u.primaryEmail,
    primary_email_verified: u.primaryEmailVerified,
    primary_email_auth_enabled: u.primaryEmailAuthEnabled,
    client_read_only_metadata: u.clientReadOnlyMetadata,
    server_metadata: u.serverMetadata,
    password: u.password,
    restricted_by_admin: u.restrictedByAdmin,
    restricted_by_admin_reason: u.restrictedByAdminReason,
    restricted_by_admin_private_details: u.restrictedByAdminPrivateDetails,
  };
}
