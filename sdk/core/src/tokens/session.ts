/**
 * One user session: a refresh token and (maybe) an access token, with the refresh rules of spec §4 and tokens.md §6:
 *  - a session lacking both tokens is invalid from the start; invalidating clears both tokens;
 *  - before a request the access token must stay valid for at least `ACCESS_TOKEN_FRESHNESS_MARGIN_MS` (20,000 ms),
 *    otherwise a new one is fetched with the refresh token; concurrent refreshes share one request;
 *  - a refresh that yields nothing (a refresh-token error) marks the session invalid and clears the access token;
 *  - a caller may mark the access token expired (after an invalid-access-token answer), forcing the next refresh.
 */
import { AccessToken } from "./access-token.ts";

/** Minimum remaining lifetime of an access token before a request uses it (spec §9). */
export const ACCESS_TOKEN_FRESHNESS_MARGIN_MS = 20_000;

export interface SessionTokens {
  readonly accessToken: AccessToken;
  readonly refreshToken: string | null;
}

/** Fetches a new access token with a refresh token; resolves `null` when the refresh token is no longer valid. */
export type AccessTokenRefresher = (refreshToken: string) => Promise<AccessToken | null>;

type Listener<T> = (value: T) => void;

export class Session {
  private accessToken: AccessToken | null;
  private refreshToken: string | null;
  private invalid: boolean;
  private pendingRefresh: Promise<AccessToken | null> | null = null;
  private readonly invalidateListeners = new Set<Listener<void>>();
  private readonly accessTokenListeners = new Set<Listener<AccessToken | null>>();

  constructor(
    tokens: { readonly refreshToken: string | null; readonly accessToken?: string | AccessToken | null },
    private readonly refresher: AccessTokenRefresher,
  ) {
    this.refreshToken = tokens.refreshToken;
    const at = tokens.accessToken;
    this.accessToken = at == null ? null : typeof at === "string" ? new AccessToken(at) : at;
    this.invalid = this.refreshToken === null && this.accessToken === null;
  }

  /** Stable key of the session: the same refresh token means the same session. */
  get sessionKey(): string {
    return this.refreshToken ?? `access:${this.accessToken?.token ?? "none"}`;
  }

  getRefreshToken(): string | null {
    return this.refreshToken;
  }

  /** The access token without refreshing (may be close to expiry). */
  getAccessToken(): AccessToken | null {
    return this.accessToken;
  }

  isKnownToBeInvalid(): boolean {
    return this.invalid;
  }

  onInvalidate(listener: () => void): () => void {
    this.invalidateListeners.add(listener);
    return () => this.invalidateListeners.delete(listener);
  }

  onAccessTokenChange(listener: (token: AccessToken | null) => void): () => void {
    this.accessTokenListeners.add(listener);
    return () => this.accessTokenListeners.delete(listener);
  }

  /** Clears both tokens; the user is signed out. */
  markInvalid(): void {
    const wasInvalid = this.invalid;
    this.invalid = true;
    this.refreshToken = null;
    this.setAccessToken(null);
    if (!wasInvalid) for (const l of [...this.invalidateListeners]) l();
  }

  /** The server said this access token is unusable: forget it so the next call refreshes. */
  markAccessTokenExpired(token?: AccessToken | string | null): void {
    const current = this.accessToken;
    if (!current) return;
    const given = token == null ? null : typeof token === "string" ? token : token.token;
    if (given === null || given === current.token) this.setAccessToken(null);
  }

  /** The access token if it stays valid for `minMillisUntilExpiration` more, else null. */
  getAccessTokenIfNotExpiredYet(minMillisUntilExpiration: number, now = Date.now()): AccessToken | null {
    const at = this.accessToken;
    if (!at) return null;
    return at.expiresInMillis(now) > minMillisUntilExpiration ? at : null;
  }

  /**
   * Tokens usable for a request: the current access token if it is fresh enough, else a refreshed one. Null when the
   * session is invalid (no tokens, or the refresh token was refused).
   */
  async getOrFetchLikelyValidTokens(minMillisUntilExpiration = ACCESS_TOKEN_FRESHNESS_MARGIN_MS): Promise<SessionTokens | null> {
    if (this.invalid) return null;
    const fresh = this.getAccessTokenIfNotExpiredYet(minMillisUntilExpiration);
    if (fresh) return { accessToken: fresh, refreshToken: this.refreshToken };
    if (this.refreshToken === null) {
      // Only an access token: usable until it expires, never refreshed.
      const at = this.accessToken;
      if (at && !at.isExpired()) return { accessToken: at, refreshToken: null };
      this.markInvalid();
      return null;
    }
    const refreshed = await this.refreshAccessToken();
    if (!refreshed) return null;
    return { accessToken: refreshed, refreshToken: this.refreshToken };
  }

  /** Fetches a new access token now (shared by concurrent callers). */
  refreshAccessToken(): Promise<AccessToken | null> {
    if (this.pendingRefresh) return this.pendingRefresh;
    const refreshToken = this.refreshToken;
    if (refreshToken === null || this.invalid) return Promise.resolve(null);
    const pending = (async () => {
      try {
        const token = await this.refresher(refreshToken);
        if (this.refreshToken !== refreshToken) return this.accessToken; // invalidated or replaced meanwhile
        if (token === null) {
          this.markInvalid();
          return null;
        }
        this.setAccessToken(token);
        return token;
      } finally {
        this.pendingRefresh = null;
      }
    })();
    this.pendingRefresh = pending;
    return pending;
  }

  private setAccessToken(token: AccessToken | null): void {
    if (this.accessToken === token) return;
    this.accessToken = token;
    for (const l of [...this.accessTokenListeners]) l(token);
  }
}
