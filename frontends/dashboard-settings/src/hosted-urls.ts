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

/** Whether the API accepts callback URLs on `origin` for this project: localhost allowed, or a trusted domain. */
export function hostedOriginTrusted(settings: DomainSettings, origin: string): boolean {
  const url = new URL(origin);
  if (settings.allowLocalhost && isLocalhost(url.hostname)) return true;
  return settings.domains.some(({ domain }) => {
    try {
      return new URL(domain).origin === url.origin;
    } catch {
      return false;
    }
  });
}
