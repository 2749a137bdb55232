/**
 * An access token as the SDK sees it: the JWT's payload, decoded but never verified (the server verifies; the SDK only
 * needs the expiry and the claims for a partial user). A token without `exp` never expires: it is treated as expiring at
 * the latest date JavaScript can represent.
 */

/** The latest representable date (8.64e15 ms). */
export const MAX_DATE_MILLIS = 8_640_000_000_000_000;

export interface AccessTokenClaims {
  readonly sub: string;
  readonly exp?: number;
  readonly iat?: number;
  readonly iss: string;
  readonly aud: string;
  readonly project_id: string;
  readonly branch_id: string;
  readonly refresh_token_id: string;
  readonly role: "authenticated";
  readonly name: string | null;
  readonly email: string | null;
  readonly email_verified: boolean;
  readonly selected_team_id: string | null;
  readonly is_anonymous: boolean;
  readonly [claim: string]: unknown;
}

export class InvalidAccessTokenError extends Error {
  constructor(reason: string) {
    super(`Invalid access token: ${reason}`);
    this.name = "InvalidAccessTokenError";
  }
}

function base64UrlDecode(segment: string): string {
  const b64 = segment.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(segment.length / 4) * 4, "=");
  const binary = atob(b64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

const REQUIRED_STRING_CLAIMS = ["sub", "iss", "aud", "project_id", "branch_id", "refresh_token_id", "role"] as const;

/** Decodes and checks the claim shape of tokens.md §1; throws `InvalidAccessTokenError` (an assertion) otherwise. */
export function decodeAccessToken(token: string): AccessTokenClaims {
  if (token === "undefined") throw new InvalidAccessTokenError("the literal string 'undefined' is not a token");
  const parts = token.split(".");
  if (parts.length !== 3) throw new InvalidAccessTokenError("not a compact JWT");
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(base64UrlDecode(parts[1]!)) as Record<string, unknown>;
  } catch {
    throw new InvalidAccessTokenError("payload is not JSON");
  }
  if (payload === null || typeof payload !== "object") throw new InvalidAccessTokenError("payload is not an object");
  for (const claim of REQUIRED_STRING_CLAIMS) {
    if (typeof payload[claim] !== "string") throw new InvalidAccessTokenError(`claim ${claim} is missing`);
  }
  if (payload.exp !== undefined && typeof payload.exp !== "number") throw new InvalidAccessTokenError("claim exp is not a number");
  if (typeof payload.is_anonymous !== "boolean") throw new InvalidAccessTokenError("claim is_anonymous is missing");
  return payload as AccessTokenClaims;
}

export class AccessToken {
  readonly claims: AccessTokenClaims;

  constructor(readonly token: string) {
    this.claims = decodeAccessToken(token);
  }

  /** Expiry in epoch milliseconds (`MAX_DATE_MILLIS` when the token has no `exp`). */
  get expiresAtMillis(): number {
    return this.claims.exp === undefined ? MAX_DATE_MILLIS : this.claims.exp * 1000;
  }

  get expiresAt(): Date {
    return new Date(this.expiresAtMillis);
  }

  expiresInMillis(now = Date.now()): number {
    return this.expiresAtMillis - now;
  }

  isExpired(now = Date.now()): boolean {
    return this.expiresInMillis(now) <= 0;
  }
}
