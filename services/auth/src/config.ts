import { int, readConfig, type ConfigOf } from "@vestibule/shared/config";
import { rateLimitConfigSpec } from "@vestibule/shared/rate-limit";

/**
 * Settings of the auth service beyond the common ones (environment variables, read once at start).
 * Brute-force protection (VESTIBULE_AUTH_RATE_LIMIT*) is on by default; windows are short and grow
 * (@vestibule/shared/rate-limit).
 */
export const authConfigSpec = {
  ...rateLimitConfigSpec("AUTH"),
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
