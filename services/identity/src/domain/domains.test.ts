import { describe, expect, it } from "vitest";
import {
  hostPatternProblem,
  isLocalhost,
  isLocalhostUrl,
  isRedirectUrlTrusted,
  isValidHostPattern,
  matchHostPattern,
  trustedDomainProblem,
} from "./domains.ts";

describe("host patterns", () => {
  it.each(["example.com", "sub.domain.example.com", "localhost", "a-b.example.com", "*.example.com", "a-*.example.com", "*.*.org", "**.example.com", "*-api.*.com", "EXAMPLE.com", "[::1]"])(
    "accepts %s",
    (host) => {
      expect(hostPatternProblem(host)).toBeNull();
      expect(isValidHostPattern(host)).toBe(true);
    },
  );

  it("rejects an empty host", () => {
    expect(hostPatternProblem("")).toBe("host must not be empty");
  });

  it("rejects a leading dot", () => {
    expect(hostPatternProblem(".example.com")).toMatch(/must not start with a dot/);
    expect(hostPatternProblem(".*.example.com")).toMatch(/must not start with a dot/);
  });

  it("rejects a trailing dot", () => {
    expect(hostPatternProblem("example.com.")).toMatch(/must not end with a dot/);
    expect(hostPatternProblem("*.")).toMatch(/must not end with a dot/);
  });

  it("rejects double dots", () => {
    expect(hostPatternProblem("example..com")).toMatch(/two dots in a row/);
    expect(hostPatternProblem("*.example..com")).toMatch(/two dots in a row/);
  });

  it.each(["exa mple.com", "ex_ample.com", "example.com/path", "https://example.com", "a?.com", "ü.com", "[::1"])("rejects other characters: %s", (host) => {
    expect(isValidHostPattern(host)).toBe(false);
  });
});

describe("trusted domains", () => {
  it.each(["https://example.com", "http://example.com", "http://localhost:3000", "https://*.example.com", "https://*.example.com:8443/some/path", "https://example.com/", "http://127.0.0.1:8080", "https://[::1]:3000"])(
    "accepts %s",
    (domain) => {
      expect(trustedDomainProblem(domain)).toBeNull();
    },
  );

  it.each([
    ["example.com", "must be an http(s) URL"],
    ["//example.com", "must be an http(s) URL"],
    ["ftp://example.com", "must use http or https"],
    ["https://user:pw@example.com", "must not contain user info"],
    ["https://.example.com", "must not start with a dot"],
    ["https://example.com.", "must not end with a dot"],
    ["https://a..example.com", "two dots in a row"],
    ["https://exa mple.com", "may only contain"],
    ["https://example.com:99999", "invalid port"],
    ["https://example.com:https", "invalid port"],
    ["https://*.example.com:*", "invalid port"],
    ["https://", "host must not be empty"],
  ])("rejects %s", (domain, problem) => {
    expect(trustedDomainProblem(domain)).toContain(problem);
  });
});

describe("isLocalhost", () => {
  it.each(["localhost", "LOCALHOST", "app.localhost", "a.b.localhost", "127.0.0.1", "127.1.2.3", "127.255.255.255"])("%s is localhost", (host) => {
    expect(isLocalhost(host)).toBe(true);
  });

  it.each(["localhost.com", "notlocalhost", "mylocalhost", "128.0.0.1", "10.0.0.1", "192.168.1.1", "127.0.0", "127.0.0.1.example.com", "::1", "example.com"])(
    "%s is not localhost",
    (host) => {
      expect(isLocalhost(host)).toBe(false);
    },
  );

  it("reads the hostname of URLs", () => {
    expect(isLocalhostUrl("http://localhost:3000/x")).toBe(true);
    expect(isLocalhostUrl(new URL("https://app.localhost"))).toBe(true);
    expect(isLocalhostUrl("http://127.0.0.1")).toBe(true);
    expect(isLocalhostUrl("https://example.com")).toBe(false);
    expect(isLocalhostUrl("not a url")).toBe(false);
  });
});

describe("matchHostPattern", () => {
  it("matches exactly without wildcards, ignoring case", () => {
    expect(matchHostPattern("example.com", "example.com")).toBe(true);
    expect(matchHostPattern("Example.COM", "example.com")).toBe(true);
    expect(matchHostPattern("example.com", "other.com")).toBe(false);
  });

  it("`*` matches within one label", () => {
    expect(matchHostPattern("*.example.com", "api.example.com")).toBe(true);
    expect(matchHostPattern("*.example.com", "example.com")).toBe(false);
    expect(matchHostPattern("*.example.com", "a.b.example.com")).toBe(false);
    expect(matchHostPattern("api-*.example.com", "api-v1.example.com")).toBe(true);
    expect(matchHostPattern("api-*.example.com", "api.example.com")).toBe(false);
    expect(matchHostPattern("*.*.org", "mail.example.org")).toBe(true);
  });

  it("`**` matches across labels", () => {
    expect(matchHostPattern("**.example.com", "a.b.example.com")).toBe(true);
    expect(matchHostPattern("**.example.com", "api.example.com")).toBe(true);
    expect(matchHostPattern("**.example.com", "example.com")).toBe(false);
  });

  it("treats other characters literally", () => {
    expect(matchHostPattern("*.example.com", "apiXexampleXcom")).toBe(false);
    expect(matchHostPattern("a-*.com", "a-b.com")).toBe(true);
  });
});

describe("isRedirectUrlTrusted", () => {
  const trust = (...baseUrls: string[]) => ({ trustedDomains: baseUrls.map((baseUrl) => ({ baseUrl })), allowLocalhost: false });

  it("trusts the same scheme, host and port; the path is not compared", () => {
    const opts = trust("https://example.com/app");
    expect(isRedirectUrlTrusted("https://example.com/app/handler/x", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://example.com/elsewhere?q=1#f", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://example.com", opts)).toBe(true);
    expect(isRedirectUrlTrusted(new URL("https://EXAMPLE.com/x"), opts)).toBe(true);
  });

  it("requires the same scheme", () => {
    expect(isRedirectUrlTrusted("http://example.com/x", trust("https://example.com"))).toBe(false);
    expect(isRedirectUrlTrusted("https://example.com/x", trust("http://example.com"))).toBe(false);
  });

  it("requires the same host", () => {
    expect(isRedirectUrlTrusted("https://evil.com/x", trust("https://example.com"))).toBe(false);
    expect(isRedirectUrlTrusted("https://api.example.com/x", trust("https://example.com"))).toBe(false);
    expect(isRedirectUrlTrusted("https://example.com.evil.com/x", trust("https://example.com"))).toBe(false);
    expect(isRedirectUrlTrusted("https://example.com@evil.com/x", trust("https://example.com"))).toBe(false);
  });

  it("requires the same port, with default ports normalised", () => {
    expect(isRedirectUrlTrusted("https://example.com:8443/x", trust("https://example.com"))).toBe(false);
    expect(isRedirectUrlTrusted("https://example.com/x", trust("https://example.com:8443"))).toBe(false);
    expect(isRedirectUrlTrusted("https://example.com:8443/x", trust("https://example.com:8443"))).toBe(true);
    expect(isRedirectUrlTrusted("https://example.com:443/x", trust("https://example.com"))).toBe(true);
    expect(isRedirectUrlTrusted("https://example.com/x", trust("https://example.com:443"))).toBe(true);
    expect(isRedirectUrlTrusted("http://example.com:80/x", trust("http://example.com"))).toBe(true);
    expect(isRedirectUrlTrusted("http://example.com:443/x", trust("http://example.com"))).toBe(false);
  });

  it("wildcard hosts without a port in the pattern need the default port", () => {
    const opts = trust("https://*.example.com");
    expect(isRedirectUrlTrusted("https://api.example.com/cb", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://api.example.com:443/cb", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://api.example.com:8443/cb", opts)).toBe(false);
    expect(isRedirectUrlTrusted("https://example.com/cb", opts)).toBe(false);
    expect(isRedirectUrlTrusted("https://a.b.example.com/cb", opts)).toBe(false);
    expect(isRedirectUrlTrusted("http://api.example.com/cb", opts)).toBe(false);
  });

  it("wildcard hosts with a port in the pattern need that port", () => {
    const opts = trust("https://*.example.com:8443");
    expect(isRedirectUrlTrusted("https://api.example.com:8443/cb", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://api.example.com/cb", opts)).toBe(false);
    expect(isRedirectUrlTrusted("https://api.example.com:9443/cb", opts)).toBe(false);
  });

  it("an explicit default port in a wildcard pattern is the same as none", () => {
    const opts = trust("https://*.example.com:443");
    expect(isRedirectUrlTrusted("https://api.example.com/cb", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://api.example.com:8443/cb", opts)).toBe(false);
  });

  it("`**` wildcards span labels", () => {
    const opts = trust("https://**.example.com");
    expect(isRedirectUrlTrusted("https://a.b.example.com/cb", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://example.com/cb", opts)).toBe(false);
  });

  it("any trusted domain may match; entries without a base URL are ignored", () => {
    const opts = { trustedDomains: [{ baseUrl: undefined }, { baseUrl: "https://a.com" }, { baseUrl: "https://b.com" }], allowLocalhost: false };
    expect(isRedirectUrlTrusted("https://b.com/x", opts)).toBe(true);
    expect(isRedirectUrlTrusted("https://c.com/x", opts)).toBe(false);
  });

  it("trusts localhost hosts on any port only when allowLocalhost is on", () => {
    const on = { trustedDomains: [], allowLocalhost: true };
    const off = { trustedDomains: [], allowLocalhost: false };
    for (const url of ["http://localhost:3000/cb", "https://localhost/cb", "http://app.localhost:8080/cb", "http://127.0.0.1:5173/cb", "http://127.4.5.6/cb"]) {
      expect(isRedirectUrlTrusted(url, on)).toBe(true);
      expect(isRedirectUrlTrusted(url, off)).toBe(false);
    }
    expect(isRedirectUrlTrusted("http://localhost.evil.com/cb", on)).toBe(false);
    expect(isRedirectUrlTrusted("http://192.168.0.1/cb", on)).toBe(false);
  });

  it("a trusted localhost domain still needs its port when allowLocalhost is off", () => {
    const opts = trust("http://localhost:3000");
    expect(isRedirectUrlTrusted("http://localhost:3000/cb", opts)).toBe(true);
    expect(isRedirectUrlTrusted("http://localhost:3001/cb", opts)).toBe(false);
  });

  it("rejects strings that are not absolute URLs", () => {
    const opts = { trustedDomains: [{ baseUrl: "https://example.com" }], allowLocalhost: true };
    expect(isRedirectUrlTrusted("/relative/path", opts)).toBe(false);
    expect(isRedirectUrlTrusted("not a url", opts)).toBe(false);
    expect(isRedirectUrlTrusted("", opts)).toBe(false);
  });

  it("ignores unparsable trusted domains", () => {
    expect(isRedirectUrlTrusted("https://example.com/x", trust("example.com"))).toBe(false);
  });
});
