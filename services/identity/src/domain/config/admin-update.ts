/** Admin config updates (the `config` of the project create/update bodies) turned into overrides. */

import type { AdminDomain, AdminEmailConfig } from "./views.ts";
import type { ConfigObject, ConfigOverride, ConfigValue, OAuthAccountMergeStrategy } from "./types.ts";

/** One OAuth provider in a config update. `enabled` (default true) is accepted from older dashboards. */
export interface AdminOAuthProviderUpdate {
  id: string;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
  facebook_config_id?: string;
  microsoft_tenant_id?: string;
  apple_bundle_ids?: string[];
  enabled?: boolean;
}

/** The `config` of `POST /internal/projects` / `PATCH /internal/projects/current`: any subset of these fields. */
export interface AdminConfigUpdate {
  sign_up_enabled?: boolean;
  credential_enabled?: boolean;
  magic_link_enabled?: boolean;
  passkey_enabled?: boolean;
  client_team_creation_enabled?: boolean;
  client_user_deletion_enabled?: boolean;
  allow_localhost?: boolean;
  allow_user_api_keys?: boolean;
  allow_team_api_keys?: boolean;
  email_config?: AdminEmailConfig;
  email_theme?: string;
  domains?: AdminDomain[];
  oauth_providers?: AdminOAuthProviderUpdate[];
  create_team_on_sign_up?: boolean;
  team_creator_default_permissions?: { id: string }[];
  team_member_default_permissions?: { id: string }[];
  user_default_permissions?: { id: string }[];
  oauth_account_merge_strategy?: OAuthAccountMergeStrategy;
}


/** Writes `value` as the whole new content of `path`: `null` first (drops the old content and the defaults). */
function replaceAt(out: ConfigOverride, path: string, value: ConfigObject): void {
  out[path] = null;
  for (const [key, v] of Object.entries(value)) out[`${path}.${key}`] = v;
}

function definedOnly(o: Record<string, ConfigValue | undefined>): ConfigObject {
  const out: ConfigObject = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

function permissionSetOverride(list: readonly { id: string }[]): ConfigObject {
  return Object.fromEntries(list.map((p) => [p.id, true]));
}

/**
 * The override a config update (contract field names, any subset) produces. Scalars become dotted paths; list
 * fields (`domains`, `oauth_providers`, the three default permission lists) and `email_config` replace their
 * whole target (`null` at the path, then the new entries), so what was there before, defaults included, is gone.
 * Trusted domains get the ids "0", "1", ... in list order (pure and deterministic). OAuth providers are keyed by
 * their type id; `enabled: false` keeps a provider with `allowSignIn`/`allowConnectedAccounts` false.
 * Does not validate; use `validateAdminConfigUpdate` first.
 */
export function overrideFromAdminConfigUpdate(update: AdminConfigUpdate): ConfigOverride {
  const out: ConfigOverride = {};
  const scalar = (path: string, value: boolean | string | undefined): void => {
    if (value !== undefined) out[path] = value;
  };
  scalar("auth.allowSignUp", update.sign_up_enabled);
  scalar("auth.password.allowSignIn", update.credential_enabled);
  scalar("auth.otp.allowSignIn", update.magic_link_enabled);
  scalar("auth.passkey.allowSignIn", update.passkey_enabled);
  scalar("auth.oauth.accountMergeStrategy", update.oauth_account_merge_strategy);
  scalar("teams.allowClientTeamCreation", update.client_team_creation_enabled);
  scalar("teams.createPersonalTeamOnSignUp", update.create_team_on_sign_up);
  scalar("users.allowClientUserDeletion", update.client_user_deletion_enabled);
  scalar("domains.allowLocalhost", update.allow_localhost);
  scalar("apiKeys.enabled.user", update.allow_user_api_keys);
  scalar("apiKeys.enabled.team", update.allow_team_api_keys);
  scalar("emails.selectedThemeId", update.email_theme);

  if (update.oauth_providers !== undefined) {
    const providers: ConfigObject = {};
    for (const p of update.oauth_providers) {
      const enabled = p.enabled ?? true;
      const standard = p.type === "standard";
      providers[p.id] = definedOnly({
        type: p.id,
        isShared: !standard,
        allowSignIn: enabled,
        allowConnectedAccounts: enabled,
        // credentials only for standard providers; a shared provider's old credentials are dropped with the list
        clientId: standard ? p.client_id : undefined,
        clientSecret: standard ? p.client_secret : undefined,
        facebookConfigId: standard ? p.facebook_config_id : undefined,
        microsoftTenantId: standard ? p.microsoft_tenant_id : undefined,
        appleBundleIds: p.apple_bundle_ids,
      });
    }
    replaceAt(out, "auth.oauth.providers", providers);
  }

  if (update.domains !== undefined) {
    replaceAt(
      out,
      "domains.trustedDomains",
      Object.fromEntries(update.domains.map((d, i) => [String(i), { baseUrl: d.domain, handlerPath: d.handler_path }])),
    );
  }

  if (update.email_config !== undefined) {
    const e = update.email_config;
    replaceAt(
      out,
      "emails.server",
      e.type === "shared"
        ? { isShared: true }
        : definedOnly({
            isShared: false,
            host: e.host,
            port: e.port,
            username: e.username,
            password: e.password,
            senderName: e.sender_name,
            senderEmail: e.sender_email,
          }),
    );
  }

  if (update.team_creator_default_permissions !== undefined) {
    replaceAt(out, "rbac.defaultPermissions.teamCreator", permissionSetOverride(update.team_creator_default_permissions));
  }
  if (update.team_member_default_permissions !== undefined) {
    replaceAt(out, "rbac.defaultPermissions.teamMember", permissionSetOverride(update.team_member_default_permissions));
  }
  if (update.user_default_permissions !== undefined) {
    replaceAt(out, "rbac.defaultPermissions.signUp", permissionSetOverride(update.user_default_permissions));
  }
  return out;
}
