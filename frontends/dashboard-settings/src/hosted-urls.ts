/**
 * The project's hosted pages (README, "Hosted pages"): `/handler/<project-id>/<page>` on the frontends origin, and
 * whether that origin is trusted by the project, so that e-mail links and redirects made there come back to it.
 */
import { isRedirectUrlTrusted } from "@vestibule/shared/urls";
import type { DomainSettings } from "@vestibule/ui/production-checks";

export const HOSTED_PAGES = [
  { page: "sign-in", label: "Sign-in page" },
  { page: "sign-up", label: "Sign-up page" },
  { page: "account-settings", label: "Account settings page" },
] as const;

/** The absolute URL of one of the project's hosted pages. */
export function hostedPageUrl(origin: string, projectId: string, page: string): string {
  return `${origin.replace(/\/+$/, "")}/handler/${encodeURIComponent(projectId)}/${page}`;
}

/**
 * Whether the API accepts callback URLs on `origin` for this project: the API's own rule (isRedirectUrlTrusted,
 * services/shared/src/urls), fed with the project's domain settings. Only a hint for the card.
 */
export function hostedOriginTrusted(settings: DomainSettings, origin: string): boolean {
  return isRedirectUrlTrusted(origin, { allowLocalhost: settings.allowLocalhost, trustedDomains: settings.domains.map(({ domain }) => ({ baseUrl: domain })) });
}
