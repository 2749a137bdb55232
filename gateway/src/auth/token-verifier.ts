import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, errors as joseErrors, type CryptoKey, type JWK } from "jose";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { ServiceClients } from "../clients.ts";
import type { AuthUser, TokenVerifier } from "./request-auth.ts";
import type { UserCache } from "./user-cache.ts";

interface KeySet {
  readonly keys: Map<string, CryptoKey>;
  readonly anonymousKeys: Map<string, CryptoKey>;
  readonly fetchedAt: number;
}

/** The claims of our access tokens (contract tokens.md §1 plus the newer SDKs' claims). */
export interface AccessTokenClaims {
  readonly sub: string;
  readonly project_id: string;
  readonly refresh_token_id: string;
  readonly is_anonymous: boolean;
  readonly exp?: number;
}

/**
 * Verifies access tokens locally, with the project's public keys fetched once from the auth service and kept until
 * an auth.signing_key.rotated.v1 event (or an unknown `kid`, at most every 5 s per project). No RPC per request.
 * Checks follow the contract: signature and issuer (else UNPARSABLE_ACCESS_TOKEN), expiry (ACCESS_TOKEN_EXPIRED),
 * the token's project against the request's (INVALID_PROJECT_FOR_ACCESS_TOKEN), anonymous tokens only with the
 * allow header (ANONYMOUS_AUTHENTICATION_NOT_ALLOWED).
 */
export class JwksTokenVerifier implements TokenVerifier {
  private readonly sets = new Map<string, Promise<KeySet | null>>();
  /**
   * Tokens whose signature was already checked, until they expire: an SDK sends the same token on every request for
   * minutes, so the ES256 verification (the largest CPU cost of an authenticated request) runs once per token.
   * Bounded; the oldest entries go first.
   */
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly clients: Pick<ServiceClients, "sessions">,
    private readonly publicUrl: string,
    private readonly users: UserCache,
  ) {}

  invalidate(projectId: string): void {
    this.sets.delete(projectId);
  }

  clear(): void {
    this.sets.clear();
  }

  private loadKeys(projectId: string): Promise<KeySet | null> {
    let p = this.sets.get(projectId);
    if (!p) {
      p = (async () => {
        try {
          const res = await this.clients.sessions.getVerificationKeys({ projectId, includeAnonymous: true });
          const toMap = async (json: string) => {
            const map = new Map<string, CryptoKey>();
            const keys = (JSON.parse(json || '{"keys":[]}') as { keys: JWK[] }).keys;
            for (const jwk of keys) map.set(jwk.kid!, (await importJWK(jwk, "ES256")) as CryptoKey);
            return map;
          };
          return { keys: await toMap(res.jwksJson), anonymousKeys: await toMap(res.anonymousJwksJson), fetchedAt: Date.now() };
        } catch (err) {
          this.sets.delete(projectId);
          if ((err as { code?: number }).code === 5 /* NotFound */) return null;
          throw err;
        }
      })();
      this.sets.set(projectId, p);
    }
    return p;
  }

  /** Verifies signature, issuer, audience and expiry; returns the claims. Throws the given error kinds. */
  private async verify(token: string, errs: { unparsable: () => Error; expired: (expMillis: number | null) => Error }): Promise<AccessTokenClaims> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp === undefined || known.exp * 1000 > Date.now()) return known;
      this.verified.delete(token);
      throw errs.expired(known.exp * 1000);
    }
    const claims = await this.verifyUncached(token, errs);
    if (this.verified.size >= 100_000) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, claims);
    return claims;
  }

  private async verifyUncached(token: string, errs: { unparsable: () => Error; expired: (expMillis: number | null) => Error }): Promise<AccessTokenClaims> {
    let aud: string;
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
      const payload = decodeJwt(token);
      if (typeof payload.aud !== "string") throw new Error("aud");
      aud = payload.aud;
    } catch {
      throw errs.unparsable();
    }
    const anonymous = aud.endsWith(":anon");
    const projectId = anonymous ? aud.slice(0, -5) : aud;
    if (!kid || !/^(internal|[0-9a-f-]{36})$/.test(projectId)) throw errs.unparsable();
    let set = await this.loadKeys(projectId);
    if (!set) throw errs.unparsable();
    let key = (anonymous ? set.anonymousKeys : set.keys).get(kid);
    if (!key && Date.now() - set.fetchedAt > 5000) {
      this.sets.delete(projectId);
      set = await this.loadKeys(projectId);
      key = set ? (anonymous ? set.anonymousKeys : set.keys).get(kid) : undefined;
    }
    if (!key) throw errs.unparsable();
    const issuer = anonymous ? `${this.publicUrl}/api/v1/projects-anonymous-users/${projectId}` : `${this.publicUrl}/api/v1/projects/${projectId}`;
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ["ES256"], issuer, audience: aud });
      const claims = payload as unknown as AccessTokenClaims;
      if (claims.is_anonymous !== anonymous || claims.project_id !== projectId || typeof claims.sub !== "string") throw errs.unparsable();
      return claims;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) {
        const exp = (err.payload as { exp?: number }).exp;
        throw errs.expired(typeof exp === "number" ? exp * 1000 : null);
      }
      if (err instanceof Error && !(err instanceof joseErrors.JOSEError)) throw err;
      throw errs.unparsable();
    }
  }

  async verifyAccessToken(token: string, opts: { projectId: string; allowAnonymous: boolean }): Promise<AuthUser> {
    const claims = await this.verify(token, {
      unparsable: () => knownError("UNPARSABLE_ACCESS_TOKEN"),
      expired: (expMillis) => knownError("ACCESS_TOKEN_EXPIRED", { expired_at_millis: expMillis }),
    });
    if (claims.project_id !== opts.projectId) {
      throw knownError("INVALID_PROJECT_FOR_ACCESS_TOKEN", { expected_project_id: opts.projectId, actual_project_id: claims.project_id });
    }
    if (claims.is_anonymous && !opts.allowAnonymous) throw knownError("ANONYMOUS_AUTHENTICATION_NOT_ALLOWED");
    return { id: claims.sub, isAnonymous: claims.is_anonymous, refreshTokenId: claims.refresh_token_id };
  }

  async verifyAdminAccessToken(token: string): Promise<{ userId: string }> {
    const claims = await this.verify(token, {
      unparsable: () => knownError("UNPARSABLE_ADMIN_ACCESS_TOKEN"),
      expired: (expMillis) => knownError("ADMIN_ACCESS_TOKEN_EXPIRED", { expired_at_millis: expMillis }),
    });
    if (claims.project_id !== "internal" || claims.is_anonymous) throw knownError("ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
    const user = await this.users.get("internal", claims.sub);
    if (!user) throw statusError(401, "The user associated with the admin access token is no longer valid. Please refresh the admin access token and try again.");
    return { userId: claims.sub };
  }
}
