import { describe, expect, it } from "vitest";
import { listOptions } from "./list-options.ts";
import { appBaseUrl, impersonationSnippet } from "./impersonation.ts";

describe("users table sort and filters (issue 21)", () => {
  it("maps each sort order and filter to the list-users options", () => {
    expect(listOptions("signed-up-desc", "all")).toEqual({ orderBy: "signedUpAt", desc: true, includeRestricted: true });
    expect(listOptions("active-asc", "unrestricted")).toEqual({ orderBy: "lastActiveAt", desc: false });
    expect(listOptions("active-desc", "with-anonymous")).toEqual({ orderBy: "lastActiveAt", desc: true, includeAnonymous: true });
    expect(listOptions("signed-up-asc", "anonymous")).toEqual({ orderBy: "signedUpAt", desc: false, onlyAnonymous: true });
  });
});

describe("impersonation (issue 21)", () => {
  it("opens the app at its first trusted domain, or nowhere without one", () => {
    expect(appBaseUrl([{ domain: "https://app.example.com/" }, { domain: "https://b.example.com" }])).toBe("https://app.example.com");
    expect(appBaseUrl([])).toBeNull();
  });

  it("writes the refresh token where the SDK's cookie store reads it, and reloads", () => {
    const line = impersonationSnippet("p-1", "tok/en+1");
    expect(line).toContain('document.cookie = "stack-refresh-p-1=tok%2Fen%2B1; path=/; samesite=lax; max-age=3600"');
    expect(line).toContain('document.cookie = "stack-access=; path=/; max-age=0"');
    expect(line.endsWith("location.reload();")).toBe(true);
  });
});
