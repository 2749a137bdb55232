import { Type } from "typebox";
import type { CachedProject } from "../../auth/caches.ts";
import { defineRoute } from "../route.ts";

const CLIENT_CONFIG_KEYS = [
  "sign_up_enabled",
  "credential_enabled",
  "magic_link_enabled",
  "passkey_enabled",
  "client_team_creation_enabled",
  "client_user_deletion_enabled",
  "allow_user_api_keys",
  "allow_team_api_keys",
  "enabled_oauth_providers",
] as const;

/** The client view of a project (`GET /projects/current`): what any app with the publishable key may know. */
export function clientProjectView(p: CachedProject): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const key of CLIENT_CONFIG_KEYS) config[key] = p.adminConfig[key];
  // The current SDK reads the trusted domains and allow_localhost to find trusted parent domains (latest-sdk.md B).
  config.allow_localhost = p.adminConfig.allow_localhost;
  config.domains = p.adminConfig.domains;
  return { id: p.project.id, display_name: p.project.displayName, config };
}

export const getCurrentProjectRoute = defineRoute({
  method: "GET",
  path: "/projects/current",
  summary: "The current project as clients see it",
  tags: ["Projects"],
  access: ["client", "server", "admin"],
  schemas: {},
  async handler({ auth }) {
    return { json: clientProjectView(auth.project) };
  },
});
