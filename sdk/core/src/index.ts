/**
 * @vestibule/sdk-core: the transport under the Vestibule SDKs. A fetch client that speaks the `/api/v1` contract
 * (headers, known errors, retries, token refresh), sessions, token stores, the read cache and the data-vault crypto.
 * It runs in browsers, Node and workers (no Node-only imports).
 */
export {
  KNOWN_ERROR_DATA,
  KnownError,
  KnownErrors,
  STATUS_NAMES,
  StatusError,
  isKnownErrorCode,
  isKnownErrorOf,
  knownErrorClass,
} from "./errors/index.ts";
export type {
  AbstractKnownErrorCode,
  CodesUnder,
  ConcreteKnownErrorCode,
  KnownErrorClass,
  KnownErrorCode,
  KnownErrorDetails,
  KnownErrorJson,
  KnownErrorName,
  KnownErrorOf,
  KnownErrorsMap,
  NamedStatus,
} from "./errors/index.ts";
export {
  ApiClient,
  NETWORK_ATTEMPTS,
  NETWORK_ERROR_MESSAGE,
  NO_ACCESS_TOKEN_MESSAGE,
  PUBLIC_CLIENT_SECRET,
  NetworkError,
  OFFLINE_MESSAGE,
  RETRY_BASE_DELAY_MS,
  RETRY_JITTER_MAX,
  RETRY_JITTER_MIN,
  retryDelayMillis,
  validateTokenResponse,
} from "./http/api-client.ts";
export type { AccessType, ApiClientOptions, ApiResponse, FetchLike, QueryValue, RequestOptions } from "./http/api-client.ts";
export { AccessToken, InvalidAccessTokenError, MAX_DATE_MILLIS, decodeAccessToken } from "./tokens/access-token.ts";
export type { AccessTokenClaims } from "./tokens/access-token.ts";
export { ACCESS_TOKEN_FRESHNESS_MARGIN_MS, Session } from "./tokens/session.ts";
export type { AccessTokenRefresher, SessionTokens } from "./tokens/session.ts";
export {
  ACCESS_TOKEN_COOKIE_MAX_AGE_SECONDS,
  ACCESS_TOKEN_COOKIE_NAME,
  AUTH_HEADER_NAME,
  COOKIE_POLL_INTERVAL_MS,
  COOKIE_STORE_ON_SERVER_MESSAGE,
  CookieTokenStore,
  EMPTY_TOKENS,
  INVALID_AUTH_HEADER_MESSAGE,
  LEGACY_REFRESH_TOKEN_COOKIE_NAME,
  MemoryTokenStore,
  REFRESH_TOKEN_COOKIE_MAX_AGE_SECONDS,
  RequestTokenStore,
  browserCookieJar,
  isRequestLike,
  parseCookies,
  refreshTokenCookieName,
  sameTokens,
  tokensFromCookies,
  tokensFromRequest,
} from "./tokens/token-store.ts";
export type { CookieJar, CookieTokenStoreOptions, RequestLike, TokenPair, TokenStore } from "./tokens/token-store.ts";
export {
  AsyncCache,
  CACHE_FETCH_CONCURRENCY,
  CACHE_INVALIDATION_DELAY_MS,
  CACHE_THROTTLE_MS,
  ThrottledRunner,
} from "./cache/async-cache.ts";
export type { AsyncCacheOptions, CacheState } from "./cache/async-cache.ts";
export {
  DATA_VAULT_KEY_DERIVATION_ITERATIONS,
  base64ToBytes,
  bytesToBase64,
  decryptDataVaultValue,
  encryptDataVaultValue,
  hashDataVaultKey,
} from "./crypto/data-vault.ts";
export { Result } from "./result.ts";
export { MAX_WAIT_MILLIS, wait } from "./wait.ts";
export * from "./validation.ts";
