import { describe, expect, it } from "vitest";
import { overrideFromAdminConfigUpdate, renderConfig } from "./config/index.ts";
import type { ConfigOverride } from "./config/index.ts";
import { productionModeProblems } from "./production-checks.ts";

const PROJECT = "6f1c1a4e-3a0b-4c7e-9d51-0b4c1f8e2a77";
const FIX = `/projects/${PROJECT}/domains`;

function problemsFor(domains: string[], allowLocalhost = false, extra: ConfigOverride = {}) {
  const override = {
    ...overrideFromAdminConfigUpdate({ allow_localhost: allowLocalhost, domains: domains.map((domain) => ({ domain, handler_path: "/handler" })) }),
    ...extra,
  };
  return productionModeProblems(PROJECT, renderConfig(override));
}

describe("productionModeProblems", () => {
  it("is empty for HTTPS domains without localhost", () => {
    expect(problemsFor(["https://example.com", "https://*.example.com", "https://app.example.com:8443/base"])).toEqual([]);
  });

  it("reports allow_localhost", () => {
    expect(problemsFor([], true)).toEqual([
      { id: "localhost_allowed", message: "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings", fixLink: FIX },
    ]);
  });

  it("reports the default config (allow_localhost is on by default)", () => {
    expect(productionModeProblems(PROJECT, renderConfig({})).map((p) => p.id)).toEqual(["localhost_allowed"]);
  });

  it("reports a trusted domain that is not a valid URL", () => {
    expect(problemsFor([], false, { "domains.trustedDomains.bad": { baseUrl: "not a url" } })).toEqual([
      { id: "domain_invalid_url", message: "Trusted domain is not a valid URL: not a url", fixLink: FIX },
    ]);
  });

  it.each(["http://localhost:3000", "https://app.localhost", "http://127.0.0.1:8080"])("reports the localhost domain %s", (domain) => {
    expect(problemsFor([domain])).toEqual([
      { id: "domain_localhost", message: `Localhost domains are not allowed to be trusted in production mode: ${domain}`, fixLink: FIX },
    ]);
  });

  it.each(["https://10.0.0.1", "http://192.168.1.20:8080", "https://[2001:db8::1]"])("reports the direct IP %s", (domain) => {
    expect(problemsFor([domain])).toEqual([
      { id: "domain_ip", message: `Direct IPs are not valid for trusted domains in production mode: ${domain}`, fixLink: FIX },
    ]);
  });

  it("reports a non-HTTPS domain", () => {
    expect(problemsFor(["http://example.com"])).toEqual([
      { id: "domain_not_https", message: "Trusted domains should be HTTPS: http://example.com", fixLink: FIX },
    ]);
  });

  it("reports at most one problem per domain: localhost, then IP, then HTTPS", () => {
    // http + localhost: only the localhost message; http + IP: only the IP message
    expect(problemsFor(["http://localhost"]).map((p) => p.id)).toEqual(["domain_localhost"]);
    expect(problemsFor(["http://10.1.2.3"]).map((p) => p.id)).toEqual(["domain_ip"]);
  });

  it("lists allow_localhost first, then the domains sorted as the admin view shows them", () => {
    const problems = problemsFor(["http://zeta.example.com", "http://alpha.example.com", "https://ok.example.com", "http://localhost:3000"], true);
    expect(problems.map((p) => p.message)).toEqual([
      "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings",
      "Trusted domains should be HTTPS: http://alpha.example.com",
      "Localhost domains are not allowed to be trusted in production mode: http://localhost:3000",
      "Trusted domains should be HTTPS: http://zeta.example.com",
    ]);
    expect(new Set(problems.map((p) => p.fixLink))).toEqual(new Set([FIX]));
  });
});
