/**
 * Where an app keeps the current user's tokens. A store holds one `TokenPair`, tells subscribers when it changes and
 * is written by the app after sign-in, refresh and sign-out.
 *
 *  - memory: this process only (tests, scripts, servers acting for one user);
 *  - cookie: the browser's cookies, shared by every tab and by the hosted pages of the same site (spec §9 names,
 *    lifetimes and 100 ms polling); refused outside a browser;
 *  - request: server rendering; reads the `x-stack-auth` header or the cookies of an incoming request, and keeps
 *    later changes in memory for the rest of that request.
 */

export interface TokenPair {
  readonly refreshToken: string | null;
  readonly accessToken: string | null;
}

export const EMPTY_TOKENS: TokenPair = Object.freeze({ refreshToken: null, accessToken: null });

export interface TokenStore {
  readonly kind: "memory" | "cookie" | "request";
  get(): TokenPair;
  set(tokens: TokenPair): void;
  subscribe(listener: (tokens: TokenPair) => void): () => void;
  /** Stops background work (cookie polling). */
  dispose(): void;
}

export function sameTokens(a: TokenPair, b: TokenPair): boolean {
  return a.refreshToken === b.refreshToken && a.accessToken === b.accessToken;
}

class ObservableStore {
  protected value: TokenPair;
  private readonly listeners = new Set<(tokens: TokenPair) => void>();

  constructor(initial: TokenPair) {
    this.value = { refreshToken: initial.refreshToken, accessToken: initial.accessToken };
  }

  get(): TokenPair {
    return this.value;
  }

  subscribe(listener: (tokens: TokenPair) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected update(tokens: TokenPair): boolean {
    if (sameTokens(tokens, this.value)) return false;
    this.value = { refreshToken: tokens.refreshToken, accessToken: tokens.accessToken };
    for (const l of [...this.listeners]) l(this.value);
    return true;
  }
}

export class MemoryTokenStore extends ObservableStore implements TokenStore {
  readonly kind = "memory" as const;

  constructor(initial: TokenPair = EMPTY_TOKENS) {
    super(initial);
  }

  set(tokens: TokenPair): void {
    this.update(tokens);
  }

  dispose(): void {}
}

// ---------------------------------------------------------------------------------------------------------------
// Cookies

/** Cookie lifetimes and polling interval (spec §9). */
export const REFRESH_TOKEN_COOKIE_MAX_AGE_SECONDS = 31_536_000;
export const ACCESS_TOKEN_COOKIE_MAX_AGE_SECONDS = 86_400;
export const COOKIE_POLL_INTERVAL_MS = 100;
export const ACCESS_TOKEN_COOKIE_NAME = "stack-access";
/** Cookie of SDKs before per-project refresh cookies; read once and deleted. */
export const LEGACY_REFRESH_TOKEN_COOKIE_NAME = "stack-refresh";
export const refreshTokenCookieName = (projectId: string): string => `stack-refresh-${projectId}`;

export const COOKIE_STORE_ON_SERVER_MESSAGE = "Cannot use cookie token store on the server!";

/** The `document.cookie` interface (injectable for tests). */
export interface CookieJar {
  /** All cookies as `a=1; b=2`. */
  read(): string;
  /** One `Set-Cookie`-style assignment, as written to `document.cookie`. */
  write(assignment: string): void;
  /** Whether the page is served over https (cookies are then marked Secure). */
  readonly secure: boolean;
}

export function parseCookies(header: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (out.has(name)) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      out.set(name, decodeURIComponent(raw));
    } catch {
      out.set(name, raw);
    }
  }
  return out;
}

/** Reads the token pair from cookies: the access cookie counts only if it was written for the same refresh token. */
export function tokensFromCookies(cookies: Map<string, string>, projectId: string): TokenPair {
  const refreshToken = cookies.get(refreshTokenCookieName(projectId)) ?? cookies.get(LEGACY_REFRESH_TOKEN_COOKIE_NAME) ?? null;
  let accessToken: string | null = null;
  const pair = cookies.get(ACCESS_TOKEN_COOKIE_NAME);
  if (pair) {
    try {
      const parsed = JSON.parse(pair) as unknown;
      if (Array.isArray(parsed) && parsed.length === 2 && parsed[0] === refreshToken && typeof parsed[1] === "string") accessToken = parsed[1];
    } catch {
      // a malformed cookie is ignored
    }
  }
  return { refreshToken, accessToken };
}

export function browserCookieJar(): CookieJar {
  const doc = (globalThis as { document?: { cookie: string } }).document;
  if (!doc) throw new Error(COOKIE_STORE_ON_SERVER_MESSAGE);
  const location = (globalThis as { location?: { protocol?: string } }).location;
  return {
    read: () => doc.cookie,
    write: (assignment) => {
      doc.cookie = assignment;
    },
    secure: location?.protocol === "https:",
  };
}

export interface CookieTokenStoreOptions {
  readonly jar?: CookieJar;
  readonly pollIntervalMs?: number;
}

export class CookieTokenStore extends ObservableStore implements TokenStore {
  readonly kind = "cookie" as const;
  private readonly jar: CookieJar;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly projectId: string,
    options: CookieTokenStoreOptions = {},
  ) {
    const jar = options.jar ?? browserCookieJar();
    super(tokensFromCookies(parseCookies(jar.read()), projectId));
    this.jar = jar;
    if (parseCookies(jar.read()).has(LEGACY_REFRESH_TOKEN_COOKIE_NAME)) {
      // Move the legacy cookie to the per-project name.
      this.write(this.value);
    }
    // Other tabs (and the hosted pages) change the cookies: pick their changes up.
    this.timer = setInterval(() => this.poll(), options.pollIntervalMs ?? COOKIE_POLL_INTERVAL_MS);
  }

  set(tokens: TokenPair): void {
    this.write(tokens);
    this.update(tokens);
  }

  /** Re-reads the cookies (also run every 100 ms). */
  poll(): void {
    this.update(tokensFromCookies(parseCookies(this.jar.read()), this.projectId));
  }

  dispose(): void {
    clearInterval(this.timer);
  }

  private write(tokens: TokenPair): void {
    const attrs = `; path=/; samesite=lax${this.jar.secure ? "; secure" : ""}`;
    const del = `=; max-age=0${attrs}`;
    this.jar.write(`${LEGACY_REFRESH_TOKEN_COOKIE_NAME}${del}`);
    if (tokens.refreshToken === null) {
      this.jar.write(`${refreshTokenCookieName(this.projectId)}${del}`);
    } else {
      this.jar.write(
        `${refreshTokenCookieName(this.projectId)}=${encodeURIComponent(tokens.refreshToken)}; max-age=${REFRESH_TOKEN_COOKIE_MAX_AGE_SECONDS}${attrs}`,
      );
    }
    if (tokens.accessToken === null) {
      this.jar.write(`${ACCESS_TOKEN_COOKIE_NAME}${del}`);
    } else {
      const pair = JSON.stringify([tokens.refreshToken, tokens.accessToken]);
      this.jar.write(`${ACCESS_TOKEN_COOKIE_NAME}=${encodeURIComponent(pair)}; max-age=${ACCESS_TOKEN_COOKIE_MAX_AGE_SECONDS}${attrs}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Requests (server rendering)

/** Anything with request headers: a fetch `Request`, a Node request adapted, a framework's request object. */
export interface RequestLike {
  readonly headers: { get(name: string): string | null };
}

export const AUTH_HEADER_NAME = "x-stack-auth";
export const INVALID_AUTH_HEADER_MESSAGE = "Invalid x-stack-auth header";

export function isRequestLike(value: unknown): value is RequestLike {
  return (
    typeof value === "object" &&
    value !== null &&
    "headers" in value &&
    typeof (value as { headers: { get?: unknown } }).headers?.get === "function"
  );
}

/** Tokens of an incoming request: the `x-stack-auth` header (`{accessToken, refreshToken}` JSON) wins over cookies. */
export function tokensFromRequest(request: RequestLike, projectId: string): TokenPair {
  const header = request.headers.get(AUTH_HEADER_NAME);
  if (header !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(header);
    } catch {
      throw new Error(INVALID_AUTH_HEADER_MESSAGE);
    }
    const p = parsed as { accessToken?: unknown; refreshToken?: unknown } | null;
    if (typeof p !== "object" || p === null) throw new Error(INVALID_AUTH_HEADER_MESSAGE);
    const accessToken = typeof p.accessToken === "string" ? p.accessToken : null;
    const refreshToken = typeof p.refreshToken === "string" ? p.refreshToken : null;
    return { accessToken, refreshToken };
  }
  return tokensFromCookies(parseCookies(request.headers.get("cookie")), projectId);
}

export class RequestTokenStore extends ObservableStore implements TokenStore {
  readonly kind = "request" as const;

  constructor(request: RequestLike, projectId: string) {
    super(tokensFromRequest(request, projectId));
  }

  set(tokens: TokenPair): void {
    this.update(tokens);
  }

  dispose(): void {}
}
