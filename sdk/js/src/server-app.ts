/**
 * The server app (secret server key): everything the client app does, plus users, teams, permissions, items and the
 * data vault as seen by the project's own backend. Never ship it to a browser: the secret key grants server access.
 */
import {
  ApiClient,
  AsyncCache,
  KnownErrors,
  Result,
  decryptDataVaultValue,
  encryptDataVaultValue,
  hashDataVaultKey,
  type AccessType,
  type Session as CoreSession,
} from "@vestibule/sdk-core";
import { SCOPES_ON_NON_CURRENT_USER_MESSAGE, StackClientApp, catchKnown, type Json } from "./client-app.ts";
import { customerOf } from "./model/project.ts";
import { activeSessionFrom, passkeyFrom, userUpdateBody } from "./model/user.ts";
import { defaultExtraRequestHeaders, defaultPublishableClientKey, defaultSecretServerKey, resolveBaseUrl } from "./env.ts";
import { CLIENT_VERSION } from "./version.ts";
import type {
  CurrentServerUser,
  DataVaultStore,
  GetUserOptions,
  ItemCustomer,
  KnownErrorOfName,
  OAuthProvider,
  ServerContactChannel,
  ServerContactChannelCreateOptions,
  ServerItem,
  ServerListUsersOptions,
  ServerTeam,
  ServerTeamCreateOptions,
  ServerTeamUser,
  ServerUser,
  ServerUserCreateOptions,
  ServerUserUpdateOptions,
  Session,
  StackServerAppConstructorOptions,
  Team,
  TeamPermission,
} from "./types.ts";

export const DATA_VAULT_UNEXPECTED_ERROR_MESSAGE = "Unexpected uncaught error";

export function serverUserUpdateBody(u: ServerUserUpdateOptions): Json {
  return {
    ...userUpdateBody(u),
    primary_email: u.primaryEmail,
    primary_email_verified: u.primaryEmailVerified,
    primary_email_auth_enabled: u.primaryEmailAuthEnabled,
    client_read_only_metadata: u.clientReadOnlyMetadata,
    server_metadata: u.serverMetadata,
    password: u.password,
    restricted_by_admin: u.restrictedByAdmin,
    restricted_by_admin_reason: u.restrictedByAdminReason,
    restricted_by_admin_private_details: u.restrictedByAdminPrivateDetails,
  };
}

export class StackServerApp extends StackClientApp {
  /** @internal */
  protected readonly serverCaches = {
    users: new AsyncCache<[string], Json | null>(async ([id]) => {
      try {
        return await this.api.json<Json>(`/users/${encodeURIComponent(id)}`, { accessType: "server" });
      } catch (err) {
        if (KnownErrors.UserNotFound.isInstance(err)) return null;
        throw err;
      }
    }),
    teams: new AsyncCache<[string | null], Json[]>(async ([userId]) =>
      (await this.api.json<{ items: Json[] }>("/teams", { accessType: "server", query: { user_id: userId ?? undefined } })).items,
    ),
  };

  constructor(options: StackServerAppConstructorOptions) {
    super(options);
  }

  /** @internal */
  protected override createApiClient(options: StackServerAppConstructorOptions): ApiClient {
    return new ApiClient({
      baseUrl: resolveBaseUrl(options.baseUrl),
      projectId: this.projectId,
      publishableClientKey: options.publishableClientKey ?? defaultPublishableClientKey(),
      secretServerKey: options.secretServerKey ?? defaultSecretServerKey(),
      extraRequestHeaders: options.extraRequestHeaders ?? defaultExtraRequestHeaders(),
      clientVersion: CLIENT_VERSION,
      fetch: options.fetch,
      maxRateLimitWaitMillis: options.maxRateLimitWaitMillis,
    });
  }

  /** @internal */
  protected override get userAccessType(): AccessType {
    return "server";
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
        order_by: options.orderBy === undefined ? undefined : "signed_up_at",
        query: options.query,
        include_anonymous: options.includeAnonymous ? "true" : undefined,
        include_restricted: options.includeRestricted ? "true" : undefined,
      },
    });
    const users = r.items.map((u) => this.serverUserFrom(u));
    return Object.assign(users, { nextCursor: r.pagination?.next_cursor ?? null });
  }

  // ---- teams -------------------------------------------------------------------------------------------------

  async createTeam(data: ServerTeamCreateOptions): Promise<ServerTeam> {
    const json = await this.api.json<Json>("/teams", {
      method: "POST",
      accessType: "server",
      body: { display_name: data.displayName, profile_image_url: data.profileImageUrl, creator_user_id: data.creatorUserId },
    });
    // The project's list and the creator's list (when cached) both gain the team.
    await this.serverCaches.teams.refresh([null]).catch(() => {});
    if (data.creatorUserId && this.serverCaches.teams.getIfCached([data.creatorUserId])) await this.serverCaches.teams.refresh([data.creatorUserId]).catch(() => {});
    return this.serverTeamFrom(json);
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

  // ---- items, vault, other ----------------------------------------------------------------------------------

  override async getItem(options: ItemCustomer): Promise<ServerItem> {
    const [type, id] = customerOf(options, "getItem");
    const json = await this.caches.items.get([null, type, id, options.itemId]);
    return this.serverItemFrom(type, id, options.itemId, json);
  }

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
      return this.oauthProviderFrom(null, json);
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

  // ---- objects -----------------------------------------------------------------------------------------------

  /** @internal */
  protected serverItemFrom(type: string, customerId: string, itemId: string, json: Json): ServerItem {
    const path = `/payments/items/${type}/${encodeURIComponent(customerId)}/${encodeURIComponent(itemId)}/update-quantity`;
    const change = async (delta: number, allowNegative: boolean) => {
      await this.api.send(path, { method: "POST", accessType: "server", query: { allow_negative: allowNegative ? "true" : "false" }, body: { delta } });
      await this.caches.items.refresh([null, type, customerId, itemId]).catch(() => {});
    };
    return {
      ...this.itemFrom(json),
      increaseQuantity: (amount) => change(amount, false),
      decreaseQuantity: (amount) => change(-amount, true),
      tryDecreaseQuantity: async (amount) => {
        try {
          await change(-amount, false);
          return true;
        } catch (err) {
          if (KnownErrors.ItemQuantityInsufficientAmount.isInstance(err)) return false;
          throw err;
        }
      },
    };
  }

  /** @internal */
  protected override currentUserFrom(session: CoreSession, json: Json): CurrentServerUser {
    return this.memo(json, () => ({ ...this.buildServerUser(json, session), ...this.authFields(session) }) as CurrentServerUser) as CurrentServerUser;
  }

  /** @internal */
  serverUserFrom(json: Json): ServerUser {
    return this.memo(json, () => this.buildServerUser(json, null));
  }

  private buildServerUser(json: Json, session: CoreSession | null): ServerUser {
    const api = this.api;
    const app = this;
    const id = json.id as string;
    const userPath = `/users/${encodeURIComponent(id)}`;
    const afterChange = async (updated?: Json) => {
      if (updated) this.serverCaches.users.set([id], updated);
      else await this.serverCaches.users.refresh([id]).catch(() => {});
      if (session) {
        if (updated) this.caches.currentUser.set([session], updated);
        else await this.caches.currentUser.refresh([session]).catch(() => {});
      }
    };
    const update = async (u: ServerUserUpdateOptions) => {
      await afterChange(await api.json<Json>(userPath, { method: "PATCH", accessType: "server", body: serverUserUpdateBody(u) }));
    };
    const permissionTarget = (scopeOrId: Team | string, permissionId?: string): [string | null, string] =>
      typeof scopeOrId === "string" ? [null, scopeOrId] : [scopeOrId.id, permissionId!];
    const listPermissions = async (scopeOrOptions?: Team | { recursive?: boolean }, options?: { recursive?: boolean }): Promise<TeamPermission[]> => {
      const team = scopeOrOptions && "id" in scopeOrOptions ? (scopeOrOptions as Team) : null;
      const recursive = (team ? options?.recursive : (scopeOrOptions as { recursive?: boolean } | undefined)?.recursive) ?? true;
      const r = await api.json<{ items: Json[] }>(team ? "/team-permissions" : "/project-permissions", {
        accessType: "server",
        query: team ? { team_id: team.id, user_id: id, recursive } : { user_id: id, recursive },
      });
      return r.items.map((p) => ({ id: p.id as string }));
    };
    const getPermission = async (scopeOrId: Team | string, permissionId?: string) => {
      const [teamId, pid] = permissionTarget(scopeOrId, permissionId);
      return (await listPermissions(teamId ? ({ id: teamId } as Team) : undefined)).find((p) => p.id === pid) ?? null;
    };
    const permissionPath = (scopeOrId: Team | string, permissionId?: string) => {
      const [teamId, pid] = permissionTarget(scopeOrId, permissionId);
      return teamId ? `/team-permissions/${teamId}/${id}/${encodeURIComponent(pid)}` : `/project-permissions/${id}/${encodeURIComponent(pid)}`;
    };
    const userTeams = async () => (await this.serverCaches.teams.get([id])).map((t) => this.serverTeamFrom(t));
    const user: ServerUser = {
      ...this.baseUserFields(json),
      lastActiveAt: new Date(json.last_active_at_millis ?? json.signed_up_at_millis),
      serverMetadata: json.server_metadata ?? null,
      isRestricted: json.is_restricted === true,
      restrictedReason: json.restricted_reason ?? null,
      restrictedByAdmin: json.restricted_by_admin === true,
      restrictedByAdminReason: json.restricted_by_admin_reason ?? null,
      restrictedByAdminPrivateDetails: json.restricted_by_admin_private_details ?? null,
      get selectedTeam() {
        return json.selected_team ? app.serverTeamFrom(json.selected_team) : null;
      },
      update,
      setDisplayName: (displayName) => update({ displayName }),
      setClientMetadata: (clientMetadata) => update({ clientMetadata }),
      setClientReadOnlyMetadata: (clientReadOnlyMetadata) => update({ clientReadOnlyMetadata }),
      setServerMetadata: (serverMetadata) => update({ serverMetadata }),
      setPrimaryEmail: (primaryEmail, options = {}) => update({ primaryEmail, primaryEmailVerified: options.verified }),
      setSelectedTeam: (team) => update({ selectedTeamId: team?.id ?? null }),
      async sendVerificationEmail() {
        if (!session) throw new Error("sendVerificationEmail needs the user's own session; use a contact channel's sendVerificationEmail");
        try {
          await api.send("/contact-channels/send-verification-code", {
            method: "POST",
            body: { email: json.primary_email, callback_url: app.callbackUrl(app.urls.emailVerification, "callbackUrl") },
            session,
          });
        } catch (err) {
          if (KnownErrors.EmailAlreadyVerified.isInstance(err)) return err;
          throw err;
        }
      },
      async updatePassword(options) {
        if (!session) throw new Error("updatePassword needs the user's own session; use update({ password }) on the server");
        try {
          await api.send("/auth/password/update", { method: "POST", body: { old_password: options.oldPassword, new_password: options.newPassword }, session });
          await afterChange();
        } catch (err) {
          if (KnownErrors.PasswordConfirmationMismatch.isInstance(err) || KnownErrors.PasswordRequirementsNotMet.isInstance(err)) return err;
          throw err;
        }
      },
      async setPassword(options) {
        try {
          await update({ password: options.password });
        } catch (err) {
          if (KnownErrors.PasswordRequirementsNotMet.isInstance(err)) return err;
          throw err;
        }
      },
      async delete() {
        await api.send(userPath, { method: "DELETE", accessType: "server" });
        await app.serverCaches.users.refresh([id]).catch(() => {});
        session?.markInvalid();
      },
      listContactChannels: async () =>
        (await api.json<{ items: Json[] }>("/contact-channels", { accessType: "server", query: { user_id: id } })).items.map(
          (c) => this.contactChannelFrom(null, c, id) as ServerContactChannel,
        ),
      createContactChannel: async (data: ServerContactChannelCreateOptions) =>
        this.contactChannelFrom(
          null,
          await api.json<Json>("/contact-channels", {
            method: "POST",
            accessType: "server",
            body: { user_id: id, value: data.value, type: data.type, used_for_auth: data.usedForAuth, is_primary: data.isPrimary, is_verified: data.isVerified },
          }),
          id,
        ) as ServerContactChannel,
      listNotificationCategories: async () =>
        (await api.json<{ items: Json[] }>(`/emails/notification-preference/${id}`, { accessType: "server" })).items.map((c) =>
          this.notificationCategoryFrom(null, c, id),
        ),
      getConnectedAccount: async (providerId, options = {}) => {
        if (session) return this.connectedAccount(session, json, providerId, options);
        if (options.or === "redirect") throw new Error(SCOPES_ON_NON_CURRENT_USER_MESSAGE);
        try {
          const r = await api.json<{ access_token: string }>(`/connected-accounts/${id}/${encodeURIComponent(providerId)}/access-token`, {
            method: "POST",
            accessType: "server",
            body: options.scopes?.length ? { scope: options.scopes.join(" ") } : {},
          });
          return { id: providerId, getAccessToken: async () => ({ accessToken: r.access_token }) };
        } catch (err) {
          if (KnownErrors.OAuthConnectionDoesNotHaveRequiredScope.isInstance(err) || KnownErrors.OAuthConnectionNotConnectedToUser.isInstance(err)) {
            if (options.or === "throw") throw err;
            return null;
          }
          throw err;
        }
      },
      listPermissions,
      getPermission,
      hasPermission: async (scopeOrId, permissionId) => (await getPermission(scopeOrId, permissionId)) !== null,
      async grantPermission(scopeOrId, permissionId) {
        await api.send(permissionPath(scopeOrId, permissionId), { method: "POST", accessType: "server", body: {} });
      },
      async revokePermission(scopeOrId, permissionId) {
        await api.send(permissionPath(scopeOrId, permissionId), { method: "DELETE", accessType: "server" });
      },
      listTeams: userTeams,
      getTeam: async (teamId) => (await userTeams()).find((t) => t.id === teamId) ?? null,
      async createTeam(data) {
        const team = await app.createTeam({ ...data, creatorUserId: id });
        await app.serverCaches.teams.refresh([id]).catch(() => {});
        return team;
      },
      async leaveTeam(team) {
        await api.send(`/team-memberships/${team.id}/${id}`, { method: "DELETE", accessType: "server", body: {} });
        await app.serverCaches.teams.refresh([id]).catch(() => {});
      },
      getActiveSessions: async () =>
        (await api.json<{ items: Json[] }>("/auth/sessions", { accessType: "server", query: { user_id: id } })).items.map(activeSessionFrom),
      async revokeSession(sessionId) {
        await api.send(`/auth/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE", accessType: "server", query: { user_id: id } });
      },
      async createSession(options = {}): Promise<Session> {
        const r = await api.json<{ access_token: string; refresh_token: string }>("/auth/sessions", {
          method: "POST",
          accessType: "server",
          body: { user_id: id, expires_in_millis: options.expiresInMillis, is_impersonation: options.isImpersonation },
        });
        const s = api.createSession({ refreshToken: r.refresh_token, accessToken: r.access_token });
        return {
          getTokens: async () => {
            const t = await s.getOrFetchLikelyValidTokens();
            return { accessToken: t?.accessToken.token ?? null, refreshToken: s.getRefreshToken() };
          },
        };
      },
      getTeamProfile: async (team) =>
        this.teamProfileFrom(null, team.id, await api.json<Json>(`/team-member-profiles/${team.id}/${id}`, { accessType: "server" })),
      createApiKey: async (options) => this.createApiKey(null, "user", id, options) as never,
      listApiKeys: async () => this.listApiKeys(null, "user", id) as never,
      listPasskeys: async () => (await api.json<{ items: Json[] }>("/auth/passkeys", { accessType: "server", query: { user_id: id } })).items.map(passkeyFrom),
      listOAuthProviders: async () =>
        (await api.json<{ items: Json[] }>("/oauth-providers", { accessType: "server", query: { user_id: id } })).items.map((p) => this.oauthProviderFrom(null, p)),
      getOAuthProvider: async (providerId) => {
        const list = (await api.json<{ items: Json[] }>("/oauth-providers", { accessType: "server", query: { user_id: id } })).items;
        const p = list.find((x) => x.id === providerId);
        return p ? this.oauthProviderFrom(null, p) : null;
      },
      getItem: async (itemId) => this.getItem({ itemId, userId: id }),
      createCheckoutUrl: async (options) => this.createCheckoutUrl(null, "user", id, options),
    };
    return user;
  }

  /** @internal */
  serverTeamFrom(json: Json): ServerTeam {
    return this.memo(json, () => {
      const api = this.api;
      const app = this;
      const id = json.id as string;
      // A renamed or deleted team appears in the project's list and in its members' lists: refresh every cached one.
      const refreshTeams = () => app.serverCaches.teams.refreshAll();
      const team: ServerTeam = {
        id,
        displayName: json.display_name,
        profileImageUrl: json.profile_image_url ?? null,
        clientMetadata: json.client_metadata ?? null,
        clientReadOnlyMetadata: json.client_read_only_metadata ?? null,
        serverMetadata: json.server_metadata ?? null,
        createdAt: new Date(json.created_at_millis),
        async listUsers(): Promise<ServerTeamUser[]> {
          const r = await api.json<{ items: Json[] }>("/team-member-profiles", { accessType: "server", query: { team_id: id } });
          return r.items.map((p) => ({
            ...app.serverUserFrom(p.user),
            teamProfile: { displayName: p.display_name ?? null, profileImageUrl: p.profile_image_url ?? null },
          }));
        },
        async update(u) {
          await api.send(`/teams/${id}`, {
            method: "PATCH",
            accessType: "server",
            body: {
              display_name: u.displayName,
              profile_image_url: u.profileImageUrl,
              client_metadata: u.clientMetadata,
              client_read_only_metadata: u.clientReadOnlyMetadata,
              server_metadata: u.serverMetadata,
            },
          });
          await refreshTeams();
        },
        async delete() {
          await api.send(`/teams/${id}`, { method: "DELETE", accessType: "server" });
          await refreshTeams();
        },
        async addUser(userId) {
          await api.send(`/team-memberships/${id}/${userId}`, { method: "POST", accessType: "server", body: {} });
          await app.serverCaches.teams.refresh([userId]).catch(() => {});
        },
        async removeUser(userId) {
          await api.send(`/team-memberships/${id}/${userId}`, { method: "DELETE", accessType: "server", body: {} });
          await app.serverCaches.teams.refresh([userId]).catch(() => {});
        },
        async inviteUser(options) {
          await api.send("/team-invitations/send-code", {
            method: "POST",
            accessType: "server",
            body: { email: options.email, team_id: id, callback_url: options.callbackUrl ?? app.callbackUrl(app.urls.teamInvitation, "callbackUrl") },
          });
        },
        async listInvitations() {
          const r = await api.json<{ items: Json[] }>("/team-invitations", { accessType: "server", query: { team_id: id } });
          return r.items.map((i) => ({
            id: i.id,
            recipientEmail: i.recipient_email ?? null,
            expiresAt: new Date(i.expires_at_millis),
            revoke: async () => {
              await api.send(`/team-invitations/${i.id}`, { method: "DELETE", accessType: "server", query: { team_id: id } });
            },
          }));
        },
        createApiKey: async (options) => app.createApiKey(null, "team", id, options) as never,
        listApiKeys: async () => app.listApiKeys(null, "team", id) as never,
        getItem: async (itemId) => app.getItem({ itemId, teamId: id }),
        createCheckoutUrl: async (options) => app.createCheckoutUrl(null, "team", id, options),
      };
      return team;
    });
  }
}
