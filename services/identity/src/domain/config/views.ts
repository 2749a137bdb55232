/** The contract views of a rendered config: the admin project `config`, the client `config`, redirect trust. */

import type { RedirectTrustOptions } from "../domains.ts";
import type { RenderedConfig, RenderedTrustedDomain } from "./rendered.ts";
import type { OAuthAccountMergeStrategy } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Contract views
// ---------------------------------------------------------------------------------------------------------------

export interface AdminOAuthProvider {
  /** The provider's key in `auth.oauth.providers`. */
  provider_config_id: string;
  /** The provider type, e.g. "github". */
  id: string;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
  facebook_config_id?: string;
  microsoft_tenant_id?: string;
  apple_bundle_ids?: string[];
}

export interface AdminEmailConfig {
  type: "shared" | "standard";
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  sender_name?: string;
  sender_email?: string;
}

export interface AdminDomain {
  domain: string;
  handler_path: string;
}

/** The `config` object of the admin project shape (endpoints.md section 6). */
export interface AdminProjectConfig {
  allow_localhost: boolean;
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  oauth_providers: AdminOAuthProvider[];
  enabled_oauth_providers: { id: string }[];
  domains: AdminDomain[];
  email_config: AdminEmailConfig;
  email_theme: string;
  create_team_on_sign_up: boolean;
  team_creator_default_permissions: { id: string }[];
  team_member_default_permissions: { id: string }[];
  user_default_permissions: { id: string }[];
  oauth_account_merge_strategy: OAuthAccountMergeStrategy;
}


/** The `config` of `GET /projects/current`. */
export interface ClientProjectConfig {
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  enabled_oauth_providers: { id: string }[];
}

export const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function permissionList(set: Record<string, true>): { id: string }[] {
  return Object.entries(set)
    .filter(([, on]) => on === true)
    .map(([id]) => ({ id }))
    .sort((a, b) => byString(a.id, b.id));
}

/**
 * The providers shown by the admin view: those with a type and sign-in enabled, sorted by type. A provider with
 * `allowSignIn: false` stays in the rendered config (`auth.oauth.providers.<id>`, credentials kept) but, as in
 * Stack Auth at the pinned commit, is left out of both admin lists: the 2.8.41 admin shape has no `enabled` field,
 * so listing it would make the SDK show it as enabled.
 */
function adminOAuthProviders(rendered: RenderedConfig): AdminOAuthProvider[] {
  return Object.entries(rendered.auth.oauth.providers)
    .filter(([, p]) => p.type !== undefined && p.allowSignIn)
    .map(([providerConfigId, p]) =>
      withoutUndefined<AdminOAuthProvider>({
        provider_config_id: providerConfigId,
        id: p.type!,
        type: p.isShared ? "shared" : "standard",
        client_id: p.clientId,
        client_secret: p.clientSecret,
        facebook_config_id: p.facebookConfigId,
        microsoft_tenant_id: p.microsoftTenantId,
        apple_bundle_ids: Array.isArray(p.appleBundleIds) ? p.appleBundleIds : undefined,
      }),
    )
    .sort((a, b) => byString(a.id, b.id) || byString(a.provider_config_id, b.provider_config_id));
}

/** The trusted domains as the admin view lists them: entries with a base URL, sorted by domain. */
export function adminDomainsFromRendered(rendered: RenderedConfig): AdminDomain[] {
  return Object.values(rendered.domains.trustedDomains)
    .filter((d): d is RenderedTrustedDomain & { baseUrl: string } => d.baseUrl !== undefined)
    .map((d) => ({ domain: d.baseUrl, handler_path: d.handlerPath }))
    .sort((a, b) => byString(a.domain, b.domain));
}

/** The admin project's `config` (endpoints.md section 6). Secrets appear in clear: admin callers only. */
export function adminConfigFromRendered(rendered: RenderedConfig): AdminProjectConfig {
  const providers = adminOAuthProviders(rendered);
  const server = rendered.emails.server;
  return {
    allow_localhost: rendered.domains.allowLocalhost,
    sign_up_enabled: rendered.auth.allowSignUp,
    credential_enabled: rendered.auth.password.allowSignIn,
    magic_link_enabled: rendered.auth.otp.allowSignIn,
    passkey_enabled: rendered.auth.passkey.allowSignIn,
    client_team_creation_enabled: rendered.teams.allowClientTeamCreation,
    client_user_deletion_enabled: rendered.users.allowClientUserDeletion,
    allow_user_api_keys: rendered.apiKeys.enabled.user,
    allow_team_api_keys: rendered.apiKeys.enabled.team,
    oauth_providers: providers,
    enabled_oauth_providers: providers.map((p) => ({ id: p.id })),
    domains: adminDomainsFromRendered(rendered),
    email_config: server.isShared
      ? { type: "shared" }
      : withoutUndefined<AdminEmailConfig>({
          type: "standard",
          host: server.host,
          port: server.port,
          username: server.username,
          password: server.password,
          sender_name: server.senderName,
          sender_email: server.senderEmail,
        }),
    email_theme: rendered.emails.selectedThemeId,
    create_team_on_sign_up: rendered.teams.createPersonalTeamOnSignUp,
    team_creator_default_permissions: permissionList(rendered.rbac.defaultPermissions.teamCreator),
    team_member_default_permissions: permissionList(rendered.rbac.defaultPermissions.teamMember),
    user_default_permissions: permissionList(rendered.rbac.defaultPermissions.signUp),
    oauth_account_merge_strategy: rendered.auth.oauth.accountMergeStrategy,
  };
}

/** The `config` of `GET /projects/current` (client view). */
export function clientProjectConfig(rendered: RenderedConfig): ClientProjectConfig {
  return {
    sign_up_enabled: rendered.auth.allowSignUp,
    credential_enabled: rendered.auth.password.allowSignIn,
    magic_link_enabled: rendered.auth.otp.allowSignIn,
    passkey_enabled: rendered.auth.passkey.allowSignIn,
    client_team_creation_enabled: rendered.teams.allowClientTeamCreation,
    client_user_deletion_enabled: rendered.users.allowClientUserDeletion,
    allow_user_api_keys: rendered.apiKeys.enabled.user,
    allow_team_api_keys: rendered.apiKeys.enabled.team,
    enabled_oauth_providers: adminOAuthProviders(rendered).map((p) => ({ id: p.id })),
  };
}

/** The inputs of `isRedirectUrlTrusted` for a project. */
export function redirectTrustFromRendered(rendered: RenderedConfig): RedirectTrustOptions {
  return {
    trustedDomains: Object.values(rendered.domains.trustedDomains).map((d) => ({ baseUrl: d.baseUrl })),
    allowLocalhost: rendered.domains.allowLocalhost,
  };
}
