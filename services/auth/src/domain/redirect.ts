/**
 * Redirect-URL trust (contract/endpoints.md, last paragraph), evaluated by the auth service itself on the project's
 * rendered config (`domains.allowLocalhost`, `domains.trustedDomains.<id>.baseUrl`).
 *
 * A URL is trusted when
 *  - it has the same scheme, host and port as a trusted domain (default ports normalised: `https://a.com` and
 *    `https://a.com:443` are the same); the path, query and fragment are not compared. The domain's host may contain
 *    wildcards, with the semantics identity validates domains with: `*` stands for any run of characters without a
 *    dot (`*.example.com` matches `api.example.com`, not `example.com` nor `a.b.example.com`), `**` for any run
 *    including dots. A wildcard pattern without a port only matches URLs on the scheme's default port; or
 *  - localhost is allowed and its host is `localhost`, a `*.localhost` subdomain or an IPv4 address in 127.0.0.0/8.
 *
 * Pure functions, no I/O.
 */

export interface RedirectTrust {
  readonly allowLocalhost: boolean;
  /** Base URLs of the trusted domains (entries without one are left out by the caller). */
  readonly trustedDomains: readonly string[];
}

const DEFAULT_PORT: Readonly<Record<string, string>> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };

function tryParse(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function portOf(url: URL): string {
  return url.port !== "" ? url.port : (DEFAULT_PORT[url.protocol] ?? "");
}

/** `localhost`, `*.localhost` or 127.x.x.x (hostname without port, any case). */
export function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Matches a hostname against a host pattern with `*` (no dots) and `**` (anything) wildcards; case-insensitive. */
export function hostMatches(pattern: string, hostname: string): boolean {
  const p = pattern.toLowerCase();
  const h = hostname.toLowerCase();
  if (!p.includes("*")) return p === h;
  const source = p
    .split(/(\*+)/)
    .map((part) => (part.startsWith("*") ? (part.length > 1 ? ".*" : "[^.]*") : part.replace(/[\\^$.|?+()[\]{}-]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`).test(h);
}

/** True when `url` is an absolute URL that the rule above trusts. */
export function isRedirectUrlTrusted(url: string, trust: RedirectTrust): boolean {
  const target = tryParse(url);
  if (!target || target.hostname === "") return false;
  if (trust.allowLocalhost && isLocalhostName(target.hostname)) return true;
  for (const domain of trust.trustedDomains) {
    const base = tryParse(domain);
    if (!base || base.hostname === "") continue;
    if (base.protocol !== target.protocol) continue;
    if (portOf(base) !== portOf(target)) continue;
    if (hostMatches(base.hostname, target.hostname)) return true;
  }
  return false;
}
