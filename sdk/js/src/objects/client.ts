/**
 * The SDK objects of a client app with their calls: the current user (and a user of the internal project), its
 * teams, team profiles, contact channels, connected accounts, and the sign-out and passkey calls of a session.
 */
import { KnownError, KnownErrors, Result, type AccessType, type ApiClient, type Session as CoreSession } from "@vestibule/sdk-core";
import { browserLocation, currentHref } from "../browser.ts";
import type { Json } from "../json.ts";
import { itemFrom, projectFrom } from "../model/project.ts";
import { activeSessionFrom, baseUserFields, passkeyFrom, userUpdateBody } from "../model/user.ts";
import { createApiKey, listApiKeys } from "./api-keys.ts";
import { createCheckoutUrl } from "./payments.ts";
import { notificationCategoryFrom, oauthProviderFrom } from "./user-settings.ts";
import { createPasskeyCredential, PASSKEY_INITIATION_FAILED_MESSAGE } from "../passkeys.ts";
import { projectUpdateBody } from "../project-body.ts";
import type {
  AdminOwnedProject,
  AdminProjectCreateOptions,
  ContactChannel,
  ContactChannelCreateOptions,
  CurrentUser,
  EditableTeamMemberProfile,
  InternalUserExtra,
  Item,
  KnownErrorOfName,
  OAuthConnection,
  Passkey,
  Project,
  StackClientAppConstructorOptions,
  Team,
  TeamApiKey,
  TeamApiKeyFirstView,
  TeamCreateOptions,
  TeamInvitation,
  TeamUser,
  UserApiKey,
  UserApiKeyFirstView,
  UserUpdateOptions,
} from "../types.ts";
import { ClientSignIn } from "../client/sign-in.ts";

/** The project whose users are the dashboard's project owners. */
export const INTERNAL_PROJECT_ID = "internal";

/**
 * @internal The API client and session behind each current user, for calls another app makes on the user's behalf
 * (an admin project's `transfer(user, teamId)` is a call of that user on the internal project).
 */
export const currentUserSessions = new WeakMap<object, { readonly api: ApiClient; readonly session: CoreSession }>();

/** @internal What an owned project is built from (see ownedProject). */
export interface OwnedProjectSource {
  /** The admin project JSON (`/internal/projects*`). */
  readonly json: Json;
  /** The owner's session on the internal project (the admin app refreshes it there). */
  readonly session: CoreSession;
  readonly options: StackClientAppConstructorOptions;
}

/**
 * Builds owned projects with their admin app. The admin app extends this class, so it is loaded with a dynamic
 * `import()` when an internal user first lists or creates projects: no import cycle, and nothing registered at module
 * load that a bundler honouring `"sideEffects": false` could drop (issue 22).
 */
async function ownedProjects(sources: readonly OwnedProjectSource[]): Promise<AdminOwnedProject[]> {
  const { ownedProjectFrom } = await import("../admin-app.ts");
  return sources.map(ownedProjectFrom);
}

/** @internal */
export class ClientObjects extends ClientSignIn {
  /** @internal */
  protected projectFrom(json: Json): Project {
    return this.memo(json, () => projectFrom(json));
  }

  /** @internal */
  protected itemFrom(json: Json): Item {
    return itemFrom(json);
  }
  /** @internal */
  protected currentUserFrom(session: CoreSession, json: Json): CurrentUser {
    return this.memo(json, () => this.buildCurrentUser(session, json));
  }

  /** @internal */
  protected baseUserFields(json: Json) {
    return baseUserFields(json);
  }

  /** @internal */
  protected authFields(session: CoreSession) {
    const getAuthJson = async () => {
      const tokens = await session.getOrFetchLikelyValidTokens();
      return { accessToken: tokens?.accessToken.token ?? null, refreshToken: tokens?.refreshToken ?? session.getRefreshToken() };
    };
    return {
      currentSession: { getTokens: getAuthJson },
      getAuthJson,
      getAuthHeaders: async () => ({ "x-stack-auth": JSON.stringify(await getAuthJson()) }),
      signOut: async (options: { redirectUrl?: URL | string } = {}) => {
        await this.signOutSession(session);
        await this.redirectTo(options.redirectUrl?.toString() ?? this.urls.afterSignOut);
      },
      registerPasskey: async (options: { hostname?: string } = {}) => {
        let init: { options_json: Json; code: string };
        try {
          init = await this.api.json("/auth/passkey/initiate-passkey-registration", { method: "POST", body: {}, session });
        } catch (err) {
          if (err instanceof KnownError) throw err;
          return Result.error(new KnownErrors.PasskeyRegistrationFailed(PASSKEY_INITIATION_FAILED_MESSAGE));
        }
        try {
          const credential = await createPasskeyCredential(init.options_json, options.hostname ?? browserLocation()?.hostname ?? "localhost");
          await this.api.send("/auth/passkey/register", { method: "POST", body: { credential, code: init.code }, session });
          await this.refreshUserCaches(session);
          return Result.ok(undefined);
        } catch (err) {
          if (KnownErrors.PasskeyRegistrationFailed.isInstance(err) || KnownErrors.PasskeyWebAuthnError.isInstance(err)) return Result.error(err);
          throw err;
        }
      },
      listPasskeys: async (): Promise<Passkey[]> => {
        const r = await this.api.json<{ items: Json[] }>("/auth/passkeys?user_id=me", { session });
        return r.items.map(passkeyFrom);
      },
      renamePasskey: async (id: string, name: string) => {
        await this.api.send(`/auth/passkeys/${encodeURIComponent(id)}?user_id=me`, { method: "PATCH", body: { name }, session });
      },
      deletePasskey: async (id: string) => {
        await this.api.send(`/auth/passkeys/${encodeURIComponent(id)}?user_id=me`, { method: "DELETE", session });
        await this.refreshUserCaches(session);
      },
    };
  }

  private buildCurrentUser(session: CoreSession, json: Json): CurrentUser {
    const api = this.api;
    const app = this;
    const update = async (u: UserUpdateOptions) => {
      const updated = await api.json<Json>("/users/me", { method: "PATCH", body: userUpdateBody(u), session });
      this.caches.currentUser.set([session], updated);
    };
    const teamPermissionArgs = (scopeOrOptions?: Team | { recursive?: boolean } | string, options?: { recursive?: boolean }) => {
      if (typeof scopeOrOptions === "object" && scopeOrOptions !== null && "id" in scopeOrOptions) {
        return { teamId: scopeOrOptions.id as string, recursive: options?.recursive ?? true };
      }
      return { teamId: null, recursive: (scopeOrOptions as { recursive?: boolean } | undefined)?.recursive ?? true };
    };
    const listPermissions = async (scopeOrOptions?: Team | { recursive?: boolean }, options?: { recursive?: boolean }) => {
      const { teamId, recursive } = teamPermissionArgs(scopeOrOptions, options);
      return (await this.caches.permissions.get([session, teamId, recursive])).map((p) => ({ id: p.id as string }));
    };
    const getPermission = async (scopeOrId: Team | string, permissionId?: string) => {
      const [team, id] = typeof scopeOrId === "string" ? [undefined, scopeOrId] : [scopeOrId, permissionId!];
      return (await listPermissions(team)).find((p) => p.id === id) ?? null;
    };
    const user: CurrentUser = {
      ...this.baseUserFields(json),
      ...this.authFields(session),
      get selectedTeam() {
        return json.selected_team ? app.teamFrom(session, json.selected_team) : null;
      },
      update,
      setDisplayName: (displayName) => update({ displayName }),
      setClientMetadata: (clientMetadata) => update({ clientMetadata }),
      setSelectedTeam: (team) => update({ selectedTeamId: team?.id ?? null }),
      sendVerificationEmail: () => app.sendPrimaryEmailVerification(session, json.primary_email),
      async updatePassword(options) {
        try {
          await api.send("/auth/password/update", { method: "POST", body: { old_password: options.oldPassword, new_password: options.newPassword }, session });
          await app.refreshUserCaches(session);
        } catch (err) {
          if (KnownErrors.PasswordConfirmationMismatch.isInstance(err) || KnownErrors.PasswordRequirementsNotMet.isInstance(err)) return err;
          throw err;
        }
      },
      async setPassword(options) {
        try {
          await api.send("/auth/password/set", { method: "POST", body: { password: options.password }, session });
          await app.refreshUserCaches(session);
        } catch (err) {
          if (KnownErrors.PasswordRequirementsNotMet.isInstance(err)) return err;
          throw err;
        }
      },
      async delete() {
        await api.send("/users/me", { method: "DELETE", session });
        session.markInvalid();
      },
      listContactChannels: async () => (await this.caches.contactChannels.get([session])).map((c) => this.contactChannelFrom(session, c, "me")),
      async createContactChannel(data: ContactChannelCreateOptions) {
        const created = await api.json<Json>("/contact-channels", {
          method: "POST",
          body: { user_id: "me", value: data.value, type: data.type, used_for_auth: data.usedForAuth, is_primary: data.isPrimary },
          session,
        });
        // A new primary channel changes the user's primary e-mail too.
        await app.refreshUserCaches(session);
        return app.contactChannelFrom(session, created, "me");
      },
      async listNotificationCategories() {
        const r = await api.json<{ items: Json[] }>("/emails/notification-preference/me", { session });
        return r.items.map((c) => notificationCategoryFrom(api, session, c, "me"));
      },
      getConnectedAccount: async (providerId, options = {}) => this.connectedAccount(session, json, providerId, options),
      listPermissions,
      getPermission,
      hasPermission: async (scopeOrId, permissionId) => (await getPermission(scopeOrId, permissionId)) !== null,
      listTeams: async () => (await this.caches.teams.get([session])).map((t) => this.teamFrom(session, t)),
      getTeam: async (id) => {
        const t = (await this.caches.teams.get([session])).find((x) => x.id === id);
        return t ? this.teamFrom(session, t) : null;
      },
      async createTeam(data: TeamCreateOptions) {
        const created = await api.json<Json>("/teams", {
          method: "POST",
          body: { display_name: data.displayName, profile_image_url: data.profileImageUrl, creator_user_id: "me" },
          session,
        });
        await app.caches.teams.refresh([session]);
        await update({ selectedTeamId: created.id });
        return app.teamFrom(session, created);
      },
      async leaveTeam(team) {
        await api.send(`/team-memberships/${team.id}/me`, { method: "DELETE", body: {}, session });
        await app.refreshUserCaches(session);
        await app.caches.teams.refresh([session]).catch(() => {});
      },
      getActiveSessions: async () => (await this.caches.sessions.get([session])).map(activeSessionFrom),
      async revokeSession(sessionId) {
        await api.send(`/auth/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE", query: { user_id: "me" }, session });
        await app.caches.sessions.refresh([session]).catch(() => {});
      },
      getTeamProfile: async (team) => this.teamProfileFrom(session, team.id, await api.json<Json>(`/team-member-profiles/${team.id}/me`, { session })),
      createApiKey: async (options) => createApiKey(api, session, "user", json.id, options) as Promise<UserApiKeyFirstView>,
      listApiKeys: async () => listApiKeys(api, session, "user", json.id) as Promise<UserApiKey[]>,
      listOAuthProviders: async () =>
        (await api.json<{ items: Json[] }>("/oauth-providers", { query: { user_id: "me" }, session })).items.map((p) => oauthProviderFrom(api, session, p)),
      getOAuthProvider: async (id) => {
        const list = (await api.json<{ items: Json[] }>("/oauth-providers", { query: { user_id: "me" }, session })).items;
        const p = list.find((x) => x.id === id);
        return p ? oauthProviderFrom(api, session, p) : null;
      },
      getItem: async (itemId) => this.itemFrom(await this.caches.items.get([session, "user", json.id, itemId])),
      createCheckoutUrl: async (options) => createCheckoutUrl(api, session, "user", json.id, options),
    };
    currentUserSessions.set(user, { api, session });
    if (this.projectId !== INTERNAL_PROJECT_ID) return user;
    const internal: InternalUserExtra = {
      async listOwnedProjects() {
        const r = await api.json<{ items: Json[] }>("/internal/projects", { session });
        return ownedProjects(r.items.map((p) => ({ json: p, session, options: app.options })));
      },
      async createProject(options: AdminProjectCreateOptions) {
        const body = { ...projectUpdateBody(options), owner_team_id: options.teamId };
        const created = await api.json<Json>("/internal/projects", { method: "POST", body, session });
        const [project] = await ownedProjects([{ json: created, session, options: app.options }]);
        return project!;
      },
    };
    return Object.assign(user, internal);
  }

  /** A code to the user's primary e-mail (the deprecated `user.sendVerificationEmail`), with the user's session. @internal */
  protected async sendPrimaryEmailVerification(session: CoreSession, email: string): Promise<KnownErrorOfName<"EmailAlreadyVerified"> | void> {
    try {
      await this.api.send("/contact-channels/send-verification-code", {
        method: "POST",
        body: { email, callback_url: this.callbackUrl(this.urls.emailVerification, "callbackUrl") },
        session,
      });
    } catch (err) {
      if (KnownErrors.EmailAlreadyVerified.isInstance(err)) return err;
      throw err;
    }
  }

  /** @internal */
  protected async connectedAccount(
    session: CoreSession,
    userJson: Json,
    providerId: string,
    options: { or?: "redirect" | "throw" | "return-null"; scopes?: string[] },
  ): Promise<OAuthConnection | null> {
    const scope = options.scopes?.join(" ");
    const missing = async (): Promise<null> => {
      if (options.or === "redirect") {
        await this.startOAuth(providerId, "link", { returnTo: currentHref() ?? undefined, scopes: options.scopes });
        throw new Error("Redirected to the OAuth provider to connect the account");
      }
      if (options.or === "throw") throw new Error(`No connected ${providerId} account with the required scopes`);
      return null;
    };
    const linked = ((userJson.oauth_providers ?? []) as Json[]).some((p) => p.id === providerId);
    if (!linked) return missing();
    try {
      const r = await this.api.json<{ access_token: string }>(`/connected-accounts/me/${encodeURIComponent(providerId)}/access-token`, {
        method: "POST",
        body: scope ? { scope } : {},
        session,
      });
      const accessToken = r.access_token;
      return { id: providerId, getAccessToken: async () => ({ accessToken }) };
    } catch (err) {
      if (KnownErrors.OAuthConnectionDoesNotHaveRequiredScope.isInstance(err) || KnownErrors.OAuthConnectionNotConnectedToUser.isInstance(err)) return missing();
      throw err;
    }
  }

  /** @internal */
  protected teamFrom(session: CoreSession | null, json: Json): Team {
    return this.memo(json, () => {
      const api = this.api;
      const app = this;
      const team: Team = {
        id: json.id,
        displayName: json.display_name,
        profileImageUrl: json.profile_image_url ?? null,
        clientMetadata: json.client_metadata ?? null,
        clientReadOnlyMetadata: json.client_read_only_metadata ?? null,
        async inviteUser(options) {
          await api.send("/team-invitations/send-code", {
            method: "POST",
            body: { email: options.email, team_id: json.id, callback_url: options.callbackUrl ?? app.callbackUrl(app.urls.teamInvitation, "callbackUrl") },
            session,
          });
        },
        async listUsers(): Promise<TeamUser[]> {
          const r = await api.json<{ items: Json[] }>("/team-member-profiles", { query: { team_id: json.id }, session });
          return r.items.map((p) => ({ id: p.user_id, teamProfile: { displayName: p.display_name ?? null, profileImageUrl: p.profile_image_url ?? null } }));
        },
        async listInvitations(): Promise<TeamInvitation[]> {
          const r = await api.json<{ items: Json[] }>("/team-invitations", { query: { team_id: json.id }, session });
          return r.items.map((i) => ({
            id: i.id,
            recipientEmail: i.recipient_email ?? null,
            expiresAt: new Date(i.expires_at_millis),
            revoke: async () => {
              await api.send(`/team-invitations/${i.id}`, { method: "DELETE", query: { team_id: json.id }, session });
            },
          }));
        },
        async update(u) {
          await api.send(`/teams/${json.id}`, {
            method: "PATCH",
            body: { display_name: u.displayName, profile_image_url: u.profileImageUrl, client_metadata: u.clientMetadata },
            session,
          });
          // The team list and the user's selected team (part of the user) both show the change.
          if (session) await Promise.all([app.caches.teams.refresh([session]).catch(() => {}), app.caches.currentUser.refresh([session]).catch(() => {})]);
        },
        async delete() {
          await api.send(`/teams/${json.id}`, { method: "DELETE", session });
          if (session) await app.refreshUserCaches(session);
          if (session) await app.caches.teams.refresh([session]).catch(() => {});
        },
        createApiKey: async (options) => createApiKey(api, session, "team", json.id, options) as Promise<TeamApiKeyFirstView>,
        listApiKeys: async () => listApiKeys(api, session, "team", json.id) as Promise<TeamApiKey[]>,
        getItem: async (itemId) => app.itemFrom(await app.caches.items.get([session, "team", json.id, itemId])),
        createCheckoutUrl: async (options) => createCheckoutUrl(api, session, "team", json.id, options),
      };
      return team;
    });
  }

  /** @internal */
  protected teamProfileFrom(session: CoreSession | null, teamId: string, json: Json): EditableTeamMemberProfile {
    return {
      displayName: json.display_name ?? null,
      profileImageUrl: json.profile_image_url ?? null,
      update: async (u) => {
        await this.api.send(`/team-member-profiles/${teamId}/${session ? "me" : json.user_id}`, {
          method: "PATCH",
          body: { display_name: u.displayName, profile_image_url: u.profileImageUrl },
          session,
          accessType: session ? this.userAccessType : "server",
        });
      },
    };
  }

  /** @internal */
  protected contactChannelFrom(session: CoreSession | null, json: Json, userId: string): ContactChannel {
    const path = `/contact-channels/${userId}/${json.id}`;
    const accessType: AccessType = session ? "client" : "server";
    const refresh = async () => {
      if (session) await this.caches.contactChannels.refresh([session]).catch(() => {});
      if (session) await this.caches.currentUser.refresh([session]).catch(() => {});
    };
    return {
      id: json.id,
      value: json.value,
      type: json.type,
      isPrimary: json.is_primary,
      isVerified: json.is_verified,
      usedForAuth: json.used_for_auth,
      sendVerificationEmail: async (options = {}) => {
        await this.api.send(`${path}/send-verification-code`, {
          method: "POST",
          body: { callback_url: options.callbackUrl ?? this.callbackUrl(this.urls.emailVerification, "callbackUrl") },
          session,
          accessType,
        });
      },
      update: async (data: { value?: string; usedForAuth?: boolean; isPrimary?: boolean; isVerified?: boolean }) => {
        await this.api.send(path, {
          method: "PATCH",
          body: { value: data.value, used_for_auth: data.usedForAuth, is_primary: data.isPrimary, is_verified: data.isVerified },
          session,
          accessType,
        });
        await refresh();
      },
      delete: async () => {
        await this.api.send(path, { method: "DELETE", session, accessType });
        await refresh();
      },
    };
  }
}
