/**
 * The server app (secret server key): everything the client app does, plus users, teams, permissions, items and the
 * data vault as seen by the project's own backend. Never ship it to a browser: the secret key grants server access.
 * Its user, team and item objects are in objects/server.ts, which this class extends.
 */
import { KnownErrors, Result, decryptDataVaultValue, encryptDataVaultValue, hashDataVaultKey } from "@vestibule/sdk-core";
import { catchKnown } from "./catch-known.ts";
import type { Json } from "./json.ts";
import { oauthProviderFrom } from "./objects/user-settings.ts";
import { ServerObjects } from "./objects/server.ts";
import type {
  CurrentServerUser,
  DataVaultStore,
  GetUserOptions,
  KnownErrorOfName,
  OAuthProvider,
  ServerListUsersOptions,
  ServerTeam,
  ServerUser,
  ServerUserCreateOptions,
  StackServerAppConstructorOptions,
} from "./types.ts";

export const DATA_VAULT_UNEXPECTED_ERROR_MESSAGE = "Unexpected uncaught error";

export class StackServerApp extends ServerObjects {
  constructor(options: StackServerAppConstructorOptions) {
    super(options);
  }

  // ---- users -------------------------------------------------------------------------------------------------

  override getUser(options: GetUserOptions & { or: "redirect" | "throw" | "anonymous" }): Promise<CurrentServerUser>;
  override getUser(options?: GetUserOptions): Promise<CurrentServerUser | null>;
  override getUser(id: string): Promise<ServerUser | null>;
  override getUser(options: { apiKey: string; or?: "return-null" | "anonymous" }): Promise<ServerUser | null>;
  override async getUser(arg?: string | GetUserOptions | { apiKey: string }): Promise<CurrentServerUser | ServerUser | null> {
    if (typeof arg === "string") {
      const json = await this.serverCaches.users.get([arg]);
      return json ? this.serverUserFrom(json) : null;
    }
    if (arg && "apiKey" in arg) {
      try {
        const key = await this.api.json<Json>("/user-api-keys/check", { method: "POST", body: { api_key: arg.apiKey }, accessType: "server" });
        return this.getUser(key.user_id as string);
      } catch (err) {
        if (KnownErrors.ApiKeyNotValid.isInstance(err)) return null;
        throw err;
      }
    }
    return (await super.getUser(arg as GetUserOptions)) as CurrentServerUser | null;
  }

  /** @deprecated use getUser() */
  async getServerUser(): Promise<CurrentServerUser | null> {
    return this.getUser();
  }

  /** @deprecated use getUser(id) (kept, like the published SDK, for apps that still call it) */
  async getServerUserById(id: string): Promise<ServerUser | null> {
    return this.getUser(id);
  }

  async createUser(options: ServerUserCreateOptions): Promise<ServerUser> {
    const json = await this.api.json<Json>("/users", {
      method: "POST",
      accessType: "server",
      body: {
        primary_email: options.primaryEmail,
        password: options.password,
        otp_auth_enabled: options.otpAuthEnabled,
        primary_email_auth_enabled: options.primaryEmailAuthEnabled,
        display_name: options.displayName,
        primary_email_verified: options.primaryEmailVerified,
        client_metadata: options.clientMetadata,
        client_read_only_metadata: options.clientReadOnlyMetadata,
        server_metadata: options.serverMetadata,
      },
    });
    this.serverCaches.users.set([json.id], json);
    return this.serverUserFrom(json);
  }

  async listUsers(options: ServerListUsersOptions = {}): Promise<ServerUser[] & { nextCursor: string | null }> {
    const r = await this.api.json<{ items: Json[]; pagination?: { next_cursor?: string | null } }>("/users", {
      accessType: "server",
      query: {
        cursor: options.cursor,
        limit: options.limit,
        desc: options.desc,
        order_by: options.orderBy === undefined ? undefined : options.orderBy === "lastActiveAt" ? "last_active_at" : "signed_up_at",
        query: options.query,
        include_anonymous: options.includeAnonymous || options.onlyAnonymous ? "true" : undefined,
        only_anonymous: options.onlyAnonymous ? "true" : undefined,
        only_restricted: options.onlyRestricted ? "true" : undefined,
        email_verified: options.emailVerified,
        has_mfa: options.hasMfa,
        auth_method: options.authMethod,
        signed_up_after_millis: options.signedUpAfter?.getTime(),
        signed_up_before_millis: options.signedUpBefore?.getTime(),
        include_restricted: options.includeRestricted ? "true" : undefined,
      },
    });
    const users = r.items.map((u) => this.serverUserFrom(u));
    return Object.assign(users, { nextCursor: r.pagination?.next_cursor ?? null });
  }

  async listTeams(): Promise<ServerTeam[]> {
    return (await this.serverCaches.teams.get([null])).map((t) => this.serverTeamFrom(t));
  }

  getTeam(id: string): Promise<ServerTeam | null>;
  getTeam(options: { apiKey: string }): Promise<ServerTeam | null>;
  async getTeam(arg: string | { apiKey: string }): Promise<ServerTeam | null> {
    let id: string;
    if (typeof arg === "string") id = arg;
    else {
      try {
        id = (await this.api.json<Json>("/team-api-keys/check", { method: "POST", body: { api_key: arg.apiKey }, accessType: "server" })).team_id;
      } catch (err) {
        if (KnownErrors.ApiKeyNotValid.isInstance(err)) return null;
        throw err;
      }
    }
    try {
      return this.serverTeamFrom(await this.api.json<Json>(`/teams/${encodeURIComponent(id)}`, { accessType: "server" }));
    } catch (err) {
      if (KnownErrors.TeamNotFound.isInstance(err)) return null;
      throw err;
    }
  }

  // ---- vault, other -----------------------------------------------------------------------------------------

  /**
   * A data-vault store: keys hashed and values encrypted here, from `secret` (the server never sees either). Async,
   * like the published SDK's.
   */
  async getDataVaultStore(id: string): Promise<DataVaultStore> {
    const base = `/data-vault/stores/${encodeURIComponent(id)}`;
    return {
      id,
      getValue: async (key, { secret }) => {
        const hashedKey = await hashDataVaultKey(secret, key);
        let r: { encrypted_value: string };
        try {
          r = await this.api.json(`${base}/get`, { method: "POST", body: { hashed_key: hashedKey }, accessType: "server" });
        } catch (err) {
          if (KnownErrors.DataVaultStoreHashedKeyDoesNotExist.isInstance(err)) return null;
          if (err instanceof Error && "errorCode" in err) throw new Error(DATA_VAULT_UNEXPECTED_ERROR_MESSAGE, { cause: err });
          throw err;
        }
        return decryptDataVaultValue(secret, key, r.encrypted_value);
      },
      setValue: async (key, value, { secret }) => {
        const [hashedKey, encryptedValue] = await Promise.all([hashDataVaultKey(secret, key), encryptDataVaultValue(secret, key, value)]);
        await this.api.send(`${base}/set`, { method: "POST", body: { hashed_key: hashedKey, encrypted_value: encryptedValue }, accessType: "server" });
      },
    };
  }

  async createOAuthProvider(options: {
    userId: string;
    accountId: string;
    providerConfigId: string;
    email: string;
    allowSignIn: boolean;
    allowConnectedAccounts: boolean;
  }): Promise<Result<OAuthProvider, KnownErrorOfName<"OAuthProviderAccountIdAlreadyUsedForSignIn">>> {
    return catchKnown(async () => {
      const json = await this.api.json<Json>("/oauth-providers", {
        method: "POST",
        accessType: "server",
        body: {
          user_id: options.userId,
          account_id: options.accountId,
          provider_config_id: options.providerConfigId,
          email: options.email,
          allow_sign_in: options.allowSignIn,
          allow_connected_accounts: options.allowConnectedAccounts,
        },
      });
      return oauthProviderFrom(this.api, null, json);
    }, KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn);
  }

  async sendEmail(options: {
    userIds?: string[];
    allUsers?: true;
    themeId?: string | null | false;
    subject?: string;
    notificationCategoryName?: string;
    html?: string;
    templateId?: string;
    variables?: Record<string, unknown>;
    draftId?: string;
  }): Promise<void> {
    await this.api.send("/emails/send-email", {
      method: "POST",
      accessType: "server",
      body: {
        user_ids: options.userIds,
        all_users: options.allUsers,
        theme_id: options.themeId,
        subject: options.subject,
        notification_category_name: options.notificationCategoryName,
        html: options.html,
        template_id: options.templateId,
        variables: options.variables,
        draft_id: options.draftId,
      },
    });
  }
}
