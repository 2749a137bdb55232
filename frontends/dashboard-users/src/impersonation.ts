/**
 * Opening the app as a user (impersonation). With a trusted domain, the dashboard asks for a single-use, one-minute
 * ticket and opens the app's handler page `<domain><handlerPath>/impersonate?ticket=...`, which exchanges it for a
 * one-hour impersonation session and lands in the app signed in as the user. For apps without Vestibule's handler pages
 * (and projects without a trusted domain) it creates the session itself and gives the owner one line to paste into the
 * browser console of a tab of their app, which stores the session's refresh token where the SDK's cookie token store
 * reads it (refreshTokenCookieName) and reloads. Either way the refresh token never travels in an address.
 */
import { ACCESS_TOKEN_COOKIE_NAME, refreshTokenCookieName } from "@vestibule/js";

/** The app's address: the first trusted domain (its handler pages live there too); null when there is none. */
export function appBaseUrl(domains: readonly { domain: string }[]): string | null {
  const first = domains[0];
  return first ? first.domain.replace(/\/+$/, "") : null;
}

/** The app's impersonation page for a ticket, on the first trusted domain; null when there is none. */
export function impersonationUrl(domains: readonly { domain: string; handlerPath: string }[], ticket: string): string | null {
  const base = appBaseUrl(domains);
  if (!base) return null;
  const url = new URL(`${base}${domains[0]!.handlerPath.replace(/\/+$/, "")}/impersonate`);
  url.searchParams.set("ticket", ticket);
  return url.toString();
}

/** The console line that signs the tab in with the session's refresh token (any older access token is dropped). */
export function impersonationSnippet(projectId: string, refreshToken: string): string {
  const attrs = "; path=/; samesite=lax; max-age=3600";
  return (
    `document.cookie = "${ACCESS_TOKEN_COOKIE_NAME}=; path=/; max-age=0"; ` +
    `document.cookie = "${refreshTokenCookieName(projectId)}=${encodeURIComponent(refreshToken)}${attrs}" + (location.protocol === "https:" ? "; secure" : ""); ` +
    `location.reload();`
  );
}
