/**
 * @vestibule/js: the Vestibule SDK for JavaScript apps (browsers and Node). The three apps keep the published
 * `@stackframe/js` names and constructor options, so an app moves over by changing its import and keys; the same
 * classes are exported under Vestibule names.
 *
 *   import { StackClientApp } from "@vestibule/js";  // or VestibuleClientApp
 */
export { StackClientApp, vestibuleInternals } from "./client-app.ts";
export type { ResourceHandle, VestibuleInternals } from "./client-app.ts";
export {
  CALLBACK_URL_REQUIRED_MESSAGE,
  CLI_EXPIRED_MESSAGE,
  CLI_POLL_INTERVAL_MS,
  CLI_TIMEOUT_MESSAGE,
  CLI_USED_MESSAGE,
  GET_USER_THROW_MESSAGE,
  MFA_ATTEMPT_CODE_STORAGE_KEY,
  SCOPES_ON_NON_CURRENT_USER_MESSAGE,
  featureNotSupportedMessage,
} from "./client-app.ts";
export { StackServerApp, DATA_VAULT_UNEXPECTED_ERROR_MESSAGE } from "./server-app.ts";
export { StackAdminApp, TRANSFER_NEEDS_INTERNAL_USER_MESSAGE } from "./admin-app.ts";
export {
  AFTER_AUTH_RETURN_TO_PARAM,
  DEFAULT_HANDLER_PATH,
  HANDLER_PAGES,
  HANDLER_PATH_MESSAGE,
  REDIRECT_PAUSE_MS,
  UNTRUSTED_REDIRECT_MESSAGE,
  isTrustedRedirect,
  safeReturnTo,
  resolveHandlerUrls,
} from "./urls.ts";
export type { HandlerUrls } from "./urls.ts";
export {
  OAUTH_CALLBACK_ERROR_MESSAGE,
  OAUTH_INVALID_TOTP_MESSAGE,
  OAUTH_VERIFIER_COOKIE_MAX_AGE_SECONDS,
  PKCE_METHOD,
  codeChallengeS256,
  oauthVerifierCookieName,
} from "./oauth.ts";
export {
  PASSKEY_INITIATION_FAILED_MESSAGE,
  PASSKEY_REGISTRATION_UNKNOWN_MESSAGE,
  WEBAUTHN_UNSUPPORTED_MESSAGE,
} from "./passkeys.ts";
export type { WebAuthnCeremonyCode } from "./passkeys.ts";
export { duplicateAppMessage } from "./app-registry.ts";
export { CLIENT_VERSION, SDK_NAME, SDK_VERSION } from "./version.ts";
export { KnownError, KnownErrors, NetworkError, Result, StatusError } from "@vestibule/sdk-core";
/** The cookies of the browser token store (the dashboard's impersonation line writes the refresh one). */
export { ACCESS_TOKEN_COOKIE_NAME, refreshTokenCookieName } from "@vestibule/sdk-core";
export type { KnownErrorCode, TokenPair } from "@vestibule/sdk-core";
export type * from "./types.ts";

import { StackAdminApp } from "./admin-app.ts";
import { StackClientApp } from "./client-app.ts";
import { StackServerApp } from "./server-app.ts";
/** Vestibule names of the apps (the same classes). */
export const VestibuleClientApp = StackClientApp;
export type VestibuleClientApp = StackClientApp;
export const VestibuleServerApp = StackServerApp;
export type VestibuleServerApp = StackServerApp;
export const VestibuleAdminApp = StackAdminApp;
export type VestibuleAdminApp = StackAdminApp;
