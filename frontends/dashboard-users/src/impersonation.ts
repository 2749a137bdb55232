/**
 * Opening the app as a user (impersonation): the dashboard creates a one-hour impersonation session and gives the
 * owner one line to paste into the browser console of a tab of their app, which stores the session's refresh token
 * where the SDK's cookie token store reads it (refreshTokenCookieName) and
 * reloads. The app needs no special page for it, and the token never travels in an address.
 */
import { ACCESS_TOKEN_COOKIE_NAME, refreshTokenCookieName } from "@vestibule/js";

/** The app's address: the first trusted domain (its handler pages live there too); null when there is none. */
export function appBaseUrl(domains: readonly { domain: string }[]): string | null {
  const first = domains[0];
  return first ? first.domain.replace(/\/+$/, "") : null;
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
