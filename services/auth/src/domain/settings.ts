/**
 * The part of a project's rendered configuration (identity's `rendered_config_json`) the auth service acts on.
 * Missing or malformed values fall back to the defaults of a fresh project. Pure functions, no I/O.
 */
import { ipFailuresPerDayFromRendered } from "@vestibule/shared/rate-limit";
import { requiresEmailVerification } from "@vestibule/shared/restriction";
import type { RedirectTrust } from "./redirect.ts";

export interface AuthSettings {
  readonly projectId: string;
  readonly displayName: string;
  readonly allowSignUp: boolean;
  readonly passwordSignIn: boolean;
  /** Magic link / one-time code sign-in (`auth.otp.allowSignIn`, admin `magic_link_enabled`); off by default. */
  readonly otpSignIn: boolean;
  /** Passkey sign-in and registration (`auth.passkey.allowSignIn`, admin `passkey_enabled`); off by default. */
  readonly passkeySignIn: boolean;
  readonly refreshTokenRotation: boolean;
  /** Access-token lifetime; always > 20 s (the SDK refreshes when fewer than 20 s remain). */
  readonly accessTokenLifetimeSeconds: number;
  readonly redirectTrust: RedirectTrust;
  /** onboarding.requireEmailVerification: unverified users are restricted (token claims). */
  readonly requireEmailVerification: boolean;
  /** auth.ipFailuresPerDay: the project's per-IP failure budget, when it set one (issue 18). */
  readonly ipFailuresPerDay?: number;
}

export const DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS = 600;
/**
 * The longest access-token lifetime (issue 18): access tokens are not revoked by sign-out, so this bounds how long one
 * outlives its session. The config refuses more; a value stored before the cap is clamped here.
 */
export const MAX_ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === "boolean" ? value : fallback;
}

export function authSettingsFromRendered(projectId: string, displayName: string, renderedConfigJson: string): AuthSettings {
  let rendered: Json = {};
  try {
    rendered = obj(JSON.parse(renderedConfigJson || "{}"));
  } catch {
    rendered = {};
  }
  const auth = obj(rendered.auth);
  const domains = obj(rendered.domains);
  const lifetime = auth.accessTokenLifetimeSeconds;
  const trustedDomains = Object.values(obj(domains.trustedDomains))
    .map((d) => obj(d).baseUrl)
    .filter((u): u is string => typeof u === "string" && u !== "");
  return {
    projectId,
    displayName,
    allowSignUp: bool(auth.allowSignUp, true),
    passwordSignIn: bool(obj(auth.password).allowSignIn, true),
    otpSignIn: bool(obj(auth.otp).allowSignIn, false),
    passkeySignIn: bool(obj(auth.passkey).allowSignIn, false),
    refreshTokenRotation: bool(auth.refreshTokenRotation, false),
    accessTokenLifetimeSeconds:
      typeof lifetime === "number" && Number.isInteger(lifetime) && lifetime > 20
        ? Math.min(lifetime, MAX_ACCESS_TOKEN_LIFETIME_SECONDS)
        : DEFAULT_ACCESS_TOKEN_LIFETIME_SECONDS,
    redirectTrust: { allowLocalhost: bool(domains.allowLocalhost, true), trustedDomains },
    requireEmailVerification: requiresEmailVerification(rendered),
    ipFailuresPerDay: ipFailuresPerDayFromRendered(rendered),
  };
}
