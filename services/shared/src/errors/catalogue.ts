/**
 * The known-error catalogue of the public `/api/v1` contract (contract/errors.md): every error code the Stack Auth
 * SDK understands, with its HTTP status, Connect code, wire detail keys, message template, abstract parent chain
 * and a one-line meaning. This file is the only place where codes, statuses and messages are defined.
 *
 * Messages are the exact strings of Stack Auth's `packages/stack-shared/src/known-errors.tsx` (the contract pins
 * stack-auth/stack-auth @ 0abaeeae13a5, SDK 2.8.41): Stack's e2e snapshots compare them character by character, so
 * they are reproduced verbatim (including Stack's own wording quirks). Only the texts are taken over, no code.
 *
 * Inputs of a code come in two kinds:
 *  - `details`: sent on the wire as `details` (key names exactly as the SDK reads them, in Stack's key order);
 *  - `params`:  used only to render the message and never sent (e.g. INVALID_ACCESS_TYPE echoes the header value
 *    in its message but has no details). Both are passed together as the one input object of `knownError()`.
 */
import type { Code } from "@connectrpc/connect";
import {
  CONNECT_CODE_FOR_KNOWN_ERROR_STATUS,
  leaf,
  optional,
  required,
  type AccessType,
  type CustomerType,
  type FieldMap,
  type InputFrom,
  type JsonValue,
  type KnownErrorHttpStatus,
  type LeafSpec,
  type PermissionScope,
  type Resolve,
} from "./catalogue-kit.ts";
import { ABSTRACT_DEFINITIONS, type AbstractKnownErrorCode } from "./catalogue-abstract.ts";
import { CURRENT_SDK_LEAF_DEFINITIONS, SEED_SDK_ONLY_CODES } from "./catalogue-current-sdk.ts";

export { CONNECT_CODE_FOR_KNOWN_ERROR_STATUS } from "./catalogue-kit.ts";
export type { AbstractKnownErrorCode } from "./catalogue-abstract.ts";
export type { AccessType, CustomerType, JsonValue, KnownErrorHttpStatus, PermissionScope } from "./catalogue-kit.ts";

const STACK_REST_AUTH_DOCS = "For more information, see the docs on REST API authentication: https://docs.stack-auth.com/rest-api/overview#authentication";
const VERIFY_EMAIL_FIRST =
  " but the email is not verified. Please login to your existing account with the method you used to sign up, and then verify your email to sign in with this login method.";

function expiredAtSuffix(expiredAtMillis: number | null): string {
  return expiredAtMillis === null ? "" : ` (The access token expired at ${new Date(expiredAtMillis).toISOString()}.)`;
}

/** Stack renders each overload's JSON under the first line, indented by two spaces (its `deindent` rules). */
function overloadsMessage(overloadErrors: readonly JsonValue[]): string {
  const listed = overloadErrors.map((e, i) => `Overload ${i + 1}: ${JSON.stringify(e, undefined, 2)}`).join("\n\n");
  return `This endpoint has multiple overloads, but they all failed to process the request.\n\n  ${listed.replaceAll("\n", "\n  ")}`;
}

function customerTypeMismatch(
  what: "item" | "offer",
  target: string,
  customerId: string,
  configuredType: CustomerType | null,
  actualType: CustomerType,
): string {
  const reason = configuredType
    ? `The ${what} is configured to only be available for ${configuredType} customers, but the customer is a ${actualType}.`
    : `The ${what} is missing a customer type field. Please make sure it is set up correctly in your project configuration.`;
  return `The ${actualType} with ID ${JSON.stringify(customerId)} is not a valid customer for ${target}. ${reason}`;
}

const LEAF_DEFINITIONS = {
  // ---- Request / project authentication -------------------------------------------------------------------
  BODY_PARSING_ERROR: leaf({
    httpStatus: 400,
    params: { message: required<string>() },
    message: ({ message }) => message,
    doc: "The request body could not be parsed; the message is the reason (e.g. \"Invalid JSON in request body\").",
  }),
  SCHEMA_ERROR: leaf({
    httpStatus: 400,
    details: { message: required<string>() },
    message: ({ message }) => message,
    doc: "Request validation failed; error == details.message (\"Request validation failed on ...\" or a custom text).",
  }),
  ALL_OVERLOADS_FAILED: leaf({
    httpStatus: 400,
    details: { overload_errors: required<readonly JsonValue[]>() },
    message: ({ overload_errors }) => overloadsMessage(overload_errors),
    doc: "Every variant (overload) of the endpoint rejected the request; lists each variant's error JSON.",
  }),
  UNSUPPORTED_ERROR: leaf({
    httpStatus: 500,
    details: { originalErrorCode: required<string>() },
    message: ({ originalErrorCode }) =>
      `An error occurred that is not currently supported (possibly because it was added in a version of Stack that is newer than this client). The original unsupported error code was: ${originalErrorCode}`,
    doc: "Client-side wrapper for an error code the client does not know (never sent by the server).",
  }),
  PROJECT_KEY_WITHOUT_ACCESS_TYPE: leaf({
    httpStatus: 400,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    message: () =>
      "Either an API key or an admin access token was provided, but the x-stack-access-type header is missing. Set it to 'client', 'server', or 'admin' as appropriate.",
    doc: "A project key or admin access token was sent without the x-stack-access-type header.",
  }),
  INVALID_ACCESS_TYPE: leaf({
    httpStatus: 400,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    params: { accessType: required<string>() },
    message: ({ accessType }) => `The x-stack-access-type header must be 'client', 'server', or 'admin', but was '${accessType}'.`,
    doc: "The x-stack-access-type header is not client, server or admin (the message echoes the value).",
  }),
  ACCESS_TYPE_WITHOUT_PROJECT_ID: leaf({
    httpStatus: 400,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    details: { request_type: required<AccessType>() },
    message: ({ request_type }) =>
      `The x-stack-access-type header was '${request_type}', but the x-stack-project-id header was not provided.\n\n${STACK_REST_AUTH_DOCS}`,
    doc: "An access type was given but no x-stack-project-id header.",
  }),
  ACCESS_TYPE_REQUIRED: leaf({
    httpStatus: 400,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    message: () =>
      `You must specify an access level for this Stack project. Make sure project API keys are provided (eg. x-stack-publishable-client-key) and you set the x-stack-access-type header to 'client', 'server', or 'admin'.\n\n${STACK_REST_AUTH_DOCS}`,
    doc: "The endpoint needs an access type and project keys, but the request has none.",
  }),
  INSUFFICIENT_ACCESS_TYPE: leaf({
    httpStatus: 401,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    details: { actual_access_type: required<AccessType>(), allowed_access_types: required<readonly AccessType[]>() },
    message: ({ actual_access_type, allowed_access_types }) =>
      `The x-stack-access-type header must be ${allowed_access_types.map((t) => `'${t}'`).join(" or ")}, but was '${actual_access_type}'.`,
    doc: "The endpoint does not allow the request's access type.",
  }),
  INVALID_PUBLISHABLE_CLIENT_KEY: leaf({
    httpStatus: 401,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    details: { project_id: required<string>() },
    message: ({ project_id }) =>
      `The publishable key is not valid for the project ${JSON.stringify(project_id)}. Does the project and/or the key exist?`,
    doc: "The publishable client key is wrong, expired or revoked for this project.",
  }),
  INVALID_SECRET_SERVER_KEY: leaf({
    httpStatus: 401,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    details: { project_id: required<string>() },
    message: ({ project_id }) =>
      `The secret server key is not valid for the project ${JSON.stringify(project_id)}. Does the project and/or the key exist?`,
    doc: "The secret server key is wrong, expired or revoked for this project.",
  }),
  INVALID_SUPER_SECRET_ADMIN_KEY: leaf({
    httpStatus: 401,
    parent: "INVALID_PROJECT_AUTHENTICATION",
    details: { project_id: required<string>() },
    message: ({ project_id }) =>
      `The super secret admin key is not valid for the project ${JSON.stringify(project_id)}. Does the project and/or the key exist?`,
    doc: "The super secret admin key is wrong, expired or revoked for this project.",
  }),
  UNPARSABLE_ADMIN_ACCESS_TOKEN: leaf({
    httpStatus: 401,
    parent: "INVALID_ADMIN_ACCESS_TOKEN",
    message: () => "Admin access token is not parsable.",
    doc: "The admin access token is not a valid token.",
  }),
  ADMIN_ACCESS_TOKEN_EXPIRED: leaf({
    httpStatus: 401,
    parent: "INVALID_ADMIN_ACCESS_TOKEN",
    details: { expired_at_millis: required<number | null>() },
    message: ({ expired_at_millis }) =>
      `Admin access token has expired. Please refresh it and try again.${expiredAtSuffix(expired_at_millis)}`,
    doc: "The admin access token has expired (with the expiry time when known).",
  }),
  INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN: leaf({
    httpStatus: 401,
    parent: "INVALID_ADMIN_ACCESS_TOKEN",
    message: () => "Admin access tokens must be created on the internal project.",
    doc: "The admin access token was not issued by the internal project (defined, unused in the reference).",
  }),
  ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN: leaf({
    httpStatus: 401,
    parent: "INVALID_ADMIN_ACCESS_TOKEN",
    message: () => "Admin access token does not have the required permissions to access this project.",
    doc: "The admin access token's user does not own/manage the target project.",
  }),
  CLIENT_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_REQUIRED",
    message: () => "The publishable client key must be provided.",
    doc: "Access type client without x-stack-publishable-client-key.",
  }),
  SERVER_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_REQUIRED",
    message: () => "The secret server key must be provided.",
    doc: "Access type server without x-stack-secret-server-key.",
  }),
  ADMIN_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_REQUIRED",
    message: () => "The super secret admin key must be provided.",
    doc: "Access type admin without x-stack-super-secret-admin-key or admin access token.",
  }),
  CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_REQUIRED",
    message: () => "Either the publishable client key or the secret server key must be provided.",
    doc: "Deprecated: a client or server key is required.",
  }),
  CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_REQUIRED",
    message: () => "Either the publishable client key or the super secret admin key must be provided.",
    doc: "Deprecated: a client or admin key is required.",
  }),
  CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_REQUIRED",
    message: () =>
      "Either the publishable client key, the secret server key, or the super secret admin key must be provided.",
    doc: "Deprecated: any project key is required.",
  }),
  EXPECTED_INTERNAL_PROJECT: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_ERROR",
    message: () => "The project ID is expected to be internal.",
    doc: "The endpoint only works on the `internal` project.",
  }),
  CURRENT_PROJECT_NOT_FOUND: leaf({
    httpStatus: 400,
    details: { project_id: required<string>() },
    message: ({ project_id }) =>
      `The current project with ID ${project_id} was not found. Please check the value of the x-stack-project-id header.`,
    doc: "The project named by x-stack-project-id does not exist.",
  }),
  BRANCH_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    details: { branch_id: required<string>() },
    message: ({ branch_id }) => `The branch with ID ${branch_id} does not exist.`,
    doc: "The branch named by x-stack-branch-id does not exist (only `main` does).",
  }),
  PROJECT_NOT_FOUND: leaf({
    httpStatus: 404,
    details: { project_id: required<string>() },
    message: ({ project_id }) => `Project ${project_id} not found or is not accessible with the current user.`,
    doc: "The project does not exist or is not accessible to the current user.",
  }),
  // Stack's known-errors.tsx of the pinned (2.8.41, "offers") era; text read from a fork of that era because the
  // upstream revisions available here predate or postdate it. Neither message names the product.
  WORKFLOW_TOKEN_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    message: () =>
      "The workflow token you specified does not exist. Make sure the value in x-stack-workflow-token is correct.",
    doc: "The x-stack-workflow-token is unknown.",
  }),
  WORKFLOW_TOKEN_EXPIRED: leaf({
    httpStatus: 400,
    message: () =>
      "The workflow token you specified has expired. Make sure the value in x-stack-workflow-token is correct.",
    doc: "The x-stack-workflow-token has expired.",
  }),

  // ---- Sessions and tokens ----------------------------------------------------------------------------------
  UNPARSABLE_ACCESS_TOKEN: leaf({
    httpStatus: 401,
    parent: "INVALID_ACCESS_TOKEN",
    message: () => "Access token is not parsable.",
    doc: "The access token is garbage or its signature/issuer is wrong.",
  }),
  ACCESS_TOKEN_EXPIRED: leaf({
    httpStatus: 401,
    parent: "INVALID_ACCESS_TOKEN",
    details: { expired_at_millis: required<number | null>() },
    message: ({ expired_at_millis }) =>
      `Access token has expired. Please refresh it and try again.${expiredAtSuffix(expired_at_millis)}`,
    doc: "The access token has expired; refresh and retry.",
  }),
  INVALID_PROJECT_FOR_ACCESS_TOKEN: leaf({
    httpStatus: 401,
    parent: "INVALID_ACCESS_TOKEN",
    details: { expected_project_id: required<string>(), actual_project_id: required<string>() },
    message: ({ expected_project_id, actual_project_id }) =>
      `Access token not valid for this project. Expected project ID ${JSON.stringify(expected_project_id)}, but the token is for project ID ${JSON.stringify(actual_project_id)}.`,
    doc: "The access token was issued for another project.",
  }),
  ANONYMOUS_AUTHENTICATION_NOT_ALLOWED: leaf({
    httpStatus: 401,
    message: () =>
      "X-Stack-Access-Token is for an anonymous user, but anonymous users are not enabled. Set the X-Stack-Allow-Anonymous-User header of this request to 'true' to allow anonymous users.",
    doc: "The access token is anonymous but x-stack-allow-anonymous-user is not 'true'.",
  }),
  REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED: leaf({
    httpStatus: 401,
    parent: "REFRESH_TOKEN_ERROR",
    message: () => "Refresh token not found for this project, or the session has expired/been revoked.",
    doc: "The refresh token is unknown, or its session expired or was revoked.",
  }),
  PROVIDER_REJECTED: leaf({
    httpStatus: 401,
    parent: "REFRESH_TOKEN_ERROR",
    message: () =>
      "The provider refused to refresh their token. This usually means that the provider used to authenticate the user no longer regards this session as valid, and the user must re-authenticate.",
    doc: "The OAuth provider refused to refresh its token; the user must sign in again.",
  }),
  CANNOT_DELETE_CURRENT_SESSION: leaf({
    httpStatus: 400,
    parent: "REFRESH_TOKEN_ERROR",
    message: () => "Cannot delete the current session.",
    doc: "A session cannot revoke itself through the sessions endpoint.",
  }),
  CANNOT_GET_OWN_USER_WITHOUT_USER: leaf({
    httpStatus: 400,
    message: () => "You have specified 'me' as a userId, but did not provide authentication for a user.",
    doc: "`me` was used as a user id without a signed-in user.",
  }),
  USER_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 401,
    message: () => "User authentication required for this endpoint.",
    doc: "The endpoint needs a signed-in user.",
  }),

  // ---- Users, sign-up, sign-in ------------------------------------------------------------------------------
  USER_EMAIL_ALREADY_EXISTS: leaf({
    httpStatus: 409,
    details: { email: required<string>(), would_work_if_email_was_verified: required<boolean>() },
    message: ({ email, would_work_if_email_was_verified }) =>
      `A user with email ${JSON.stringify(email)} already exists${would_work_if_email_was_verified ? VERIFY_EMAIL_FIRST : "."}`,
    doc: "A user with that e-mail exists (longer text when the existing e-mail is unverified).",
  }),
  EMAIL_NOT_VERIFIED: leaf({
    httpStatus: 400,
    message: () => "The email is not verified.",
    doc: "The e-mail must be verified for this action.",
  }),
  USER_ID_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    details: { user_id: required<string>() },
    message: ({ user_id }) => `The given user with the ID ${user_id} does not exist.`,
    doc: "A user id given in a request body does not exist.",
  }),
  USER_NOT_FOUND: leaf({
    httpStatus: 404,
    message: () => "User not found.",
    doc: "A user id given in the path does not exist.",
  }),
  SIGN_UP_NOT_ENABLED: leaf({
    httpStatus: 400,
    message: () => "Creation of new accounts is not enabled for this project. Please ask the project owner to enable it.",
    doc: "Sign-ups are disabled for the project.",
  }),
  PASSWORD_AUTHENTICATION_NOT_ENABLED: leaf({
    httpStatus: 400,
    message: () => "Password authentication is not enabled for this project.",
    doc: "Password authentication is disabled for the project.",
  }),
  PASSKEY_AUTHENTICATION_NOT_ENABLED: leaf({
    httpStatus: 400,
    message: () => "Passkey authentication is not enabled for this project.",
    doc: "Passkey authentication is disabled for the project.",
  }),
  ANONYMOUS_ACCOUNTS_NOT_ENABLED: leaf({
    httpStatus: 400,
    message: () => "Anonymous accounts are not enabled for this project.",
    doc: "Anonymous accounts are disabled for the project.",
  }),
  EMAIL_PASSWORD_MISMATCH: leaf({
    httpStatus: 400,
    message: () => "Wrong e-mail or password.",
    doc: "Password sign-in failed.",
  }),
  REDIRECT_URL_NOT_WHITELISTED: leaf({
    httpStatus: 400,
    message: () =>
      "Redirect URL not whitelisted. Did you forget to add this domain to the trusted domains list on the Stack Auth dashboard?",
    doc: "A callback/redirect URL is not among the project's trusted domains.",
  }),
  PASSWORD_TOO_SHORT: leaf({
    httpStatus: 400,
    parent: "PASSWORD_REQUIREMENTS_NOT_MET",
    details: { min_length: required<number>() },
    message: ({ min_length }) => `Password too short. Minimum length is ${min_length}.`,
    doc: "The password is shorter than the minimum length.",
  }),
  PASSWORD_TOO_LONG: leaf({
    httpStatus: 400,
    parent: "PASSWORD_REQUIREMENTS_NOT_MET",
    details: { maxLength: required<number>() },
    message: ({ maxLength }) => `Password too long. Maximum length is ${maxLength}.`,
    doc: "The password is longer than the maximum length (note the camelCase detail key).",
  }),
  USER_DOES_NOT_HAVE_PASSWORD: leaf({
    httpStatus: 400,
    message: () => "This user does not have password authentication enabled.",
    doc: "The user has no password auth method.",
  }),
  PASSWORD_CONFIRMATION_MISMATCH: leaf({
    httpStatus: 400,
    message: () => "Passwords do not match.",
    doc: "The old password given on password update is wrong.",
  }),
  MULTI_FACTOR_AUTHENTICATION_REQUIRED: leaf({
    httpStatus: 400,
    details: { attempt_code: required<string>() },
    message: () => "Multi-factor authentication is required for this user.",
    doc: "MFA is needed; the attempt code goes to /auth/mfa/sign-in.",
  }),
  INVALID_TOTP_CODE: leaf({
    httpStatus: 400,
    message: () => "The TOTP code is invalid. Please try again.",
    doc: "The TOTP code is wrong.",
  }),

  // ---- Verification codes, e-mail, contact channels ---------------------------------------------------------
  VERIFICATION_CODE_NOT_FOUND: leaf({
    httpStatus: 404,
    parent: "VERIFICATION_ERROR",
    message: () => "The verification code does not exist for this project.",
    doc: "The verification code does not exist for this project.",
  }),
  VERIFICATION_CODE_EXPIRED: leaf({
    httpStatus: 400,
    parent: "VERIFICATION_ERROR",
    message: () => "The verification code has expired.",
    doc: "The verification code has expired.",
  }),
  VERIFICATION_CODE_ALREADY_USED: leaf({
    httpStatus: 409,
    parent: "VERIFICATION_ERROR",
    message: () => "The verification link has already been used.",
    doc: "The verification code/link was already used.",
  }),
  VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: leaf({
    httpStatus: 400,
    parent: "VERIFICATION_ERROR",
    message: () =>
      "The verification code nonce has reached the maximum number of attempts. This code is not valid anymore.",
    doc: "Too many attempts were made on this verification code.",
  }),
  EMAIL_ALREADY_VERIFIED: leaf({
    httpStatus: 409,
    message: () => "The e-mail is already verified.",
    doc: "The e-mail is already verified.",
  }),
  EMAIL_NOT_ASSOCIATED_WITH_USER: leaf({
    httpStatus: 400,
    message: () => "The e-mail is not associated with a user that could log in with that e-mail.",
    doc: "The e-mail does not belong to a user who can sign in with it.",
  }),
  EMAIL_IS_NOT_PRIMARY_EMAIL: leaf({
    httpStatus: 400,
    details: { email: required<string>(), primary_email: required<string | null>() },
    message: ({ email, primary_email }) =>
      `The given e-mail (${email}) must equal the user's primary e-mail (${primary_email}).`,
    doc: "The given e-mail must equal the user's primary e-mail.",
  }),
  CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE: leaf({
    httpStatus: 409,
    details: {
      type: required<"email">(),
      contact_channel_value: required<string | null>(),
      would_work_if_email_was_verified: required<boolean>(),
    },
    message: ({ type, contact_channel_value, would_work_if_email_was_verified }) =>
      `This ${type} ${contact_channel_value ? `"(${contact_channel_value})"` : ""} is already used for authentication by another account${would_work_if_email_was_verified ? VERIFY_EMAIL_FIRST : "."}`,
    doc: "The contact channel is already used for authentication by another account.",
  }),
  EMAIL_TEMPLATE_ALREADY_EXISTS: leaf({
    httpStatus: 409,
    message: () => "Email template already exists.",
    doc: "The e-mail template already exists.",
  }),
  EMAIL_RENDERING_ERROR: leaf({
    httpStatus: 400,
    details: { error: required<string>() },
    message: ({ error }) => `Failed to render email with theme: ${error}`,
    doc: "Rendering an e-mail failed (with the reason).",
  }),
  REQUIRES_CUSTOM_EMAIL_SERVER: leaf({
    httpStatus: 400,
    message: () =>
      "This action requires a custom SMTP server. Please edit your email server configuration and try again.",
    doc: "The action needs a custom SMTP server configured.",
  }),

  // ---- Passkeys, OAuth, MFA, CLI ----------------------------------------------------------------------------
  PASSKEY_REGISTRATION_FAILED: leaf({
    httpStatus: 400,
    params: { message: required<string>() },
    message: ({ message }) => message,
    doc: "Passkey registration failed; the message is the reason.",
  }),
  PASSKEY_WEBAUTHN_ERROR: leaf({
    httpStatus: 400,
    details: { message: required<string>(), code: required<string>() },
    message: ({ message }) => message,
    doc: "A WebAuthn ceremony error (client side); carries the message and the ceremony error code.",
  }),
  PASSKEY_AUTHENTICATION_FAILED: leaf({
    httpStatus: 400,
    params: { message: required<string>() },
    message: ({ message }) => message,
    doc: "Passkey authentication failed; the message is the reason.",
  }),
  OAUTH_CONNECTION_NOT_CONNECTED_TO_USER: leaf({
    httpStatus: 400,
    message: () => "The OAuth connection is not connected to any user.",
    doc: "The OAuth connection is not linked to any user.",
  }),
  OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER: leaf({
    httpStatus: 409,
    message: () => "The OAuth connection is already connected to another user.",
    doc: "The OAuth connection is linked to another user.",
  }),
  OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE: leaf({
    httpStatus: 400,
    message: () => "The OAuth connection does not have the required scope.",
    doc: "The OAuth connection lacks a required scope (SDK: access token null).",
  }),
  OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: leaf({
    httpStatus: 400,
    message: () =>
      "Extra scopes are not available with shared OAuth keys. Please add your own OAuth keys on the Stack dashboard to use extra scopes.",
    doc: "Extra OAuth scopes need the project's own OAuth keys.",
  }),
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS: leaf({
    httpStatus: 400,
    message: () =>
      "Access tokens are not available with shared OAuth keys. Please add your own OAuth keys on the Stack dashboard to use access tokens.",
    doc: "Provider access tokens need the project's own OAuth keys.",
  }),
  INVALID_OAUTH_CLIENT_ID_OR_SECRET: leaf({
    httpStatus: 400,
    details: { client_id: required<string | null>() },
    message: () =>
      "The OAuth client ID or secret is invalid. The client ID must be equal to the project ID (potentially with a hash and a branch ID), and the client secret must be a publishable client key.",
    doc: "OAuth client id must be the project id (optionally #branch) and the secret a publishable key.",
  }),
  INVALID_SCOPE: leaf({
    httpStatus: 400,
    params: { scope: required<string>() },
    message: ({ scope }) => `The scope "${scope}" is not a valid OAuth scope for Stack.`,
    doc: "The requested OAuth scope is not valid (only `legacy` exists).",
  }),
  USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION: leaf({
    httpStatus: 409,
    message: () =>
      "The user is already connected to another OAuth account. Did you maybe selected the wrong account?",
    doc: "The user is already linked to another account of that provider.",
  }),
  OUTER_OAUTH_TIMEOUT: leaf({
    httpStatus: 408,
    message: () => "The OAuth flow has timed out. Please sign in again.",
    doc: "The OAuth flow timed out; sign in again.",
  }),
  OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED: leaf({
    httpStatus: 400,
    message: () => "The OAuth provider is not found or not enabled.",
    doc: "The OAuth provider is unknown or disabled.",
  }),
  OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN: leaf({
    httpStatus: 400,
    message: () => "A provider with the same account ID is already used for signing in.",
    doc: "The same provider account is already used for sign-in.",
  }),
  OAUTH_PROVIDER_ACCESS_DENIED: leaf({
    httpStatus: 400,
    message: () => "The OAuth provider denied access to the user.",
    doc: "The OAuth provider denied access.",
  }),
  INVALID_SHARED_OAUTH_PROVIDER_ID: leaf({
    httpStatus: 400,
    details: { provider_id: required<string>() },
    message: ({ provider_id }) => `The shared OAuth provider with ID ${provider_id} is not valid.`,
    doc: "The shared OAuth provider id is not valid.",
  }),
  INVALID_STANDARD_OAUTH_PROVIDER_ID: leaf({
    httpStatus: 400,
    details: { provider_id: required<string>() },
    message: ({ provider_id }) => `The standard OAuth provider with ID ${provider_id} is not valid.`,
    doc: "The standard OAuth provider id is not valid.",
  }),
  INVALID_AUTHORIZATION_CODE: leaf({
    httpStatus: 400,
    message: () => "The given authorization code is invalid.",
    doc: "The OAuth authorization code is invalid (token endpoint).",
  }),
  INVALID_POLLING_CODE: leaf({
    httpStatus: 400,
    message: () => "The polling code is invalid or does not exist.",
    doc: "The CLI polling code is unknown.",
  }),
  CLI_AUTH_ERROR: leaf({
    httpStatus: 400,
    params: { message: required<string>() },
    message: ({ message }) => message,
    doc: "Client-side CLI login error; the message is the reason.",
  }),
  CLI_AUTH_EXPIRED_ERROR: leaf({
    httpStatus: 400,
    params: { message: optional<string>() },
    message: (input) => input?.message ?? "CLI authentication request expired. Please try again.",
    doc: "Client-side: the CLI login request expired.",
  }),
  CLI_AUTH_USED_ERROR: leaf({
    httpStatus: 400,
    params: { message: optional<string>() },
    message: (input) => input?.message ?? "This authentication token has already been used.",
    doc: "Client-side: the CLI login token was already used.",
  }),

  // ---- Teams, permissions -----------------------------------------------------------------------------------
  TEAM_NOT_FOUND: leaf({
    httpStatus: 404,
    details: { team_id: required<string>() },
    message: ({ team_id }) => `Team ${team_id} not found.`,
    doc: "The team does not exist.",
  }),
  TEAM_MEMBERSHIP_NOT_FOUND: leaf({
    httpStatus: 404,
    details: { team_id: required<string>(), user_id: required<string>() },
    message: ({ team_id, user_id }) => `User ${user_id} is not found in team ${team_id}.`,
    doc: "The user is not a member of the team.",
  }),
  TEAM_MEMBERSHIP_ALREADY_EXISTS: leaf({
    httpStatus: 409,
    message: () => "Team membership already exists.",
    doc: "The user is already a member of the team.",
  }),
  TEAM_ALREADY_EXISTS: leaf({
    httpStatus: 409,
    details: { team_id: required<string>() },
    message: ({ team_id }) => `Team ${team_id} already exists.`,
    doc: "A team with that id already exists.",
  }),
  TEAM_PERMISSION_REQUIRED: leaf({
    httpStatus: 401,
    details: { team_id: required<string>(), user_id: required<string>(), permission_id: required<string>() },
    message: ({ team_id, user_id, permission_id }) =>
      `User ${user_id} does not have permission ${permission_id} in team ${team_id}.`,
    doc: "The user lacks the permission in the team.",
  }),
  TEAM_PERMISSION_NOT_FOUND: leaf({
    httpStatus: 401,
    details: { team_id: required<string>(), user_id: required<string>(), permission_id: required<string>() },
    message: ({ team_id, user_id, permission_id }) =>
      `User ${user_id} does not have permission ${permission_id} in team ${team_id}.`,
    doc: "Revoking a team permission the user does not directly have.",
  }),
  PROJECT_PERMISSION_REQUIRED: leaf({
    httpStatus: 401,
    details: { user_id: required<string>(), permission_id: required<string>() },
    message: ({ user_id, permission_id }) => `User ${user_id} does not have permission ${permission_id}.`,
    doc: "The user lacks the project permission.",
  }),
  PERMISSION_NOT_FOUND: leaf({
    httpStatus: 404,
    details: { permission_id: required<string>() },
    message: ({ permission_id }) => `Permission "${permission_id}" not found. Make sure you created it on the dashboard.`,
    doc: "The permission definition does not exist.",
  }),
  WRONG_PERMISSION_SCOPE: leaf({
    httpStatus: 404,
    details: {
      permission_id: required<string>(),
      expected_scope: required<PermissionScope>(),
      actual_scope: required<PermissionScope | null>(),
    },
    message: ({ permission_id, expected_scope, actual_scope }) =>
      `Permission ${JSON.stringify(permission_id)} not found. (It was found for a different scope ${JSON.stringify(actual_scope)}, but scope ${JSON.stringify(expected_scope)} was expected.)`,
    doc: "The permission exists, but in the other scope (team vs project).",
  }),
  CONTAINED_PERMISSION_NOT_FOUND: leaf({
    httpStatus: 400,
    details: { permission_id: required<string>() },
    message: ({ permission_id }) =>
      `Contained permission with ID "${permission_id}" not found. Make sure you created it on the dashboard.`,
    doc: "A contained permission of a permission definition does not exist.",
  }),
  PERMISSION_ID_ALREADY_EXISTS: leaf({
    httpStatus: 400,
    details: { permission_id: required<string>() },
    message: ({ permission_id }) => `Permission with ID "${permission_id}" already exists. Choose a different ID.`,
    doc: "The permission id is already taken.",
  }),

  // ---- API keys ---------------------------------------------------------------------------------------------
  API_KEY_NOT_FOUND: leaf({
    httpStatus: 404,
    parent: "API_KEY_NOT_VALID",
    message: () => "API key not found.",
    doc: "The API key does not exist (also used to hide team keys the caller may not see).",
  }),
  API_KEY_EXPIRED: leaf({
    httpStatus: 401,
    parent: "API_KEY_NOT_VALID",
    message: () => "API key has expired.",
    doc: "The API key has expired.",
  }),
  API_KEY_REVOKED: leaf({
    httpStatus: 401,
    parent: "API_KEY_NOT_VALID",
    message: () => "API key has been revoked.",
    doc: "The API key has been revoked.",
  }),
  WRONG_API_KEY_TYPE: leaf({
    httpStatus: 400,
    parent: "API_KEY_NOT_VALID",
    details: { expected_type: required<string>(), actual_type: required<string>() },
    message: ({ expected_type, actual_type }) =>
      `This endpoint is for ${expected_type} API keys, but a ${actual_type} API key was provided.`,
    doc: "A user API key was given where a team key is expected, or vice versa.",
  }),
  PUBLIC_API_KEY_CANNOT_BE_REVOKED: leaf({
    httpStatus: 400,
    parent: "API_KEY_NOT_VALID",
    message: () => "Public API keys cannot be revoked by the secretscanner endpoint.",
    doc: "The secret-scanner endpoint cannot revoke public keys.",
  }),

  // ---- Payments, data vault ---------------------------------------------------------------------------------
  ITEM_NOT_FOUND: leaf({
    httpStatus: 404,
    details: { item_id: required<string>() },
    message: ({ item_id }) => `Item with ID "${item_id}" not found.`,
    doc: "The item id is not configured.",
  }),
  ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH: leaf({
    httpStatus: 400,
    details: {
      item_id: required<string>(),
      customer_id: required<string>(),
      item_customer_type: required<CustomerType | null>(),
      actual_customer_type: required<CustomerType>(),
    },
    message: ({ item_id, customer_id, item_customer_type, actual_customer_type }) =>
      customerTypeMismatch("item", `the item with ID ${JSON.stringify(item_id)}`, customer_id, item_customer_type, actual_customer_type),
    doc: "The item is configured for another customer type.",
  }),
  CUSTOMER_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    details: { customer_id: required<string>() },
    message: ({ customer_id }) => `Customer with ID ${JSON.stringify(customer_id)} does not exist.`,
    doc: "The (custom) customer does not exist.",
  }),
  // Pinned-era ("offers") text; matches Stack's e2e snapshots of that era.
  OFFER_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    details: { offer_id: required<string>(), access_type: required<AccessType>() },
    message: ({ offer_id, access_type }) =>
      `Offer with ID ${JSON.stringify(offer_id)} does not exist${access_type === "client" ? " or you don't have permissions to access it." : "."}`,
    doc: "The offer does not exist or is not accessible with this access type.",
  }),
  OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH: leaf({
    httpStatus: 400,
    details: {
      offer_id: required<string | null>(),
      customer_id: required<string>(),
      offer_customer_type: required<CustomerType | null>(),
      actual_customer_type: required<CustomerType>(),
    },
    message: ({ customer_id, offer_customer_type, actual_customer_type }) =>
      customerTypeMismatch("offer", "the inline offer that has been passed in", customer_id, offer_customer_type, actual_customer_type),
    doc: "The offer is configured for another customer type.",
  }),
  ITEM_QUANTITY_INSUFFICIENT_AMOUNT: leaf({
    httpStatus: 400,
    details: { item_id: required<string>(), customer_id: required<string>(), quantity: required<number>() },
    message: ({ item_id, customer_id, quantity }) =>
      `The item with ID ${JSON.stringify(item_id)} has an insufficient quantity for the customer with ID ${JSON.stringify(customer_id)}. An attempt was made to charge ${quantity} credits.`,
    doc: "The quantity change (the attempted delta) would make the item quantity negative.",
  }),
  STRIPE_ACCOUNT_INFO_NOT_FOUND: leaf({
    httpStatus: 404,
    message: () => "Stripe account information not found. Please make sure the user has onboarded with Stripe.",
    doc: "The project has no Stripe account (SDK maps it to null).",
  }),
  DATA_VAULT_STORE_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    details: { store_id: required<string>() },
    message: ({ store_id }) => `Data vault store with ID ${store_id} does not exist.`,
    doc: "The data vault store id is not in the config.",
  }),
  DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    details: { store_id: required<string>(), hashed_key: required<string>() },
    message: ({ store_id, hashed_key }) => `Data vault store with ID ${store_id} does not contain a key with hash ${hashed_key}.`,
    doc: "The data vault store has no value for that hashed key (SDK maps it to null).",
  }),
  // The codes the current published SDK added (catalogue-current-sdk.ts).
  ...CURRENT_SDK_LEAF_DEFINITIONS,
};

// ---------------------------------------------------------------------------------------------------------------
// Public types

type LeafDefinitions = typeof LEAF_DEFINITIONS;

/** Codes that are sent on the wire. */
export type ConcreteKnownErrorCode = keyof LeafDefinitions;
/** Every code of the contract, abstract parents included. */
export type KnownErrorCode = AbstractKnownErrorCode | ConcreteKnownErrorCode;

/** The wire `details` of a code; `undefined` for codes without details (and for abstract codes). */
export type DetailsOf<C extends KnownErrorCode> = C extends ConcreteKnownErrorCode ? Resolve<LeafDefinitions[C]["details"]> : undefined;
/** Message-only inputs of a code (never sent); `undefined` when it has none. */
export type MessageParamsOf<C extends KnownErrorCode> = C extends ConcreteKnownErrorCode ? Resolve<LeafDefinitions[C]["params"]> : undefined;
/** What `knownError(code, input)` takes: details and message params together; `undefined` when there is nothing. */
export type KnownErrorInput<C extends ConcreteKnownErrorCode> = C extends ConcreteKnownErrorCode
  ? InputFrom<LeafDefinitions[C]["details"], LeafDefinitions[C]["params"]>
  : never;
/** Argument list after the code: none when the code takes no input, optional when every key is optional. */
export type KnownErrorArgs<C extends ConcreteKnownErrorCode> = [KnownErrorInput<C>] extends [undefined]
  ? []
  : {} extends KnownErrorInput<C>
    ? [input?: KnownErrorInput<C>]
    : [input: KnownErrorInput<C>];

type ParentOf<C extends KnownErrorCode> = C extends AbstractKnownErrorCode
  ? (typeof ABSTRACT_DEFINITIONS)[C]["parent"]
  : C extends ConcreteKnownErrorCode
    ? LeafDefinitions[C]["parent"]
    : never;
/** All abstract ancestors of a code (its SDK superclasses). */
export type AncestorsOf<C extends KnownErrorCode> = C extends KnownErrorCode
  ? ParentOf<C> extends infer P
    ? P extends AbstractKnownErrorCode
      ? P | AncestorsOf<P>
      : never
    : never
  : never;
/** The concrete codes that are `C` or descend from it ("instance of C"). */
export type ConcreteCodesUnder<C extends KnownErrorCode> = {
  [L in ConcreteKnownErrorCode]: L extends C ? L : C extends AncestorsOf<L> ? L : never;
}[ConcreteKnownErrorCode];

export interface KnownErrorEntry<C extends KnownErrorCode = KnownErrorCode> {
  readonly code: C;
  /** Abstract parents are never sent; only used for "instance of" checks. */
  readonly abstract: C extends AbstractKnownErrorCode ? true : false;
  /** HTTP status of the response (nominal for abstract codes). */
  readonly httpStatus: KnownErrorHttpStatus;
  /** Connect code used between services. */
  readonly connectCode: Code;
  /** Direct abstract parent, if any. */
  readonly parent: AbstractKnownErrorCode | undefined;
  /** Abstract ancestors, nearest first (the SDK's instanceof chain). */
  readonly parents: readonly AbstractKnownErrorCode[];
  /** Wire detail keys exactly as spelled in the contract, in Stack's order; empty when the code has no details. */
  readonly detailKeys: readonly string[];
  /** Message-only input keys (never sent). */
  readonly paramKeys: readonly string[];
  /** Builds the exact message from the input; `undefined` for abstract codes. */
  readonly message: C extends ConcreteKnownErrorCode ? (input: KnownErrorInput<C>) => string : undefined;
  /** One-line meaning. */
  readonly doc: string;
  /**
   * The published SDK generations that know the code: `seed` = @stackframe/js 2.8.41 (x-stack- headers), `current` =
   * 2.8.108 (x-hexclave- headers). A generation that does not know a code reports it as UNSUPPORTED_ERROR.
   */
  readonly generations: readonly SdkGeneration[];
}

/** The two published SDK generations Vestibule serves (contract/latest-sdk.md). */
export type SdkGeneration = "seed" | "current";

function generationsOf(code: string): readonly SdkGeneration[] {
  if (code in CURRENT_SDK_LEAF_DEFINITIONS) return ["current"];
  if ((SEED_SDK_ONLY_CODES as readonly string[]).includes(code)) return ["seed"];
  return ["seed", "current"];
}

export type KnownErrorCatalogue = { readonly [C in KnownErrorCode]: KnownErrorEntry<C> };

// ---------------------------------------------------------------------------------------------------------------
// Runtime catalogue

function buildCatalogue(): KnownErrorCatalogue {
  const abstractDefs: Record<string, { readonly parent: string | undefined; readonly httpStatus: KnownErrorHttpStatus; readonly doc: string }> =
    ABSTRACT_DEFINITIONS;
  const leafDefs: Record<string, LeafSpec<FieldMap | undefined, FieldMap | undefined, AbstractKnownErrorCode | undefined>> =
    LEAF_DEFINITIONS as never;

  const chainOf = (code: string, parent: string | undefined): AbstractKnownErrorCode[] => {
    const chain: AbstractKnownErrorCode[] = [];
    for (let p = parent; p !== undefined; p = abstractDefs[p]!.parent) {
      if (!(p in abstractDefs)) throw new Error(`Known error ${code}: parent ${p} is not an abstract code`);
      if (chain.includes(p as AbstractKnownErrorCode)) throw new Error(`Known error ${code}: cyclic parent chain`);
      chain.push(p as AbstractKnownErrorCode);
    }
    return chain;
  };

  const out: Record<string, KnownErrorEntry> = {};
  for (const [code, def] of Object.entries(abstractDefs)) {
    out[code] = Object.freeze({
      code: code as KnownErrorCode,
      abstract: true,
      httpStatus: def.httpStatus,
      connectCode: CONNECT_CODE_FOR_KNOWN_ERROR_STATUS[def.httpStatus],
      parent: def.parent as AbstractKnownErrorCode | undefined,
      parents: Object.freeze(chainOf(code, def.parent)),
      detailKeys: Object.freeze([]),
      paramKeys: Object.freeze([]),
      message: undefined,
      doc: def.doc,
      generations: Object.freeze(generationsOf(code)),
    }) as KnownErrorEntry;
  }
  for (const [code, def] of Object.entries(leafDefs)) {
    if (code in out) throw new Error(`Duplicate known error code: ${code}`);
    out[code] = Object.freeze({
      code: code as KnownErrorCode,
      abstract: false,
      httpStatus: def.httpStatus,
      connectCode: CONNECT_CODE_FOR_KNOWN_ERROR_STATUS[def.httpStatus],
      parent: def.parent,
      parents: Object.freeze(chainOf(code, def.parent)),
      detailKeys: Object.freeze(Object.keys(def.details ?? {})),
      paramKeys: Object.freeze(Object.keys(def.params ?? {})),
      message: def.message as (input: unknown) => string,
      doc: def.doc,
      generations: Object.freeze(generationsOf(code)),
    }) as KnownErrorEntry;
  }
  return Object.freeze(out) as unknown as KnownErrorCatalogue;
}

/** Every code of the contract, keyed by code. */
export const KNOWN_ERRORS: KnownErrorCatalogue = buildCatalogue();

/** Every code, abstract parents first, then leaves in contract order. */
export const KNOWN_ERROR_CODES: readonly KnownErrorCode[] = Object.freeze(Object.keys(KNOWN_ERRORS) as KnownErrorCode[]);

export function isKnownErrorCode(value: unknown): value is KnownErrorCode {
  return typeof value === "string" && Object.hasOwn(KNOWN_ERRORS, value);
}

export function isConcreteKnownErrorCode(value: unknown): value is ConcreteKnownErrorCode {
  return isKnownErrorCode(value) && !KNOWN_ERRORS[value].abstract;
}

/** True when `code` is `ancestor` or one of its descendants (the SDK's "instance of" test). */
export function knownErrorCodeIsA(code: KnownErrorCode, ancestor: KnownErrorCode): boolean {
  if (!isKnownErrorCode(code)) return false;
  return code === ancestor || KNOWN_ERRORS[code].parents.includes(ancestor as AbstractKnownErrorCode);
}

/** Renders the exact contract message of a code from its input. */
export function knownErrorMessage<C extends ConcreteKnownErrorCode>(code: C, ...args: KnownErrorArgs<C>): string {
  const build = KNOWN_ERRORS[code].message as (input: unknown) => string;
  return build(args[0]);
}
