/** The rendered config: its shape and the defaults of a project whose override documents are empty. */

import { DEFAULT_EMAIL_THEME_ID, type ConfigObject, type OAuthAccountMergeStrategy, type OAuthProviderType } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Rendered config
// ---------------------------------------------------------------------------------------------------------------

export interface RenderedOAuthProvider {
  /** The provider kind; entries without a type are not shown in the admin view. */
  type?: OAuthProviderType;
  /** Shared (Vestibule's development keys) vs standard (the project's own client id and secret). */
  isShared: boolean;
  allowSignIn: boolean;
  allowConnectedAccounts: boolean;
  clientId?: string;
  /** Secret: encrypted at rest (see `secretConfigPaths`). */
  clientSecret?: string;
  facebookConfigId?: string;
  microsoftTenantId?: string;
  /** Sign in with Apple from native apps: the app bundle ids whose identity tokens are accepted. */
  appleBundleIds?: string[];
}

export interface RenderedTrustedDomain {
  /** An http(s) URL, `*` wildcards allowed in the host. Entries without one are ignored. */
  baseUrl?: string;
  handlerPath: string;
}

export interface RenderedPermissionDefinition {
  description?: string;
  scope?: "team" | "project";
  containedPermissionIds: Record<string, true>;
}

export interface RenderedEmailServer {
  isShared: boolean;
  host?: string;
  port?: number;
  username?: string;
  /** Secret: encrypted at rest (see `secretConfigPaths`). */
  password?: string;
  senderName?: string;
  senderEmail?: string;
}

export interface RenderedConfig {
  /** Project-wide settings. `requirePublishableClientKey`: requests must carry the publishable client key. */
  project: { requirePublishableClientKey: boolean };
  auth: {
    allowSignUp: boolean;
    password: { allowSignIn: boolean };
    otp: { allowSignIn: boolean };
    passkey: { allowSignIn: boolean };
    oauth: {
      accountMergeStrategy: OAuthAccountMergeStrategy;
      providers: Record<string, RenderedOAuthProvider>;
    };
    /** Vestibule addition: issue a new refresh token on every refresh (Stack Auth never rotates). */
    refreshTokenRotation: boolean;
    /** Vestibule addition: access-token lifetime in seconds (Stack Auth: 10 minutes). */
    accessTokenLifetimeSeconds: number;
    /**
     * Vestibule addition: failed sign-in checks one client IP may make against this project per day (issue 18); set
     * only when a project chose it (else the auth service's VESTIBULE_AUTH_RATE_LIMIT_IP_FAILURES applies).
     */
    ipFailuresPerDay?: number;
    /**
     * Require a bot challenge on password sign-up and OTP sign-in codes. Vestibule has no challenge verifier, so a
     * project that requires one answers BOT_CHALLENGE_REQUIRED there (issue 13).
     */
    botChallenge: { required: boolean };
  };
  /** Restrict users until they verified their primary e-mail (is_restricted, reason email_not_verified). */
  onboarding: { requireEmailVerification: boolean };
  teams: { createPersonalTeamOnSignUp: boolean; allowClientTeamCreation: boolean };
  users: { allowClientUserDeletion: boolean };
  domains: { allowLocalhost: boolean; trustedDomains: Record<string, RenderedTrustedDomain> };
  apiKeys: { enabled: { user: boolean; team: boolean } };
  rbac: {
    permissions: Record<string, RenderedPermissionDefinition>;
    defaultPermissions: {
      teamCreator: Record<string, true>;
      teamMember: Record<string, true>;
      signUp: Record<string, true>;
    };
  };
  emails: {
    server: RenderedEmailServer;
    selectedThemeId: string;
    themes: Record<string, ConfigObject>;
    templates: Record<string, ConfigObject>;
  };
  /** Owned by billing; free-form beyond the few keys checked by `validateOverride`. */
  payments: ConfigObject & {
    groups: Record<string, ConfigObject>;
    offers: Record<string, ConfigObject>;
    items: Record<string, ConfigObject>;
  };
  /** Owned by the vault service; free-form beyond `stores.<id>.displayName`. */
  dataVault: ConfigObject & { stores: Record<string, ConfigObject> };
  /** Stack Auth's installable apps; `apps.installed.analytics.enabled` turns analytics ingestion on or off. */
  apps: { installed: Record<string, ConfigObject> };
}

/**
 * The config of a project whose override document is empty. Besides Stack Auth's schema defaults it includes what
 * Stack Auth writes when it creates a project (password sign-in on, `allow_localhost` on, the `team_admin` and
 * `team_member` permission definitions and the default permission sets that use them), so that a fresh project
 * renders like a fresh Stack Auth project. E-mail themes and templates are rendered by the e-mail service, not here.
 */
export function defaultRenderedConfig(): RenderedConfig {
  return {
    // True keeps the seed-era rule (client access needs a publishable key) until a project turns it off (issue 13).
    project: { requirePublishableClientKey: true },
    auth: {
      allowSignUp: true,
      password: { allowSignIn: true },
      otp: { allowSignIn: false },
      passkey: { allowSignIn: false },
      oauth: { accountMergeStrategy: "link_method", providers: {} },
      refreshTokenRotation: false,
      accessTokenLifetimeSeconds: 600,
      botChallenge: { required: false },
    },
    onboarding: { requireEmailVerification: false },
    teams: { createPersonalTeamOnSignUp: false, allowClientTeamCreation: false },
    users: { allowClientUserDeletion: false },
    domains: { allowLocalhost: true, trustedDomains: {} },
    apiKeys: { enabled: { user: false, team: false } },
    rbac: {
      permissions: {
        team_admin: {
          description: "Default permission for team admins",
          scope: "team",
          containedPermissionIds: {
            $update_team: true,
            $delete_team: true,
            $read_members: true,
            $remove_members: true,
            $invite_members: true,
            $manage_api_keys: true,
          },
        },
        team_member: {
          description: "Default permission for team members",
          scope: "team",
          containedPermissionIds: { $read_members: true, $invite_members: true },
        },
      },
      defaultPermissions: {
        teamCreator: { team_admin: true },
        teamMember: { team_member: true },
        signUp: {},
      },
    },
    emails: {
      server: { isShared: true },
      selectedThemeId: DEFAULT_EMAIL_THEME_ID,
      themes: {},
      templates: {},
    },
    payments: { groups: {}, offers: {}, items: {} },
    dataVault: { stores: {} },
    apps: { installed: { analytics: { enabled: true } } },
  };
}
