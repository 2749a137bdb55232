import { describe, expect, it } from "vitest";
import { NO_FILTERS, dateRangeError, listOptions } from "./list-options.ts";
import { appBaseUrl, impersonationSnippet, impersonationUrl } from "./impersonation.ts";

describe("users table sort and filters (issue 21)", () => {
  it("maps each sort order and who is shown to the list-users options", () => {
    expect(listOptions("signed-up-desc", NO_FILTERS)).toEqual({ orderBy: "signedUpAt", desc: true, includeRestricted: true });
    expect(listOptions("active-asc", { ...NO_FILTERS, show: "unrestricted" })).toEqual({ orderBy: "lastActiveAt", desc: false });
    expect(listOptions("active-desc", { ...NO_FILTERS, show: "restricted" })).toEqual({ orderBy: "lastActiveAt", desc: true, onlyRestricted: true });
    expect(listOptions("active-desc", { ...NO_FILTERS, show: "with-anonymous" })).toEqual({ orderBy: "lastActiveAt", desc: true, includeAnonymous: true });
    expect(listOptions("signed-up-asc", { ...NO_FILTERS, show: "anonymous" })).toEqual({ orderBy: "signedUpAt", desc: false, onlyAnonymous: true });
  });

  it("maps e-mail, two-factor, sign-in method and sign-up days (the end day included)", () => {
    const o = listOptions("signed-up-desc", { show: "all", email: "unverified", mfa: "on", method: "passkey", from: "2026-03-01", to: "2026-03-31" });
    expect(o).toMatchObject({ emailVerified: false, hasMfa: true, authMethod: "passkey" });
    expect(o.signedUpAfter).toEqual(new Date(2026, 2, 1));
    expect(o.signedUpBefore).toEqual(new Date(2026, 3, 1));
    expect(listOptions("signed-up-desc", { ...NO_FILTERS, email: "verified", mfa: "off", from: "garbage" })).toEqual({ orderBy: "signedUpAt", desc: true, includeRestricted: true, emailVerified: true, hasMfa: false });
  });

  it("says when the end day is before the start day", () => {
    expect(dateRangeError({ from: "2026-03-02", to: "2026-03-01" })).toBe("The end date is before the start date.");
    expect(dateRangeError({ from: "2026-03-01", to: "2026-03-01" })).toBeNull();
    expect(dateRangeError({ from: "", to: "2026-03-01" })).toBeNull();
  });
});

describe("impersonation (issue 21)", () => {
  it("opens the app at its first trusted domain, or nowhere without one", () => {
    expect(appBaseUrl([{ domain: "https://app.example.com/" }, { domain: "https://b.example.com" }])).toBe("https://app.example.com");
    expect(appBaseUrl([])).toBeNull();
  });

  it("opens the impersonation page under the first domain's handler path with the ticket", () => {
    const domains = [{ domain: "https://app.example.com/", handlerPath: "/auth/handler/" }, { domain: "https://b.example.com", handlerPath: "/handler" }];
    expect(impersonationUrl(domains, "t1")).toBe("https://app.example.com/auth/handler/impersonate?ticket=t1");
    expect(impersonationUrl([{ domain: "http://127.0.0.1:8080", handlerPath: "/handler/p-1" }], "a b")).toBe("http://127.0.0.1:8080/handler/p-1/impersonate?ticket=a+b");
    expect(impersonationUrl([], "t1")).toBeNull();
  });

  it("writes the refresh token where the SDK's cookie store reads it, and reloads", () => {
    const line = impersonationSnippet("p-1", "tok/en+1");
    expect(line).toContain('document.cookie = "stack-refresh-p-1=tok%2Fen%2B1; path=/; samesite=lax; max-age=3600"');
    expect(line).toContain('document.cookie = "stack-access=; path=/; max-age=0"');
    expect(line.endsWith("location.reload();")).toBe(true);
  });
});
