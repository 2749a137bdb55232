/**
 * Every client-side message and constant of product-spec sections 4, 5, 8 and 9, named one by one and checked
 * against the SDK's exports (the behaviour behind each is tested where it lives; this is the checklist).
 */
import { describe, expect, it } from "vitest";
import * as core from "@vestibule/sdk-core";
import * as js from "@vestibule/js";
import * as react from "@vestibule/react";

const V = core.VALIDATION_MESSAGES;

describe("spec §4 states and transitions", () => {
  it("freshness margin 20000 ms; token without expiry = maximum date", () => {
    expect(core.ACCESS_TOKEN_FRESHNESS_MARGIN_MS).toBe(20_000);
    expect(core.MAX_DATE_MILLIS).toBe(8.64e15);
  });
  it("cache invalidation 5000 ms after the last subscriber; cookie polling 100 ms", () => {
    expect(core.CACHE_INVALIDATION_DELAY_MS).toBe(5_000);
    expect(core.COOKIE_POLL_INTERVAL_MS).toBe(100);
  });
  it("MFA attempt code in session storage; OAuth verifier cookie and S256", () => {
    expect(js.MFA_ATTEMPT_CODE_STORAGE_KEY).toBe("stack_mfa_attempt_code");
    expect(js.oauthVerifierCookieName("abc")).toBe("stack-oauth-outer-abc");
    expect(js.PKCE_METHOD).toBe("S256");
  });
  it("CLI poll statuses: expired, used, timeout messages", () => {
    expect(js.CLI_EXPIRED_MESSAGE).toBe("CLI authentication request expired. Please try again.");
    expect(js.CLI_USED_MESSAGE).toBe("This authentication token has already been used.");
    expect(js.CLI_TIMEOUT_MESSAGE).toBe("Timed out waiting for CLI authentication.");
  });
  it("a second app with the same unique identifier is refused", () => {
    expect(js.duplicateAppMessage("x")).toContain('"x" already exists');
  });
});

describe("spec §5 validation", () => {
  it("password max 70 and confirmation", () => {
    expect(core.PASSWORD_MAX_LENGTH).toBe(70);
    expect(core.checkPassword("a".repeat(71))).toBe("Password too long. Maximum length is 70.");
    expect(core.checkPassword("a".repeat(70), "b")).toBe("Passwords do not match.");
    expect(core.checkPassword("a".repeat(70), "a".repeat(70))).toBeNull();
  });
  it("e-mail: format, max 256, no empty dot segments, domain ending in a dot and 2+ characters", () => {
    expect(core.EMAIL_MAX_LENGTH).toBe(256);
    expect(core.checkEmail("ada@example.com")).toBeNull();
    expect(core.checkEmail("ada..l@example.com")).toBe(V.invalidEmail);
    expect(core.checkEmail(".ada@example.com")).toBe(V.invalidEmail);
    expect(core.checkEmail("ada@example.c")).toBe(V.invalidEmail);
    expect(core.checkEmail("ada@localhost")).toBe(V.invalidEmail);
    expect(core.checkEmail(`${"a".repeat(250)}@ex.com`)).toBe(V.emailTooLong);
  });
  it("URLs: valid, no spaces; image URLs at most 1,000,000 characters; profile images under 100KB", () => {
    expect(core.checkUrl("https://a.example.com/x")).toBeNull();
    expect(core.checkUrl("https://a.example.com/x y")).toBe(V.urlContainsSpaces);
    expect(core.checkUrl("not a url".replace(/ /g, ""))).toBe(V.invalidUrl);
    expect(core.IMAGE_URL_MAX_LENGTH).toBe(1_000_000);
    expect(core.checkUrl(`https://a.example.com/${"x".repeat(1_000_000)}`, { image: true })).toBe(V.imageUrlTooLong);
    expect(core.PROFILE_IMAGE_MAX_BYTES).toBe(102_400);
    expect(core.checkProfileImageDataUrl(`data:image/png;base64,${"A".repeat(140_000)}`)).toBe(V.profileImageTooLarge);
    expect(core.checkProfileImageDataUrl(`data:image/png;base64,${"A".repeat(1_000)}`)).toBeNull();
  });
  it("display name max 256; branch id non-empty, max 255", () => {
    expect(core.checkDisplayName("x".repeat(257))).toBe(V.displayNameTooLong);
    expect(core.checkBranchId("")).toBe(V.branchIdEmpty);
    expect(core.checkBranchId("x".repeat(256))).toBe(V.branchIdTooLong);
    expect(core.checkBranchId("main")).toBeNull();
  });
  it("money amounts: the three messages and 'At least one currency is required'", () => {
    expect(core.CURRENCY_DECIMALS).toEqual({ USD: 2, EUR: 2, GBP: 2, INR: 2, AUD: 2, CAD: 2, JPY: 0 });
    expect(core.checkMoneyAmount("12.5", "USD")).toBeNull();
    expect(core.checkMoneyAmount("1,5", "USD")).toBe("Money amount must be in the format of <number> or <number>.<number>");
    expect(core.checkMoneyAmount("1.234", "EUR")).toBe("Too many decimals; EUR only has 2 decimals");
    expect(core.checkMoneyAmount("1.5", "JPY")).toBe("Too many decimals; JPY only has 0 decimals");
    expect(core.checkMoneyAmount("012", "USD")).toBe("Money amount must not have leading zeros");
    expect(core.checkPriceCurrencies({})).toBe("At least one currency is required");
  });
  it("ids: max 63, letter or underscore first, then letters, digits, underscores, hyphens", () => {
    expect(core.checkId("pro_plan-2")).toBeNull();
    expect(core.checkId("2pro")).toBe(V.idFormat);
    expect(core.checkId(`a${"b".repeat(63)}`)).toBe(V.idFormat);
    expect(core.checkId(`a${"b".repeat(62)}`)).toBeNull();
  });
  it("durations: non-negative integer and unit; intervals day/week/month/year", () => {
    expect(core.parseDuration("3 day", core.INTERVAL_UNITS)).toEqual([3, "day"]);
    expect(core.parseDuration("3 hour", core.INTERVAL_UNITS)).toBeNull();
    expect(core.parseDuration([5, "millisecond"])).toEqual([5, "millisecond"]);
    expect(core.parseDuration([-1, "day"])).toBeNull();
  });
  it("permission ids: the three messages", () => {
    expect(core.checkPermissionId("read:posts")).toBeNull();
    expect(core.checkPermissionId("Read")).toBe('Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed');
    expect(core.checkPermissionId("update_team", { system: true })).toBe("System permissions must start with a dollar sign");
    expect(core.checkPermissionId("$fly")).toBe("Invalid system permission");
    expect(core.SYSTEM_PERMISSIONS).toEqual(["$update_team", "$delete_team", "$read_members", "$remove_members", "$invite_members", "$manage_api_keys"]);
  });
  it("production mode domain checks, each with a fix link", () => {
    const errors = core.productionModeErrors({
      id: "p1",
      config: { allowLocalhost: true, domains: [{ domain: "::nope" }, { domain: "http://localhost:3000" }, { domain: "https://10.0.0.1" }, { domain: "http://example.com" }, { domain: "https://example.com" }] },
    });
    expect(errors.map((e) => e.message)).toEqual([
      "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings",
      "Trusted domain is not a valid URL: ::nope",
      "Localhost domains are not allowed to be trusted in production mode: http://localhost:3000",
      "Direct IPs are not valid for trusted domains in production mode: https://10.0.0.1",
      "Trusted domains should be HTTPS: http://example.com",
    ]);
    expect(errors.every((e) => e.relativeFixUrl === "/projects/p1/domains")).toBe(true);
  });
  it("localhost detection: localhost, its subdomains, 127.x.x.x", () => {
    expect(["localhost", "app.localhost", "127.0.0.1", "127.8.9.10"].every(core.isLocalhostHost)).toBe(true);
    expect(core.isLocalhostHost("localhost.example.com")).toBe(false);
  });
  it("handler path starts with /; redirect trust message; wait time bounds; token expiry requests ≤ 60 s; SMTP port", () => {
    expect(js.HANDLER_PATH_MESSAGE).toContain("must start with a slash");
    expect(js.UNTRUSTED_REDIRECT_MESSAGE).toBe("Redirect URL is not trusted; should be relative.");
    expect(core.MAX_WAIT_MILLIS).toBe(2_147_483_647);
    expect(core.checkTokenExpiryRequest(60_001)).toBe(V.tokenExpiryTooLong);
    expect(core.checkTokenExpiryRequest(60_000)).toBeNull();
    expect(core.checkSmtpPort(65_536)).toBe(V.smtpPort);
    expect(core.checkSmtpPort(0)).toBeNull();
  });
});

describe("spec §8 client behaviour", () => {
  it("offline and generic network messages; 'No access token available'; cookie store on the server; x-stack-auth", () => {
    expect(core.OFFLINE_MESSAGE).toBe("You are offline. Please check your internet connection and try again.");
    expect(core.NETWORK_ERROR_MESSAGE).toContain("unable to connect to the server");
    expect(core.NETWORK_ERROR_MESSAGE).toContain("contact support");
    expect(core.NO_ACCESS_TOKEN_MESSAGE).toBe("No access token available");
    expect(core.COOKIE_STORE_ON_SERVER_MESSAGE).toBe("Cannot use cookie token store on the server!");
    expect(core.INVALID_AUTH_HEADER_MESSAGE).toBe("Invalid x-stack-auth header");
  });
  it("OAuth callback alerts", () => {
    expect(js.OAUTH_INVALID_TOTP_MESSAGE).toBe("Invalid TOTP code. Please try signing in again.");
    expect(js.OAUTH_CALLBACK_ERROR_MESSAGE).toBe("Error signing in during OAuth callback. Please try again.");
  });
  it("passkey messages and WebAuthn support", () => {
    expect(js.PASSKEY_INITIATION_FAILED_MESSAGE).toBe("Failed to get initiation options for passkey registration");
    expect(js.PASSKEY_REGISTRATION_UNKNOWN_MESSAGE).toBe("Failed to start passkey registration due to unknown error");
    expect(js.WEBAUTHN_UNSUPPORTED_MESSAGE).toBe("WebAuthn is not supported in this browser");
  });
  it("'Cannot add new scopes to a user that is not a CurrentUser', unsupported features, useStackApp outside a provider, 'me' without a user", () => {
    expect(js.SCOPES_ON_NON_CURRENT_USER_MESSAGE).toBe("Cannot add new scopes to a user that is not a CurrentUser");
    expect(js.featureNotSupportedMessage("X")).toBe("X is not currently supported. Please reach out to Stack support for more information.");
    expect(react.PROVIDER_MISSING_MESSAGE).toBe("useStackApp must be used within a StackProvider");
    expect(react.MISSING_SUSPENSE_MESSAGE).toContain("<Suspense>");
    expect(new core.KnownErrors.CannotGetOwnUserWithoutUser().statusCode).toBe(400);
  });
  it("data vault: missing key gives null, other errors 'Unexpected uncaught error'", () => {
    expect(js.DATA_VAULT_UNEXPECTED_ERROR_MESSAGE).toBe("Unexpected uncaught error");
  });
  it("retries: 5 attempts, base 1000 ms doubled, jitter 0.5-1.5", () => {
    expect([core.NETWORK_ATTEMPTS, core.RETRY_BASE_DELAY_MS, core.RETRY_JITTER_MIN, core.RETRY_JITTER_MAX]).toEqual([5, 1_000, 0.5, 1.5]);
  });
});

describe("spec §9 constants", () => {
  it("cookie names and lifetimes", () => {
    expect(core.refreshTokenCookieName("p1")).toBe("stack-refresh-p1");
    expect(core.ACCESS_TOKEN_COOKIE_NAME).toBe("stack-access");
    expect([core.REFRESH_TOKEN_COOKIE_MAX_AGE_SECONDS, core.ACCESS_TOKEN_COOKIE_MAX_AGE_SECONDS, js.OAUTH_VERIFIER_COOKIE_MAX_AGE_SECONDS]).toEqual([31_536_000, 86_400, 3_600]);
  });
  it("cache: concurrency 1, throttle 300 ms, invalidation 5000 ms", () => {
    expect([core.CACHE_FETCH_CONCURRENCY, core.CACHE_THROTTLE_MS, core.CACHE_INVALIDATION_DELAY_MS]).toEqual([1, 300, 5_000]);
  });
  it("CLI poll 2000 ms; redirect pause 2000 ms; longest wait; data vault 100000 iterations; handler /handler", () => {
    expect(js.CLI_POLL_INTERVAL_MS).toBe(2_000);
    expect(js.REDIRECT_PAUSE_MS).toBe(2_000);
    expect(core.MAX_WAIT_MILLIS).toBe(2_147_483_647);
    expect(core.DATA_VAULT_KEY_DERIVATION_ITERATIONS).toBe(100_000);
    expect(js.DEFAULT_HANDLER_PATH).toBe("/handler");
  });
  it("avatar 34, initials 0.4, icon 0.6; submenu 100 ms, pointer grace 300 ms, type-ahead reset 1000 ms", () => {
    expect([react.AVATAR_SIZE, react.INITIALS_FONT_RATIO, react.ICON_SIZE_RATIO]).toEqual([34, 0.4, 0.6]);
    expect([react.SUBMENU_OPEN_DELAY_MS, react.POINTER_GRACE_MS, react.TYPEAHEAD_RESET_MS]).toEqual([100, 300, 1_000]);
    expect(react.NOT_SIGNED_IN_LABEL).toBe("Not signed in");
    expect(react.MENU_TEXT).toEqual({ accountSettings: "Account settings", toggleTheme: "Toggle theme", signOut: "Sign out", signIn: "Sign in", signUp: "Sign up" });
  });
  it("OAuth provider types", () => {
    expect(core.OAUTH_PROVIDER_TYPES).toHaveLength(12);
  });
});
