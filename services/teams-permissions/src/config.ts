import { readConfig, type ConfigOf } from "@vestibule/shared/config";
import { rateLimitConfigSpec } from "@vestibule/shared/rate-limit";

/**
 * Settings of the teams-permissions service beyond the common ones (environment variables, read once at start):
 * brute-force protection of invitation codes, VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT* (on by default; 5 unknown
 * codes per account, 30 per client IP, then windows of 1 s, 2 s, 4 s ... up to 60 s; the same defaults as the auth
 * service's code checks).
 */
export const teamsConfigSpec = {
  ...rateLimitConfigSpec("TEAMS_PERMISSIONS"),
};

export type TeamsConfig = ConfigOf<typeof teamsConfigSpec>;

export function readTeamsConfig(env: Readonly<Record<string, string | undefined>>): TeamsConfig {
  return readConfig(teamsConfigSpec, env);
}
