/**
 * The abstract parents of the known-error catalogue (catalogue.ts), on their own so that the catalogue's kit can name
 * their codes without importing the catalogue (no import cycle, issue 22).
 */
// ---------------------------------------------------------------------------------------------------------------
// Abstract parents (contract/errors.md §3). Never sent on the wire; the SDK tests "is instance of parent".
// Their HTTP status is nominal (the status most of their leaves use) and is never put on a response.

export const ABSTRACT_DEFINITIONS = {
  PROJECT_AUTHENTICATION_ERROR: {
    parent: undefined,
    httpStatus: 401,
    doc: "Abstract: any failure to authenticate the project (keys, access type, admin token, internal project).",
  },
  INVALID_PROJECT_AUTHENTICATION: {
    parent: "PROJECT_AUTHENTICATION_ERROR",
    httpStatus: 401,
    doc: "Abstract: the project credentials or access-type headers that were sent are invalid.",
  },
  INVALID_ADMIN_ACCESS_TOKEN: {
    parent: "INVALID_PROJECT_AUTHENTICATION",
    httpStatus: 401,
    doc: "Abstract: the x-stack-admin-access-token is unusable (unparsable, expired, wrong project, not an admin).",
  },
  PROJECT_AUTHENTICATION_REQUIRED: {
    parent: "PROJECT_AUTHENTICATION_ERROR",
    httpStatus: 401,
    doc: "Abstract (deprecated family): a required project key was not provided.",
  },
  SESSION_AUTHENTICATION_ERROR: {
    parent: undefined,
    httpStatus: 401,
    doc: "Abstract: any failure to authenticate the user session.",
  },
  INVALID_SESSION_AUTHENTICATION: {
    parent: "SESSION_AUTHENTICATION_ERROR",
    httpStatus: 401,
    doc: "Abstract: the session credentials that were sent are invalid.",
  },
  INVALID_ACCESS_TOKEN: {
    parent: "INVALID_SESSION_AUTHENTICATION",
    httpStatus: 401,
    doc: "Abstract: the x-stack-access-token is unusable; the SDK refreshes the session and retries.",
  },
  REFRESH_TOKEN_ERROR: {
    parent: undefined,
    httpStatus: 401,
    doc: "Abstract: the refresh token or session cannot be used; the SDK treats the user as signed out.",
  },
  PASSWORD_REQUIREMENTS_NOT_MET: {
    parent: undefined,
    httpStatus: 400,
    doc: "Abstract: the password does not satisfy the length rules.",
  },
  VERIFICATION_ERROR: {
    parent: undefined,
    httpStatus: 400,
    doc: "Abstract: a verification code (e-mail link, OTP, reset code...) cannot be used.",
  },
  API_KEY_NOT_VALID: {
    parent: undefined,
    httpStatus: 401,
    doc: "Abstract: an API key cannot be used (missing, expired, revoked, wrong type); SDK `check` returns null.",
  },
} as const;

export type AbstractKnownErrorCode = keyof typeof ABSTRACT_DEFINITIONS;

// Compile-time check: an abstract code's parent is itself an abstract code.
type AssertTrue<T extends true> = T;
type _AbstractParentsAreAbstract = AssertTrue<
  (typeof ABSTRACT_DEFINITIONS)[AbstractKnownErrorCode]["parent"] extends AbstractKnownErrorCode | undefined ? true : false
>;
