/**
 * The server app's objects with their calls: server users (any user, or the current user with server fields), server
 * teams and items, and the caches behind them. server-app.ts adds the app's own calls on top.
 */
import { ApiClient, AsyncCache, KnownErrors, type AccessType, type Session as CoreSession } from "@vestibule/sdk-core";
import { StackClientApp, SCOPES_ON_NON_CURRENT_USER_MESSAGE } from "../client-app.ts";
import { defaultExtraRequestHeaders, defaultPublishableClientKey, defaultSecretServerKey, resolveBaseUrl } from "../env.ts";
import type { Json } from "../json.ts";
import { customerOf } from "../model/project.ts";
import { activeSessionFrom, passkeyFrom, serverUserUpdateBody } from "../model/user.ts";
import { createApiKey, listApiKeys } from "./api-keys.ts";
import { createCheckoutUrl } from "./payments.ts";
import { notificationCategoryFrom, oauthProviderFrom } from "./user-settings.ts";
import type {
  CurrentServerUser,
  ItemCustomer,
  ServerContactChannel,
  ServerContactChannelCreateOptions,
  ServerItem,
  ServerTeam,
  ServerTeamCreateOptions,
  ServerTeamUser,
  ServerUser,
  ServerUserUpdateOptions,
  Session,
  StackServerAppConstructorOptions,
  Team,
  TeamPermission,
} from "../types.ts";
import { CLIENT_VERSION } from "../version.ts";

/** @internal */
export class ServerObjects extends StackClientApp {
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

  override async getItem(options: ItemCustomer): Promise<ServerItem> {
    const [type, id] = customerOf(options, "getItem");
    const json = await this.caches.items.get([null, type, id, options.itemId]);
    return this.serverItemFrom(type, id, options.itemId, json);
  }

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
        return app.sendPrimaryEmailVerification(session, json.primary_email);
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
          notificationCategoryFrom(api, null, c, id),
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
      async createImpersonationTicket(options = {}) {
        const r = await api.json<{ ticket: string; expires_at_millis: number }>("/auth/impersonation-tickets", {
          method: "POST",
          accessType: "admin",
          body: { user_id: id, expires_in_millis: options.expiresInMillis },
        });
        return { ticket: r.ticket, expiresAt: new Date(r.expires_at_millis) };
      },
      getTeamProfile: async (team) =>
        this.teamProfileFrom(null, team.id, await api.json<Json>(`/team-member-profiles/${team.id}/${id}`, { accessType: "server" })),
      createApiKey: async (options) => createApiKey(api, null, "user", id, options) as never,
      listApiKeys: async () => listApiKeys(api, null, "user", id) as never,
      listPasskeys: async () => (await api.json<{ items: Json[] }>("/auth/passkeys", { accessType: "server", query: { user_id: id } })).items.map(passkeyFrom),
      listOAuthProviders: async () =>
        (await api.json<{ items: Json[] }>("/oauth-providers", { accessType: "server", query: { user_id: id } })).items.map((p) => oauthProviderFrom(api, null, p)),
      getOAuthProvider: async (providerId) => {
        const list = (await api.json<{ items: Json[] }>("/oauth-providers", { accessType: "server", query: { user_id: id } })).items;
        const p = list.find((x) => x.id === providerId);
        return p ? oauthProviderFrom(api, null, p) : null;
      },
      getItem: async (itemId) => this.getItem({ itemId, userId: id }),
      createCheckoutUrl: async (options) => createCheckoutUrl(api, null, "user", id, options),
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
        createApiKey: async (options) => createApiKey(api, null, "team", id, options) as never,
        listApiKeys: async () => listApiKeys(api, null, "team", id) as never,
        getItem: async (itemId) => app.getItem({ itemId, teamId: id }),
        createCheckoutUrl: async (options) => createCheckoutUrl(api, null, "team", id, options),
      };
      return team;
    });
  }
}
