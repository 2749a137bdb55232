/**
 * Which project's hosted pages an address asks for (README, "Hosted pages"): `/handler/<project-id>/<page>` shows the
 * pages of that project (a UUID, or `internal`); `/handler/<page>` those of the project the deployment configures
 * (/config.json's `handlerProjectId`). Page names have letters past f, so 36 hex digits and dashes are never a page (a
 * loose UUID check: the sign-in page's bundle is at its budget; the API answers an id that is no project).
 */
export function hostedProjectId(pathname: string): string | null {
  return /^\/handler\/([\da-f-]{36}|internal)(\/|$)/i.exec(pathname)?.[1] ?? null;
}
