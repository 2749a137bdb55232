/** Configs of the seeded projects. */

import type { AdminConfigUpdate } from "./admin-update.ts";

// ---------------------------------------------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------------------------------------------

/**
 * Config of the `internal` (dashboard) project in development (headers-and-auth.md section 4): sign-up, password
 * and OTP on, localhost allowed, a personal team on sign-up, client team creation. Stack's seed also enables shared
 * GitHub, Spotify, Google and Microsoft sign-in; here `npm start` enables them in development only, where its
 * development identity provider stands behind the shared keys (deploy/src/dev-idp/launch.ts): a production deployment
 * has shared keys only once VESTIBULE_OAUTH_SHARED_KEYS is configured, so the seed leaves them out.
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
