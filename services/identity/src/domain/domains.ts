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

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

/** Parses a string with the WHATWG URL parser; undefined when it is not an absolute URL. */
function parseUrl(value: string | URL): URL | undefined {
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
 * Why a host pattern is not acceptable, or null when it is. Rules (spec section 5): not empty, no leading or
 * trailing dot, no two dots in a row, only letters, digits, dots, hyphens and `*` wildcards. A bracketed IPv6
 * literal (`[::1]`) is also accepted as a plain host.
 */
export function hostPatternProblem(host: string): string | null {
  if (host === "") return "host must not be empty";
  if (host.startsWith("[") && host.endsWith("]")) {
    return parseUrl(`http://${host}`) ? null : `host is not a valid IPv6 literal: ${host}`;
  }
  if (host.startsWith(".")) return `host must not start with a dot: ${host}`;
  if (host.endsWith(".")) return `host must not end with a dot: ${host}`;
  if (host.includes("..")) return `host must not contain two dots in a row: ${host}`;
  if (!/^[A-Za-z0-9.*-]+$/.test(host)) {
    return `host may only contain letters, digits, dots, hyphens and * wildcards: ${host}`;
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

/**
 * Localhost detection (spec section 5): `localhost`, any `*.localhost` subdomain, or an IPv4 address in 127.0.0.0/8.
 * Takes a bare hostname (no port); case-insensitive.
 */
export function isLocalhost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** `isLocalhost` applied to the hostname of a URL; false for strings that are not absolute URLs. */
export function isLocalhostUrl(url: string | URL): boolean {
  const parsed = parseUrl(url);
  return parsed !== undefined && isLocalhost(parsed.hostname);
}

/** True when `hostname` matches `pattern` (exact, case-insensitive, or with `*` / `**` wildcards). */
export function matchHostPattern(pattern: string, hostname: string): boolean {
  const p = pattern.toLowerCase();
  const h = hostname.toLowerCase();
  if (!p.includes("*")) return p === h;
  let regex = "";
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "*") {
      if (p[i + 1] === "*") {
        while (p[i + 1] === "*") i++;
        regex += ".*";
      } else {
        regex += "[^.]*";
      }
    } else {
      regex += c.replace(/[.+?^${}()|[\]\\-]/g, "\\$&");
    }
  }
  return new RegExp(`^${regex}$`).test(h);
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
 * Relative URLs are not handled here (the SDK resolves them against the current page).
 */
export function isRedirectUrlTrusted(url: string | URL, options: RedirectTrustOptions): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  if (options.allowLocalhost && isLocalhost(parsed.hostname)) return true;
  return options.trustedDomains.some((d) => d.baseUrl !== undefined && matchesTrustedDomain(parsed, d.baseUrl));
}
