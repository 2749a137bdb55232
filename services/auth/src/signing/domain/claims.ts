/**
 * Access-token claims (contract tokens.md §1) plus the claims newer published SDKs validate (`signed_up_at`,
 * `is_restricted`, `restricted_reason`, `requires_totp_mfa`). Claims are a snapshot of the user at mint time.
 * Pure functions, no I/O. `is_restricted` / `restricted_reason` come from the one restriction rule
 * (@vestibule/shared/restriction), which the gateway's user views also use.
 */
import { restrictionOf } from "@vestibule/shared/restriction";

/** The user facts a token carries (from identity's User). */
export interface TokenUser {
  readonly id: string;
  readonly displayName: string | null;
  readonly primaryEmail: string | null;
  readonly primaryEmailVerified: boolean;
  readonly selectedTeamId: string | null;
  readonly isAnonymous: boolean;
  readonly requiresTotpMfa: boolean;
  readonly signedUpAtMillis: number;
  /** Restricted by an administrator (absent = false). */
  readonly restrictedByAdmin?: boolean;
}

export interface AccessTokenClaims {
  readonly sub: string;
  readonly project_id: string;
  readonly branch_id: "main";
  readonly refresh_token_id: string;
  readonly role: "authenticated";
  readonly name: string | null;
  readonly email: string | null;
  readonly email_verified: boolean;
  readonly selected_team_id: string | null;
  readonly is_anonymous: boolean;
  readonly is_restricted: boolean;
  readonly restricted_reason: { type: string } | null;
  readonly requires_totp_mfa: boolean;
  readonly signed_up_at: number;
  readonly iss: string;
  readonly iat: number;
  readonly aud: string;
  readonly exp: number;
}

/** The audience a user's tokens are for: `<projectId>`, or `<projectId>:anon` for anonymous users. */
export function audienceFor(projectId: string, isAnonymous: boolean): string {
  return isAnonymous ? `${projectId}:anon` : projectId;
}

/** The issuer: `<public URL>/api/v1/projects/<id>`, or `/api/v1/projects-anonymous-users/<id>` for anonymous users. */
export function issuerFor(publicUrl: string, projectId: string, isAnonymous: boolean): string {
  const base = publicUrl.replace(/\/+$/, "");
  return isAnonymous ? `${base}/api/v1/projects-anonymous-users/${projectId}` : `${base}/api/v1/projects/${projectId}`;
}

export function buildAccessTokenClaims(input: {
  readonly publicUrl: string;
  readonly projectId: string;
  readonly sessionId: string;
  readonly user: TokenUser;
  readonly nowSeconds: number;
  readonly lifetimeSeconds: number;
  /** The project's onboarding.requireEmailVerification (absent = false). */
  readonly requireEmailVerification?: boolean;
}): AccessTokenClaims {
  const { user, projectId } = input;
  const restriction = restrictionOf(
    { isAnonymous: user.isAnonymous, primaryEmailVerified: user.primaryEmailVerified, restrictedByAdmin: user.restrictedByAdmin ?? false },
    { requireEmailVerification: input.requireEmailVerification ?? false },
  );
  // Key order of the reference: the payload object, then iss, iat, aud, exp (irrelevant for JWT, kept for diffs).
  return {
    sub: user.id,
    project_id: projectId,
    branch_id: "main",
    refresh_token_id: input.sessionId,
    role: "authenticated",
    name: user.displayName,
    email: user.primaryEmail,
    email_verified: user.primaryEmailVerified,
    selected_team_id: user.selectedTeamId,
    is_anonymous: user.isAnonymous,
    is_restricted: restriction.isRestricted,
    restricted_reason: restriction.reason,
    requires_totp_mfa: user.requiresTotpMfa,
    signed_up_at: Math.floor(user.signedUpAtMillis / 1000),
    iss: issuerFor(input.publicUrl, projectId, user.isAnonymous),
    iat: input.nowSeconds,
    aud: audienceFor(projectId, user.isAnonymous),
    exp: input.nowSeconds + input.lifetimeSeconds,
  };
}
