/** Configs of the seeded projects. */

import type { AdminConfigUpdate } from "./admin-update.ts";

// ---------------------------------------------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------------------------------------------

/**
 * Config of the `internal` (dashboard) project in development (headers-and-auth.md section 4): sign-up, password
 * and OTP on, localhost allowed, a personal team on sign-up, client team creation. Stack's seed also enables shared
 * GitHub, Spotify, Google and Microsoft sign-in; Vestibule does not serve the OAuth flow yet
 * (`/auth/oauth/authorize/*`), so its seed leaves them out rather than show the dashboard's users buttons that fail.
 * Store it with `overrideFromAdminConfigUpdate`.
 */
export function internalProjectSeedConfig(): AdminConfigUpdate {
  return {
    sign_up_enabled: true,
    credential_enabled: true,
    magic_link_enabled: true,
    allow_localhost: true,
    create_team_on_sign_up: true,
    client_team_creation_enabled: true,
  };
}

/**
 * Config of the local-development demo project: password and magic link on, localhost allowed, client team
 * creation, a personal team on sign-up, user and team API keys. Store it with `overrideFromAdminConfigUpdate`.
 */
export function demoProjectSeedConfig(): AdminConfigUpdate {
  return {
    sign_up_enabled: true,
    credential_enabled: true,
    magic_link_enabled: true,
    allow_localhost: true,
    client_team_creation_enabled: true,
    create_team_on_sign_up: true,
    allow_user_api_keys: true,
    allow_team_api_keys: true,
  };
}
