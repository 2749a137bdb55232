/**
 * Production-mode domain checks (product spec section 5). Each problem links to the project's domains page.
 * Pure functions: no I/O.
 */

import { adminDomainsFromRendered } from "./config/index.ts";
import type { RenderedConfig } from "./config/index.ts";
import { isLocalhost } from "./domains.ts";

export type ProductionModeProblemId =
  | "localhost_allowed"
  | "domain_invalid_url"
  | "domain_localhost"
  | "domain_ip"
  | "domain_not_https";

export interface ProductionModeProblem {
  /** Stable identifier of the kind of problem (several domains may share one). */
  id: ProductionModeProblemId;
  message: string;
  /** Relative dashboard link that fixes it: `/projects/<projectId>/domains`. */
  fixLink: string;
}

/** A hostname that is a bare IP address: dotted digits (IPv4) or a bracketed IPv6 literal. */
function isIpHost(hostname: string): boolean {
  return /^\d+(\.\d+)*$/.test(hostname) || (hostname.startsWith("[") && hostname.endsWith("]"));
}

/**
 * What keeps a project from being safe in production mode, in this order: `allow_localhost` on, then for each
 * trusted domain (sorted by domain, as the admin view lists them) at most one of: not a valid URL, a localhost
 * host, a bare IP host, not HTTPS (checked in that order, as the reference does).
 */
export function productionModeProblems(projectId: string, rendered: RenderedConfig): ProductionModeProblem[] {
  const fixLink = `/projects/${projectId}/domains`;
  const problems: ProductionModeProblem[] = [];
  if (rendered.domains.allowLocalhost) {
    problems.push({
      id: "localhost_allowed",
      message: "Localhost is not allowed in production mode, turn off 'Allow localhost' in project settings",
      fixLink,
    });
  }
  for (const { domain } of adminDomainsFromRendered(rendered)) {
    let url: URL;
    try {
      url = new URL(domain);
    } catch {
      problems.push({ id: "domain_invalid_url", message: `Trusted domain is not a valid URL: ${domain}`, fixLink });
      continue;
    }
    if (isLocalhost(url.hostname)) {
      problems.push({
        id: "domain_localhost",
        message: `Localhost domains are not allowed to be trusted in production mode: ${domain}`,
        fixLink,
      });
    } else if (isIpHost(url.hostname)) {
      problems.push({
        id: "domain_ip",
        message: `Direct IPs are not valid for trusted domains in production mode: ${domain}`,
        fixLink,
      });
    } else if (url.protocol !== "https:") {
      problems.push({ id: "domain_not_https", message: `Trusted domains should be HTTPS: ${domain}`, fixLink });
    }
  }
  return problems;
}
