/**
 * The one HTTP client of the SDK: builds every request of the `/api/v1` contract with its headers
 * (contract/sdk-calls.md §2), reads known errors back into typed classes, keeps the session's access token fresh and
 * applies the retry rules of spec §8:
 *  - network failures: up to `NETWORK_ATTEMPTS` (5) tries for idempotent methods, waiting
 *    `RETRY_BASE_DELAY_MS · 2^attempt · jitter` with jitter uniform in [0.5, 1.5) between tries; non-idempotent
 *    methods fail at once. Then "offline" when the browser says so, else the generic connection message;
 *  - 429: waits `Retry-After` seconds (immediately when absent) and tries again; an app that would rather tell a
 *    person "try again in N s" sets `maxRateLimitWaitMillis`, and a longer wait throws the 429 `StatusError` at once
 *    with its `retryAfterSeconds`;
 *  - 508 INFINITE_LOOP_DETECTED: tries again;
 *  - an invalid-access-token error: marks the token expired, refreshes and tries again (same attempt budget).
 */
import { KnownError, isKnownErrorOf, type KnownErrorJson } from "../errors/known-errors.ts";
import { StatusError } from "../errors/status-error.ts";
import { AccessToken } from "../tokens/access-token.ts";
import { Session, ACCESS_TOKEN_FRESHNESS_MARGIN_MS, type SessionTokens } from "../tokens/session.ts";
import { MAX_WAIT_MILLIS, wait } from "../wait.ts";

export type AccessType = "client" | "server" | "admin";

/** Total tries of one request (spec §9 "Network retries 5"). */
export const NETWORK_ATTEMPTS = 5;
/** First retry delay; doubled per attempt. */
export const RETRY_BASE_DELAY_MS = 1_000;
/** Jitter factor range applied to each retry delay. */
export const RETRY_JITTER_MIN = 0.5;
export const RETRY_JITTER_MAX = 1.5;

export const OFFLINE_MESSAGE = "You are offline. Please check your internet connection and try again.";
export const NETWORK_ERROR_MESSAGE =
  "Vestibule is unable to connect to the server. Please check your internet connection and try again.\n\n" +
  "If the problem persists, please contact support and include the output of your browser console.";
export const NO_ACCESS_TOKEN_MESSAGE = "No access token available";
/**
 * The OAuth client secret of an app without a publishable key (refresh, code exchange, authorize URL), as the current
 * published SDK sends it (latest-sdk.md A2): accepted unless the project requires a publishable key.
 */
export const PUBLIC_CLIENT_SECRET = "__stack_public_client__";

/** Retry delay before attempt `attempt + 1` (0-based), for a random number in [0, 1). */
export function retryDelayMillis(attempt: number, random: number): number {
  const jitter = RETRY_JITTER_MIN + random * (RETRY_JITTER_MAX - RETRY_JITTER_MIN);
  return RETRY_BASE_DELAY_MS * 2 ** attempt * jitter;
}

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);

/** Raised when the server could not be reached. */
export class NetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NetworkError";
  }
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ApiClientOptions {
  /** API base URL without `/api/v1` (it is appended). */
  readonly baseUrl: string;
  readonly projectId: string;
  readonly publishableClientKey?: string;
  readonly secretServerKey?: string;
  readonly superSecretAdminKey?: string;
  /** Admin apps of the dashboard: the owner's session on the internal project (sent as x-stack-admin-access-token). */
  readonly projectOwnerSession?: Session;
  readonly extraRequestHeaders?: Readonly<Record<string, string>>;
  /** `x-stack-client-version`, e.g. `js @vestibule/js@0.1.0`. */
  readonly clientVersion: string;
  readonly fetch?: FetchLike;
  /** Random source for jitter and nonces (tests fix it). */
  readonly random?: () => number;
  /**
   * The longest `Retry-After` of a 429 that is waited out silently before trying again (default: every one, as the
   * published SDK does). Interactive pages set a small value and show a countdown instead of a silent spinner.
   */
  readonly maxRateLimitWaitMillis?: number;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  readonly method?: string;
  /** JSON body (serialised with content-type application/json). */
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly accessType?: AccessType;
  /** The user's session whose tokens go along; null or absent for none. */
  readonly session?: Session | null;
}

export interface ApiResponse {
  /** The real status (`x-stack-actual-status` when present). */
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = unknown>(): T;
}

function randomNonce(random: () => number): string {
  const bytes = new Uint8Array(16);
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c?.getRandomValues) c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function isOffline(): boolean {
  const nav = (globalThis as { navigator?: { onLine?: boolean } }).navigator;
  return nav?.onLine === false;
}

/** The 429's error, carrying the seconds `Retry-After` asked for (rounded up). */
function rateLimitError(res: Response, text: string): StatusError {
  const waitMillis = retryAfterMillis(res.headers.get("retry-after"));
  return new StatusError(429, text, { retryAfterSeconds: Math.ceil(waitMillis / 1000) });
}

function retryAfterMillis(header: string | null): number {
  if (!header) return 0;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms) || ms < 0) return 0;
  return Math.min(ms, MAX_WAIT_MILLIS);
}

export class ApiClient {
  readonly projectId: string;
  private readonly fetchImpl: FetchLike;
  private readonly random: () => number;

  constructor(readonly options: ApiClientOptions) {
    this.projectId = options.projectId;
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.random = options.random ?? Math.random;
  }

  /** `<baseUrl>/api/v1`. */
  get apiUrl(): string {
    return `${this.options.baseUrl.replace(/\/+$/, "")}/api/v1`;
  }

  url(path: string, query?: Readonly<Record<string, QueryValue>>): string {
    let url = this.apiUrl + path;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.append(k, String(v));
    const qs = params.toString();
    if (qs) url += `?${qs}`;
    return url.endsWith("/") ? url.slice(0, -1) : url;
  }

  /** A session on this project whose refreshes use this client. */
  createSession(tokens: { refreshToken: string | null; accessToken?: string | null }): Session {
    return new Session(tokens, (rt) => this.refreshAccessToken(rt));
  }

  /** JSON body of a successful request. */
  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.send(path, options)).json<T>();
  }

  /**
   * Sends one request, with the retries described above. Throws a `KnownError` for known-error answers, a
   * `StatusError` for other non-2xx answers and a `NetworkError` when the server cannot be reached.
   */
  async send(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const method = (options.method ?? "GET").toUpperCase();
    const accessType = options.accessType ?? "client";
    const session = options.session ?? null;
    let lastError: unknown;
    for (let attempt = 0; attempt < NETWORK_ATTEMPTS; attempt++) {
      const tokens = session ? await session.getOrFetchLikelyValidTokens(ACCESS_TOKEN_FRESHNESS_MARGIN_MS) : null;
      const ownerTokens = this.options.projectOwnerSession
        ? await this.options.projectOwnerSession.getOrFetchLikelyValidTokens(ACCESS_TOKEN_FRESHNESS_MARGIN_MS)
        : null;
      const init: RequestInit = {
        method,
        headers: this.headers(accessType, tokens, ownerTokens, options),
        credentials: "omit",
        cache: "no-store",
      };
      if (options.body !== undefined) init.body = JSON.stringify(options.body);
      let res: Response;
      try {
        res = await this.fetchImpl(this.url(path, options.query), init);
      } catch (err) {
        if (!(err instanceof TypeError) || !IDEMPOTENT_METHODS.has(method)) {
          if (err instanceof TypeError) throw this.networkError(err);
          throw err;
        }
        lastError = err;
        if (attempt < NETWORK_ATTEMPTS - 1) await wait(retryDelayMillis(attempt, this.random()));
        continue;
      }
      const response = await this.readResponse(res);
      const knownCode = res.headers.get("x-stack-known-error");
      if (knownCode !== null) {
        const error = this.knownErrorFrom(response, knownCode);
        if (tokens && session && isKnownErrorOf(error, "INVALID_ACCESS_TOKEN")) {
          session.markAccessTokenExpired(tokens.accessToken);
          lastError = error;
          continue;
        }
        if (
          ownerTokens &&
          (isKnownErrorOf(error, "INVALID_ADMIN_ACCESS_TOKEN") || isKnownErrorOf(error, "API_KEY_NOT_FOUND"))
        ) {
          this.options.projectOwnerSession!.markAccessTokenExpired(ownerTokens.accessToken);
          lastError = error;
          continue;
        }
        throw error;
      }
      if (response.status === 429) {
        lastError = this.rateLimited(res, response.text);
        if (attempt < NETWORK_ATTEMPTS - 1) await wait(retryAfterMillis(res.headers.get("retry-after")));
        continue;
      }
      if (response.status === 508 && response.text.includes("INFINITE_LOOP_DETECTED")) {
        lastError = new StatusError(508, response.text);
        if (attempt < NETWORK_ATTEMPTS - 1) await wait(retryDelayMillis(attempt, this.random()));
        continue;
      }
      if (response.status < 200 || response.status >= 300) throw new StatusError(response.status, response.text);
      return response;
    }
    if (lastError instanceof TypeError) throw this.networkError(lastError);
    throw lastError;
  }

  /**
   * POST /auth/oauth/token with the refresh-token grant (tokens.md §6). Resolves null when the refresh token is no
   * longer valid (any refresh-token error), throws for anything else.
   */
  async refreshAccessToken(refreshToken: string): Promise<AccessToken | null> {
    const body = new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: this.projectId,
      client_secret: this.options.publishableClientKey ?? PUBLIC_CLIENT_SECRET,
    });
    let lastError: unknown;
    for (let attempt = 0; attempt < NETWORK_ATTEMPTS; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(`${this.apiUrl}/auth/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8", accept: "application/json" },
          body: body.toString(),
          credentials: "omit",
          cache: "no-store",
        });
      } catch (err) {
        if (!(err instanceof TypeError)) throw err;
        // The refresh grant changes nothing on the server (no rotation), so it is safe to repeat.
        lastError = err;
        if (attempt < NETWORK_ATTEMPTS - 1) await wait(retryDelayMillis(attempt, this.random()));
        continue;
      }
      const response = await this.readResponse(res);
      const knownCode = res.headers.get("x-stack-known-error");
      if (knownCode !== null) {
        const error = this.knownErrorFrom(response, knownCode);
        if (isKnownErrorOf(error, "REFRESH_TOKEN_ERROR")) return null;
        throw error;
      }
      if (response.status === 429) {
        lastError = this.rateLimited(res, response.text);
        if (attempt < NETWORK_ATTEMPTS - 1) await wait(retryAfterMillis(res.headers.get("retry-after")));
        continue;
      }
      if (response.status < 200 || response.status >= 300) throw new StatusError(response.status, response.text);
      return new AccessToken(validateTokenResponse(response.json()));
    }
    if (lastError instanceof TypeError) throw this.networkError(lastError);
    throw lastError;
  }

  private headers(
    accessType: AccessType,
    tokens: SessionTokens | null,
    ownerTokens: SessionTokens | null,
    options: RequestOptions,
  ): Record<string, string> {
    const o = this.options;
    const h: Record<string, string> = {
      "x-stack-override-error-status": "true",
      "x-stack-project-id": o.projectId,
      "x-stack-access-type": accessType,
      "x-stack-client-version": o.clientVersion,
      "x-stack-allow-anonymous-user": "true",
      "x-stack-random-nonce": randomNonce(this.random),
      "ngrok-skip-browser-warning": "true",
    };
    if (tokens) {
      h["x-stack-access-token"] = tokens.accessToken.token;
      if (tokens.refreshToken !== null) h["x-stack-refresh-token"] = tokens.refreshToken;
    }
    if (o.publishableClientKey !== undefined) h["x-stack-publishable-client-key"] = o.publishableClientKey;
    if (ownerTokens) h["x-stack-admin-access-token"] = ownerTokens.accessToken.token;
    if (accessType === "server" || accessType === "admin") h["x-stack-secret-server-key"] = o.secretServerKey ?? "";
    if (accessType === "admin") h["x-stack-super-secret-admin-key"] = o.superSecretAdminKey ?? "";
    Object.assign(h, o.extraRequestHeaders ?? {});
    if (options.body !== undefined) h["content-type"] = "application/json";
    Object.assign(h, options.headers ?? {});
    return h;
  }

  private async readResponse(res: Response): Promise<ApiResponse> {
    const text = await res.text();
    const actual = res.headers.get("x-stack-actual-status");
    const status = actual !== null && /^\d{3}$/.test(actual) ? Number(actual) : res.status;
    let parsed: { done: false } | { done: true; value: unknown } = { done: false };
    return {
      status,
      headers: res.headers,
      text,
      json<T>(): T {
        if (!parsed.done) parsed = { done: true, value: text === "" ? undefined : JSON.parse(text) };
        return parsed.value as T;
      },
    };
  }

  /**
   * The 429 to remember as the last error, or to throw at once when its `Retry-After` is longer than the app waits
   * out silently (`maxRateLimitWaitMillis`).
   */
  private rateLimited(res: Response, text: string): StatusError {
    const error = rateLimitError(res, text);
    const limit = this.options.maxRateLimitWaitMillis;
    if (limit !== undefined && retryAfterMillis(res.headers.get("retry-after")) > limit) throw error;
    return error;
  }

  private knownErrorFrom(response: ApiResponse, headerCode: string): KnownError {
    let body: KnownErrorJson;
    try {
      body = response.json<KnownErrorJson>();
    } catch {
      throw new StatusError(response.status, `Invalid server response: known error ${headerCode} without a JSON body`);
    }
    if (body?.code !== headerCode) {
      throw new StatusError(response.status, `Invalid server response: x-stack-known-error is ${headerCode} but the body's code is ${body?.code}`);
    }
    return KnownError.fromJson(body);
  }

  private networkError(cause: unknown): NetworkError {
    return new NetworkError(isOffline() ? OFFLINE_MESSAGE : NETWORK_ERROR_MESSAGE, { cause });
  }
}

/** Checks a token endpoint answer as the published SDK's OAuth library does (spec §5) and returns the access token. */
export function validateTokenResponse(json: unknown): string {
  const r = json as { access_token?: unknown; token_type?: unknown; expires_in?: unknown; scope?: unknown } | null;
  if (typeof r !== "object" || r === null) throw new Error("Invalid token response: not a JSON object");
  if (typeof r.access_token !== "string" || r.access_token === "") throw new Error("Invalid token response: access_token must be a non-empty string");
  if (typeof r.token_type !== "string" || !["bearer", "dpop"].includes(r.token_type.toLowerCase())) {
    throw new Error("Invalid token response: token_type must be bearer or dpop");
  }
  if (r.expires_in !== undefined && (typeof r.expires_in !== "number" || !(r.expires_in > 0))) {
    throw new Error("Invalid token response: expires_in must be a positive number");
  }
  if (r.scope !== undefined && typeof r.scope !== "string") throw new Error("Invalid token response: scope must be a string");
  return r.access_token;
}
