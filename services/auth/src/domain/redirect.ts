/**
 * Redirect-URL trust for the auth service, on the project's rendered config (`domains.allowLocalhost`,
 * `domains.trustedDomains.<id>.baseUrl`). The rule itself lives in @vestibule/shared/urls, which identity uses to
 * validate the same domains, so both services apply one rule.
 */
import { isLocalhost, isRedirectUrlTrusted as trusted, matchHostPattern } from "@vestibule/shared/urls";

export interface RedirectTrust {
  readonly allowLocalhost: boolean;
  /** Base URLs of the trusted domains (entries without one are left out by the caller). */
  readonly trustedDomains: readonly string[];
}

/** `localhost`, `*.localhost` or 127.x.x.x (hostname without port, any case). */
export const isLocalhostName = isLocalhost;

/** Matches a hostname against a host pattern with `*` (no dots) and `**` (anything) wildcards; case-insensitive. */
export const hostMatches = matchHostPattern;

/** True when `url` is an absolute URL that the contract's rule trusts. */
export function isRedirectUrlTrusted(url: string, trust: RedirectTrust): boolean {
  return trusted(url, { allowLocalhost: trust.allowLocalhost, trustedDomains: trust.trustedDomains.map((baseUrl) => ({ baseUrl })) });
}
