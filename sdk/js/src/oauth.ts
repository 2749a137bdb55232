/**
 * The OAuth start and callback of the browser flow (spec §4): before redirecting to the provider a PKCE code verifier
 * is saved in a short-lived cookie named after the state, with an S256 code challenge; on return the verifier is read
 * and removed, and a callback whose verifier is missing is ignored with a warning.
 */
import { bytesToBase64 } from "@vestibule/sdk-core";

export const PKCE_METHOD = "S256";
export const OAUTH_VERIFIER_COOKIE_MAX_AGE_SECONDS = 3_600;
export const oauthVerifierCookieName = (state: string): string => `stack-oauth-outer-${state}`;
export const OAUTH_INVALID_TOTP_MESSAGE = "Invalid TOTP code. Please try signing in again.";
export const OAUTH_CALLBACK_ERROR_MESSAGE = "Error signing in during OAuth callback. Please try again.";
export const OAUTH_MISSING_VERIFIER_WARNING =
  "OAuth callback ignored: no code verifier was found for its state (the sign-in was started in another browser, or the page was reloaded after the callback ran).";

export function base64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function randomBase64Url(byteLength: number): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

/** S256 challenge of a verifier: base64url(SHA-256(ASCII(verifier))). */
export async function codeChallengeS256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

export interface PkceStart {
  readonly verifier: string;
  readonly challenge: string;
  readonly state: string;
}

export async function createPkce(): Promise<PkceStart> {
  const verifier = randomBase64Url(32); // 43 characters, within RFC 7636's 43-128
  return { verifier, challenge: await codeChallengeS256(verifier), state: randomBase64Url(24) };
}

export function verifierCookie(state: string, verifier: string, secure: boolean): string {
  return `${oauthVerifierCookieName(state)}=${encodeURIComponent(verifier)}; max-age=${OAUTH_VERIFIER_COOKIE_MAX_AGE_SECONDS}; path=/; samesite=lax${secure ? "; secure" : ""}`;
}

export function deleteCookieAssignment(name: string): string {
  return `${name}=; max-age=0; path=/; samesite=lax`;
}

/** The callback URL without its `code` and `state` parameters (spec §5: OAuth callback redirect URLs drop them). */
export function stripCodeAndState(href: string): string {
  const u = new URL(href);
  u.searchParams.delete("code");
  u.searchParams.delete("state");
  return u.toString();
}
