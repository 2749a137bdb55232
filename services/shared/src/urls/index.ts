/**
 * Redirect-URL trust (product spec section 5; contract endpoints.md, last paragraph): localhost detection, host
 * patterns with wildcards, and the rule that decides whether a callback URL may be used. Pure functions, shared by
 * identity (which validates trusted domains) and auth (which checks callback URLs), so both apply one rule.
 *
 * Wildcards follow the reference implementation: `*` matches any run of characters except a dot (so
 * `*.example.com` matches `api.example.com` but neither `example.com` nor `a.b.example.com`), and `**` matches any
 * run including dots. Matching is linear-bounded (host-pattern.ts), never a backtracking regular expression built from
 * configuration.
 */
import { matchHostPattern } from "./host-pattern.ts";

export {
  countWildcards,
  matchHostPattern,
  MAX_HOST_PATTERN_LENGTH,
  MAX_HOST_PATTERN_WILDCARDS,
  MAX_HOSTNAME_LENGTH,
} from "./host-pattern.ts";

/**
 * The longest URL accepted in a URL field (callback, redirect, trusted domain, ...): the gateway's schemas refuse
 * longer ones and the services refuse to trust them. Image URLs (data: URLs) have their own, larger limit.
 */
export const MAX_URL_LENGTH = 4096;

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

/** Parses a string with the WHATWG URL parser; undefined when it is not an absolute URL. */
export function parseUrl(value: string | URL): URL | undefined {
  if (value instanceof URL) return value;
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The port a URL really uses: the explicit one, else the scheme's default (empty for unknown schemes). */
function effectivePort(url: URL): string {
  return url.port || DEFAULT_PORTS[url.protocol] || "";
}

/**
 * Localhost detection (spec section 5): `localhost`, any `*.localhost` subdomain, or an IPv4 address in 127.0.0.0/8.
 * Takes a bare hostname (no port); case-insensitive.
 */
export function isLocalhost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export interface RedirectTrustOptions {
  /** Trusted domains (`domains.trustedDomains.*.baseUrl`); entries without a base URL are ignored. */
  trustedDomains: readonly { baseUrl?: string | undefined }[];
  allowLocalhost: boolean;
}

/** True when `url` matches one trusted domain: same scheme, matching host, same port (default ports normalised). */
function matchesTrustedDomain(url: URL, baseUrl: string): boolean {
  // The WHATWG parser accepts `*` in hosts, lower-cases hosts and drops explicit default ports, so an explicit
  // `:443` on an https pattern is the same as no port: both require the URL to use the default port.
  const pattern = parseUrl(baseUrl);
  if (!pattern) return false;
  if (pattern.protocol !== url.protocol) return false;
  if (effectivePort(pattern) !== effectivePort(url)) return false;
  return matchHostPattern(pattern.hostname, url.hostname);
}

/**
 * The contract's redirect-URL trust rule. A URL is trusted when
 *  - it is an absolute URL with the same scheme, host and port (default ports normalised) as a trusted domain;
 *    the host may match a wildcard pattern, and then the URL's port must equal the pattern's port, or be the
 *    default port when the pattern has none; the path, query and fragment are not compared; or
 *  - `allowLocalhost` is on and its host is `localhost`, a `*.localhost` subdomain or `127.x.x.x` (any port).
 * Relative URLs are not handled here (the SDK resolves them against the current page). URLs longer than
 * `MAX_URL_LENGTH` are never trusted.
 */
export function isRedirectUrlTrusted(url: string | URL, options: RedirectTrustOptions): boolean {
  if (typeof url === "string" && url.length > MAX_URL_LENGTH) return false;
  const parsed = parseUrl(url);
  if (!parsed) return false;
  if (options.allowLocalhost && isLocalhost(parsed.hostname)) return true;
  return options.trustedDomains.some((d) => d.baseUrl !== undefined && matchesTrustedDomain(parsed, d.baseUrl));
}
