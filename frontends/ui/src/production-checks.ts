/**
 * The production-mode checks of a project's domain settings (spec §5), each with the spec's message and a fix link
 * target (the trusted-domains page). Pure: used by the auth-methods area and the project settings area, unit-tested.
 * Imported as `@vestibule/ui/production-checks`: dashboard-only, so not in the hosted pages' bundle.
 * The allow-localhost text names the page where that switch is (the API's own text says "project settings", which
 * in this dashboard is a different page: issue 21 item 8).
 */

export interface ProductionCheck {
  readonly message: string;
  /** What to open to fix it: the trusted domains list, or the allow-localhost switch next to it. */
  readonly fix: "domains" | "allow-localhost";
}

export interface DomainSettings {
  readonly allowLocalhost: boolean;
  readonly domains: readonly { readonly domain: string }[];
}

export function isLocalhost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "[::1]";
}

function isIp(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith("[");
}

export function productionModeChecks(settings: DomainSettings): ProductionCheck[] {
  const problems: ProductionCheck[] = [];
  if (settings.allowLocalhost) {
    problems.push({ message: "Localhost is not allowed in production mode: turn off 'Allow localhost' on the Auth methods page", fix: "allow-localhost" });
  }
  for (const { domain } of settings.domains) {
    let url: URL;
    try {
      // Wildcards are allowed in trusted hosts; they parse once replaced.
      url = new URL(domain.replace(/\*/g, "wildcard"));
    } catch {
      problems.push({ message: `Trusted domain is not a valid URL: ${domain}`, fix: "domains" });
      continue;
    }
    if (isLocalhost(url.hostname)) problems.push({ message: `Localhost domains are not allowed to be trusted in production mode: ${domain}`, fix: "domains" });
    else if (isIp(url.hostname)) problems.push({ message: `Direct IPs are not valid for trusted domains in production mode: ${domain}`, fix: "domains" });
    else if (url.protocol !== "https:") problems.push({ message: `Trusted domains should be HTTPS: ${domain}`, fix: "domains" });
  }
  return problems;
}
