import { describe, expect, it } from "vitest";
import { KNOWN_ERROR_DATA } from "./catalogue.gen.ts";
import { KnownError, KnownErrors, isKnownErrorOf, knownErrorClass, type KnownErrorCode } from "./known-errors.ts";
import { STATUS_NAMES, StatusError } from "./status-error.ts";

describe("known error classes", () => {
  it("has one class per catalogue code, named as in the published SDK", () => {
    const codes = Object.keys(KNOWN_ERROR_DATA) as KnownErrorCode[];
    expect(Object.keys(KnownErrors)).toHaveLength(codes.length);
    for (const code of codes) expect(knownErrorClass(code).errorCode).toBe(code);
    expect(KnownErrors.UserWithEmailAlreadyExists.errorCode).toBe("USER_EMAIL_ALREADY_EXISTS");
    expect(KnownErrors.VerificationCodeError.errorCode).toBe("VERIFICATION_ERROR");
    expect(KnownErrors.PermissionScopeMismatch.errorCode).toBe("WRONG_PERMISSION_SCOPE");
    expect(KnownErrors.InvalidPollingCodeError.errorCode).toBe("INVALID_POLLING_CODE");
    expect(KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn.errorCode).toBe("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN");
  });

  it("rebuilds the typed error from JSON, parents included", () => {
    const err = KnownError.fromJson({ code: "ACCESS_TOKEN_EXPIRED", error: "Access token has expired.", details: { expired_at_millis: 5 } });
    expect(err).toBeInstanceOf(KnownErrors.AccessTokenExpired);
    expect(err).toBeInstanceOf(KnownErrors.InvalidAccessToken);
    expect(err).toBeInstanceOf(KnownErrors.SessionAuthenticationError);
    expect(err).not.toBeInstanceOf(KnownErrors.RefreshTokenError);
    expect(KnownErrors.InvalidAccessToken.isInstance(err)).toBe(true);
    expect(isKnownErrorOf(err, "INVALID_SESSION_AUTHENTICATION")).toBe(true);
    expect(err.errorCode).toBe("ACCESS_TOKEN_EXPIRED");
    expect(err.statusCode).toBe(401);
    expect(err.details).toEqual({ expired_at_millis: 5 });
    expect(err.message).toBe("Access token has expired.");
    expect(err.toJson()).toEqual({ code: "ACCESS_TOKEN_EXPIRED", details: { expired_at_millis: 5 }, error: "Access token has expired." });
  });

  it("turns an unknown code into UNSUPPORTED_ERROR keeping the original code", () => {
    const err = KnownError.fromJson({ code: "SOMETHING_NEWER", error: "x" });
    expect(err).toBeInstanceOf(KnownErrors.UnsupportedError);
    expect(err.statusCode).toBe(500);
    expect(err.details).toEqual({ originalErrorCode: "SOMETHING_NEWER" });
  });

  it("uses the catalogue's fixed message when none is given, and refuses to build abstract errors", () => {
    expect(new KnownErrors.EmailPasswordMismatch().message).toBe("Wrong e-mail or password.");
    expect(new KnownErrors.CliAuthExpiredError("CLI authentication request expired. Please try again.").message).toBe(
      "CLI authentication request expired. Please try again.",
    );
    expect(() => new KnownErrors.RefreshTokenError()).toThrow(/abstract/);
  });
});

describe("StatusError", () => {
  it("classifies 400-499 as client errors and everything else as server errors", () => {
    expect(new StatusError(404).isClientError()).toBe(true);
    expect(new StatusError(499).isClientError()).toBe(true);
    expect(new StatusError(500).isServerError()).toBe(true);
    expect(new StatusError(302).isServerError()).toBe(true);
  });

  it("serialises to status, message and plain-text headers", () => {
    const err = new StatusError(StatusError.Forbidden, "Client can only list teams for their own user.");
    expect(err.statusCode).toBe(403);
    expect(new TextDecoder().decode(err.getBody())).toBe("Client can only list teams for their own user.");
    expect(err.getHeaders()).toEqual({ "content-type": ["text/plain; charset=utf-8"] });
    expect(err.toDescriptiveJson()).toMatchObject({ status_code: 403, message: "Client can only list teams for their own user." });
  });

  it("names 400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 413, 415, 422, 423, 429 and 500-504", () => {
    expect(Object.keys(STATUS_NAMES).map(Number)).toEqual([400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 413, 415, 422, 423, 429, 500, 501, 502, 503, 504]);
    expect(new StatusError(418).message).toBe("HTTP 418");
    expect(new StatusError(StatusError.TooManyRequests).message).toBe("Too Many Requests");
  });
});
