import { describe, expect, it } from "vitest";
import { hostMatches, isLocalhostName, isRedirectUrlTrusted } from "./redirect.ts";

const trust = (trustedDomains: string[], allowLocalhost = false) => ({ trustedDomains, allowLocalhost });

describe("redirect URL trust", () => {
  it("accepts same scheme, host and port; ignores path, query and fragment", () => {
    const t = trust(["https://app.example.com"]);
    expect(isRedirectUrlTrusted("https://app.example.com/handler/verify?x=1#y", t)).toBe(true);
    expect(isRedirectUrlTrusted("https://APP.example.com:443/", t)).toBe(true);
    expect(isRedirectUrlTrusted("http://app.example.com/", t)).toBe(false);
    expect(isRedirectUrlTrusted("https://app.example.com:8443/", t)).toBe(false);
    expect(isRedirectUrlTrusted("https://evil.com/?https://app.example.com", t)).toBe(false);
    expect(isRedirectUrlTrusted("https://app.example.com.evil.com/", t)).toBe(false);
  });

  it("normalises default ports on the domain side too", () => {
    expect(isRedirectUrlTrusted("https://a.com/x", trust(["https://a.com:443"]))).toBe(true);
    expect(isRedirectUrlTrusted("http://a.com:8080/x", trust(["http://a.com:8080/some/path"]))).toBe(true);
    expect(isRedirectUrlTrusted("http://a.com/x", trust(["http://a.com:8080"]))).toBe(false);
  });

  it("supports * (one label part) and ** (any run) wildcards; wildcard without port means the default port", () => {
    const t = trust(["https://*.example.com", "https://**.deep.io:8443"]);
    expect(isRedirectUrlTrusted("https://api.example.com/cb", t)).toBe(true);
    expect(isRedirectUrlTrusted("https://example.com/cb", t)).toBe(false);
    expect(isRedirectUrlTrusted("https://a.b.example.com/cb", t)).toBe(false);
    expect(isRedirectUrlTrusted("https://api.example.com:8443/cb", t)).toBe(false);
    expect(isRedirectUrlTrusted("https://a.b.deep.io:8443/cb", t)).toBe(true);
    expect(isRedirectUrlTrusted("https://a.b.deep.io/cb", t)).toBe(false);
    expect(hostMatches("pre-*.x.com", "pre-1.x.com")).toBe(true);
    expect(hostMatches("pre-*.x.com", "prex1.x.com")).toBe(false);
  });

  it("localhost only when allowed: localhost, *.localhost, 127.x.x.x on any port", () => {
    for (const url of ["http://localhost:3000/cb", "http://app.localhost/cb", "http://127.0.0.1:8080/", "https://127.1.2.3/"]) {
      expect(isRedirectUrlTrusted(url, trust([], true))).toBe(true);
      expect(isRedirectUrlTrusted(url, trust([], false))).toBe(false);
    }
    expect(isLocalhostName("localhost.evil.com")).toBe(false);
    expect(isLocalhostName("128.0.0.1")).toBe(false);
  });

  it("refuses relative and malformed URLs", () => {
    expect(isRedirectUrlTrusted("/handler", trust(["https://a.com"], true))).toBe(false);
    expect(isRedirectUrlTrusted("not a url", trust(["https://a.com"], true))).toBe(false);
    expect(isRedirectUrlTrusted("https://a.com", trust(["not a url"]))).toBe(false);
  });
});
