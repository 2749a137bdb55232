/**
 * Handler routes and redirects (spec §2). Routes live under a configurable handler base (default `/handler`, must
 * start with a slash); redirect defaults chain home → after-sign-in → after-sign-up; `after_auth_return_to` is carried
 * over between sign-in and sign-up and used as the destination after sign-in. Redirect targets must be relative (or
 * on the page's own origin), otherwise 'Redirect URL is not trusted; should be relative.'.
 */

export const DEFAULT_HANDLER_PATH = "/handler";
export const AFTER_AUTH_RETURN_TO_PARAM = "after_auth_return_to";
export const UNTRUSTED_REDIRECT_MESSAGE = "Redirect URL is not trusted; should be relative.";
export const HANDLER_PATH_MESSAGE = "The handler path must start with a slash (/)";
/** How long a redirect waits after asking the browser to navigate, so the calling code does not run on (spec §9). */
export const REDIRECT_PAUSE_MS = 2_000;

export interface HandlerUrls {
  readonly handler: string;
  readonly signIn: string;
  readonly signUp: string;
  readonly afterSignIn: string;
  readonly afterSignUp: string;
  readonly signOut: string;
  readonly afterSignOut: string;
  readonly emailVerification: string;
  readonly passwordReset: string;
  readonly forgotPassword: string;
  readonly home: string;
  readonly oauthCallback: string;
  readonly magicLinkCallback: string;
  readonly accountSettings: string;
  readonly teamInvitation: string;
  readonly mfa: string;
  readonly error: string;
  readonly cliAuthConfirm: string;
}

/** The handler pages, relative to the handler base. */
export const HANDLER_PAGES = [
  "sign-in",
  "sign-up",
  "sign-out",
  "email-verification",
  "password-reset",
  "forgot-password",
  "oauth-callback",
  "magic-link-callback",
  "account-settings",
  "error",
  "team-invitation",
  "mfa",
  "cli-auth-confirm",
] as const;

export function resolveHandlerUrls(partial: Partial<HandlerUrls> = {}): HandlerUrls {
  const handler = partial.handler ?? DEFAULT_HANDLER_PATH;
  if (!handler.startsWith("/")) throw new Error(HANDLER_PATH_MESSAGE);
  const base = handler.replace(/\/+$/, "");
  const home = partial.home ?? "/";
  const afterSignIn = partial.afterSignIn ?? home;
  return {
    handler,
    signIn: `${base}/sign-in`,
    signUp: `${base}/sign-up`,
    signOut: `${base}/sign-out`,
    emailVerification: `${base}/email-verification`,
    passwordReset: `${base}/password-reset`,
    forgotPassword: `${base}/forgot-password`,
    oauthCallback: `${base}/oauth-callback`,
    magicLinkCallback: `${base}/magic-link-callback`,
    accountSettings: `${base}/account-settings`,
    teamInvitation: `${base}/team-invitation`,
    mfa: `${base}/mfa`,
    error: `${base}/error`,
    cliAuthConfirm: `${base}/cli-auth-confirm`,
    ...partial,
    home,
    afterSignIn,
    afterSignUp: partial.afterSignUp ?? afterSignIn,
    afterSignOut: partial.afterSignOut ?? home,
  };
}

/**
 * True for a path on the current site (`/x`, `x?y`, but not `//host`) or an absolute URL on `currentOrigin`.
 */
export function isTrustedRedirect(url: string, currentOrigin: string | null): boolean {
  // Browsers drop tabs and line breaks from a URL and trim spaces and control characters around it, so "/\t/evil.com"
  // or " //evil.com" would navigate to another host: such text is never a path on the current site (issue 18).
  if (/[\u0000-\u001f\u007f]/.test(url) || url.trim() !== url) return currentOrigin !== null && sameOrigin(url, currentOrigin);
  if (/^[a-zA-Z][a-zA-Z\d+\-.]*:/.test(url) || url.startsWith("//") || url.startsWith("\\\\") || url.startsWith("/\\")) {
    if (currentOrigin === null) return false;
    try {
      return new URL(url, currentOrigin).origin === currentOrigin;
    } catch {
      return false;
    }
  }
  return true;
}

function sameOrigin(url: string, currentOrigin: string): boolean {
  try {
    return new URL(url, currentOrigin).origin === currentOrigin;
  } catch {
    return false;
  }
}

/**
 * The `after_auth_return_to` target a page may link to: the value as a path on the current page's origin (resolved
 * the way the browser will resolve it), or null when it points elsewhere, is not a web URL, or there is no value.
 */
export function safeReturnTo(value: string | null, currentHref: string | null): string | null {
  if (!value || currentHref === null) return null;
  let current: URL;
  let target: URL;
  try {
    current = new URL(currentHref);
    target = new URL(value, current);
  } catch {
    return null;
  }
  if (target.origin !== current.origin || (target.protocol !== "https:" && target.protocol !== "http:")) return null;
  return target.pathname + target.search + target.hash;
}

export function assertTrustedRedirect(url: string, currentOrigin: string | null): void {
  if (!isTrustedRedirect(url, currentOrigin)) throw new Error(UNTRUSTED_REDIRECT_MESSAGE);
}

/** Adds or replaces query parameters of a (possibly relative) URL, keeping it relative. */
export function withQuery(url: string, params: Record<string, string | undefined>): string {
  const u = new URL(url, "http://relative.invalid");
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.origin === "http://relative.invalid" ? u.pathname + u.search + u.hash : u.toString();
}

/** An absolute URL for a handler route, for links in e-mails (needs a browser location unless already absolute). */
export function absoluteUrl(url: string, currentHref: string | null): string | null {
  try {
    return new URL(url).toString();
  } catch {
    return currentHref === null ? null : new URL(url, currentHref).toString();
  }
}
