import { int, oneOf, readConfig, type ConfigOf } from "@vestibule/shared/config";

/**
 * Settings of the auth service beyond the common ones (environment variables, read once at start).
 * Brute-force protection is on by default; windows are short and grow (see domain/backoff.ts).
 */
export const authConfigSpec = {
  rateLimitEnabled: oneOf("VESTIBULE_AUTH_RATE_LIMIT", "brute-force protection of sign-in and code checks", ["on", "off"], "on"),
  accountThreshold: int("VESTIBULE_AUTH_RATE_LIMIT_ACCOUNT_FAILURES", "failures per account (project + e-mail + method) before the first block", {
    default: 5,
    min: 1,
    max: 1000,
  }),
  ipThreshold: int("VESTIBULE_AUTH_RATE_LIMIT_IP_FAILURES", "failures per client IP before the first block", { default: 30, min: 1, max: 100_000 }),
  baseSeconds: int("VESTIBULE_AUTH_RATE_LIMIT_BASE_SECONDS", "first block window in seconds; each further failure doubles it", {
    default: 1,
    min: 1,
    max: 3600,
  }),
  maxSeconds: int("VESTIBULE_AUTH_RATE_LIMIT_MAX_SECONDS", "longest block window in seconds", { default: 60, min: 1, max: 86_400 }),
  resetSeconds: int("VESTIBULE_AUTH_RATE_LIMIT_RESET_SECONDS", "failures are forgotten after this many seconds without one", {
    default: 900,
    min: 1,
    max: 86_400 * 30,
  }),
  resetCodeMinMillis: int(
    "VESTIBULE_AUTH_RESET_CODE_MIN_MS",
    "minimum answer time of send-reset-code (with up to 50% jitter), so that it does not reveal whether the e-mail exists",
    { default: 400, min: 0, max: 10_000 },
  ),
};

export type AuthConfig = ConfigOf<typeof authConfigSpec>;

export function readAuthConfig(env: Readonly<Record<string, string | undefined>>): AuthConfig {
  return readConfig(authConfigSpec, env);
}
