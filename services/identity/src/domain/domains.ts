/**
 * Trusted domains, localhost detection and redirect-URL trust (product spec section 5; endpoints.md, last paragraph).
 *
 * A trusted domain is an http(s) URL whose host may contain `*` wildcards, e.g. `https://*.example.com:8443`.
 * Wildcards follow the reference implementation: `*` matches any run of characters except a dot (so
 * `*.example.com` matches `api.example.com` but neither `example.com` nor `a.b.example.com`), and `**` matches any
 * run including dots (`**.example.com` matches `a.b.example.com`).
 *
 * Pure functions: no I/O.
 */

import {
  countWildcards,
  isLocalhost,
  MAX_HOST_PATTERN_LENGTH,
  MAX_HOST_PATTERN_WILDCARDS,
  MAX_URL_LENGTH,
  parseUrl,
} from "@vestibule/shared/urls";

export { isLocalhost, isRedirectUrlTrusted, matchHostPattern, type RedirectTrustOptions } from "@vestibule/shared/urls";

/**
 * Why a host pattern is not acceptable, or null when it is. Rules (spec section 5): not empty, no leading or
 * trailing dot, no two dots in a row, only letters, digits, dots, hyphens and `*` wildcards. A bracketed IPv6
 * literal (`[::1]`) is also accepted as a plain host. Limits that keep matching cheap: at most
 * `MAX_HOST_PATTERN_LENGTH` characters and `MAX_HOST_PATTERN_WILDCARDS` wildcards.
 */
export function hostPatternProblem(host: string): string | null {
  if (host === "") return "host must not be empty";
  if (host.length > MAX_HOST_PATTERN_LENGTH) return `host must be at most ${MAX_HOST_PATTERN_LENGTH} characters`;
  if (host.startsWith("[") && host.endsWith("]")) {
    return parseUrl(`http://${host}`) ? null : `host is not a valid IPv6 literal: ${host}`;
  }
  if (host.startsWith(".")) return `host must not start with a dot: ${host}`;
  if (host.endsWith(".")) return `host must not end with a dot: ${host}`;
  if (host.includes("..")) return `host must not contain two dots in a row: ${host}`;
  if (!/^[A-Za-z0-9.*-]+$/.test(host)) {
    return `host may only contain letters, digits, dots, hyphens and * wildcards: ${host}`;
  }
  if (countWildcards(host) > MAX_HOST_PATTERN_WILDCARDS) {
    return `host may have at most ${MAX_HOST_PATTERN_WILDCARDS} wildcards: ${host}`;
  }
  return null;
}

/** True when `host` is an acceptable host pattern (see `hostPatternProblem`). */
export function isValidHostPattern(host: string): boolean {
  return hostPatternProblem(host) === null;
}

/**
 * Why a trusted domain (as stored in `domains.trustedDomains.<id>.baseUrl` / the admin `domains[].domain`) is not
 * acceptable, or null. It must be an absolute `http://` or `https://` URL without user info, whose host is a valid
 * host pattern and whose port, if any, is numeric. A path is allowed (it is ignored when matching).
 */
export function trustedDomainProblem(domain: string): string | null {
  if (domain.length > MAX_URL_LENGTH) return `Trusted domain must be at most ${MAX_URL_LENGTH} characters`;
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(domain);
  if (!match) return `Trusted domain must be an http(s) URL: ${domain}`;
  const scheme = match[1]!.toLowerCase();
  if (scheme !== "http" && scheme !== "https") return `Trusted domain must use http or https: ${domain}`;
  const authority = match[2]!;
  if (authority.includes("@")) return `Trusted domain must not contain user info: ${domain}`;
  let host = authority;
  let port: string | undefined;
  if (authority.startsWith("[")) {
    const end = authority.indexOf("]");
    if (end === -1) return `Trusted domain has an invalid host: ${domain}`;
    host = authority.slice(0, end + 1);
    const rest = authority.slice(end + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) return `Trusted domain has an invalid host: ${domain}`;
      port = rest.slice(1);
    }
  } else {
    const colon = authority.lastIndexOf(":");
    if (colon !== -1) {
      host = authority.slice(0, colon);
      port = authority.slice(colon + 1);
    }
  }
  const hostProblem = hostPatternProblem(host);
  if (hostProblem) return `Trusted domain has an invalid host (${hostProblem}): ${domain}`;
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return `Trusted domain has an invalid port: ${domain}`;
  if (port !== undefined && Number(port) > 65535) return `Trusted domain has an invalid port: ${domain}`;
  if (!parseUrl(domain)) return `Trusted domain is not a valid URL: ${domain}`;
  return null;
}

/** `isLocalhost` applied to the hostname of a URL; false for strings that are not absolute URLs. */
export function isLocalhostUrl(url: string | URL): boolean {
  const parsed = parseUrl(url);
  return parsed !== undefined && isLocalhost(parsed.hostname);
}

