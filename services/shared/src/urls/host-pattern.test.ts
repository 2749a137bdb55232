import { describe, expect, it } from "vitest";
import { allStrings as strings, timed } from "../testing/exhaustive.ts";
import { countWildcards, matchHostPattern, MAX_HOST_PATTERN_WILDCARDS, MAX_HOSTNAME_LENGTH } from "./host-pattern.ts";
import { isRedirectUrlTrusted, MAX_URL_LENGTH } from "./index.ts";

/** The previous implementation (a backtracking regular expression), as the oracle for the semantics on short inputs. */
function regexOracle(pattern: string, hostname: string): boolean {
  const p = pattern.toLowerCase();
  let source = "";
  for (let i = 0; i < p.length; i++) {
    if (p[i] === "*") {
      if (p[i + 1] === "*") {
        while (p[i + 1] === "*") i++;
        source += ".*";
      } else source += "[^.]*";
    } else source += p[i]!.replace(/[.+?^${}()|[\]\\-]/g, "\\$&");
  }
  return new RegExp(`^${source}$`).test(hostname.toLowerCase());
}

describe("matchHostPattern", () => {
  it("keeps the spec's semantics: * is a run without dots, ** any run, case-insensitive", () => {
    expect(matchHostPattern("*.example.com", "api.example.com")).toBe(true);
    expect(matchHostPattern("*.example.com", "a.b.example.com")).toBe(false);
    expect(matchHostPattern("*.example.com", "example.com")).toBe(false);
    expect(matchHostPattern("**.example.com", "a.b.example.com")).toBe(true);
    expect(matchHostPattern("**.example.com", "example.com")).toBe(false);
    expect(matchHostPattern("API-*.Example.com", "api-v1.example.COM")).toBe(true);
    expect(matchHostPattern("a***b.com", "a.x.b.com")).toBe(true);
    expect(matchHostPattern("*", "")).toBe(true);
    expect(matchHostPattern("example.com", "example.com")).toBe(true);
  });

  it("answers exactly as the old regular expression on every short pattern and host", () => {
    const patterns = [...strings(["a", ".", "*"], 5)];
    const hosts = [...strings(["a", "b", "."], 5)];
    let compared = 0;
    for (const p of patterns) {
      for (const h of hosts) {
        if (matchHostPattern(p, h) !== regexOracle(p, h)) throw new Error(`differs on pattern ${JSON.stringify(p)} host ${JSON.stringify(h)}`);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(100_000);
  });

  it("counts wildcard runs", () => {
    expect(countWildcards("*.a.**.b-*")).toBe(3);
    expect(countWildcards("plain.com")).toBe(0);
  });

  it("never matches beyond the limits (too many wildcards, a host longer than DNS allows)", () => {
    const tooMany = Array.from({ length: MAX_HOST_PATTERN_WILDCARDS + 1 }, () => "*").join("a");
    expect(matchHostPattern(tooMany, "a".repeat(MAX_HOST_PATTERN_WILDCARDS))).toBe(false);
    expect(matchHostPattern("**", "a".repeat(MAX_HOSTNAME_LENGTH))).toBe(true);
    expect(matchHostPattern("**", "a".repeat(MAX_HOSTNAME_LENGTH + 1))).toBe(false);
  });

  it("stays fast on the worst patterns and hosts (the old expression took seconds)", () => {
    // The reported attack: alternating globstars and letters, against a long run of one letter without the final one.
    const attack = "**a**a**a**a**a**a**a**a**a**a**b";
    const allowed = "**a**a**a**a**a**a**a**a"; // 8 wildcards: the most a stored pattern may have
    const mixed = "*a*a*a*a**a**a**a**b";
    const hosts = ["a".repeat(MAX_HOSTNAME_LENGTH), "a".repeat(3000), `${"a.".repeat(126)}a`, "a".repeat(MAX_HOSTNAME_LENGTH - 1) + "c"];
    let worst = 0;
    for (const pattern of [attack, allowed, mixed, "*".repeat(253), `${"*.".repeat(8)}b`]) {
      for (const host of hosts) worst = Math.max(worst, timed(() => matchHostPattern(pattern, host)));
    }
    expect(worst).toBeLessThan(50);
    // A thousand worst-case matches (a project with many trusted domains, many requests) together stay well bounded.
    const total = timed(() => {
      for (let i = 0; i < 1000; i++) matchHostPattern(allowed, hosts[0]!);
    });
    expect(total).toBeLessThan(1000);
  });
});

describe("isRedirectUrlTrusted limits", () => {
  const trust = { allowLocalhost: false, trustedDomains: [{ baseUrl: "https://**a**a**a**a**a**a**a**a" }] };
  it("refuses a URL longer than MAX_URL_LENGTH without parsing it", () => {
    const long = `https://aaaa.aaaa/${"x".repeat(MAX_URL_LENGTH)}`;
    expect(isRedirectUrlTrusted(long, trust)).toBe(false);
    expect(isRedirectUrlTrusted("https://aaaa.aaaa/x", trust)).toBe(true);
  });
  it("answers a 3 kB callback against the worst allowed pattern in milliseconds", () => {
    const url = `https://${"a".repeat(60)}.${"a".repeat(60)}.${"a".repeat(60)}.${"a".repeat(60)}b/${"y".repeat(3000)}`;
    expect(timed(() => isRedirectUrlTrusted(url, trust))).toBeLessThan(50);
  });
});
