/**
 * The project's hosted pages (README, "Hosted pages"): `/handler/<project-id>/<page>` on the frontends origin, and
 * whether that origin is trusted by the project, so that e-mail links and redirects made there come back to it.
 */
import { isLocalhost, type DomainSettings } from "@vestibule/ui/production-checks";

export const HOSTED_PAGES = [
  { page: "sign-in", label: "Sign-in page" },
  { page: "sign-up", label: "Sign-up page" },
  { page: "account-settings", label: "Account settings page" },
] as const;

/** The absolute URL of one of the project's hosted pages. */
export function hostedPageUrl(origin: string, projectId: string, page: string): string {
  return `${origin.replace(/\/+$/, "")}/handler/${encodeURIComponent(projectId)}/${page}`;
}

/** A trusted domain's host pattern as the API reads it: `*` is any run without a dot, `**` any run. */
function hostPattern(host: string): RegExp {
  const parts = host.split(/(\*\*|\*)/).map((p) => (p === "**" ? ".*" : p === "*" ? "[^.]*" : p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${parts.join("")}$`);
}

/**
 * Whether the API accepts callback URLs on `origin` for this project (services/shared/src/urls: localhost allowed,
 * or a trusted domain with the same scheme and port whose host pattern matches). Only a hint for the card.
 */
export function hostedOriginTrusted(settings: DomainSettings, origin: string): boolean {
  const url = new URL(origin);
  if (settings.allowLocalhost && isLocalhost(url.hostname)) return true;
  return settings.domains.some(({ domain }) => {
    try {
      const pattern = new URL(domain);
      return pattern.protocol === url.protocol && pattern.port === url.port && hostPattern(pattern.hostname).test(url.hostname);
    } catch {
      return false;
    }
  });
}
