/**
 * What a completed provider sign-in does to users (contract endpoints.md §1 OAuth, spec "merge strategies"):
 * link to the signed-in user, sign in the account's user, or sign up (anonymous upgrade, the project's merge strategy
 * when the provider's e-mail already signs someone in). The links live here (oauth_accounts, tokens encrypted);
 * identity keeps a copy of each user's list for the user views (`oauth_providers`), rewritten after every change.
 */
import type { User } from "@vestibule/proto/identity/v1/user";
import { knownError, statusError } from "@vestibule/shared/errors";
import { newId } from "@vestibule/shared/ids";
import type { AuthSettings } from "../domain/settings.ts";
import type { AuthRuntime } from "../runtime.ts";
import type { ProviderTokens } from "./client.ts";
import type { ProviderProfile } from "./profiles.ts";
import type { MergeStrategy, ProviderSettings } from "./settings.ts";
import { oauthStore, type OAuthAccountRow } from "./store/oauth-store.ts";
import { createUserWithCredentials } from "../users/user-creation.ts";

export interface CallbackIdentity {
  readonly provider: ProviderSettings;
  readonly profile: ProviderProfile;
  readonly tokens: ProviderTokens;
  readonly sharedKeys: boolean;
}

export class OAuthAccounts {
  constructor(private readonly rt: AuthRuntime) {}

  /** Rewrites identity's copy of the user's links (what `oauth_providers` of the user views shows). */
  async syncIdentity(projectId: string, userId: string): Promise<User | undefined> {
    const rows = await oauthStore.accountsOfUser(this.rt.ctx.pool, projectId, userId);
    const res = await this.rt.identity.users.updateUser({
      projectId,
      userId,
      oauthProviders: { links: rows.map((r) => ({ id: r.provider_config_id, accountId: r.provider_account_id, email: r.email ?? undefined })) },
    });
    return res.user;
  }

  /** Stores the provider's tokens of a link, encrypted and bound to the link's id. */
  async storeTokens(accountId: string, tokens: ProviderTokens, sharedKeys: boolean, email: string | null): Promise<void> {
    const { secrets, pool } = this.rt.ctx;
    await oauthStore.setTokens(
      pool,
      accountId,
      {
        accessTokenCiphertext: await secrets.encrypt(tokens.accessToken, `oauth-account:${accountId}:access`),
        accessTokenExpiresAt: tokens.expiresAt,
        refreshTokenCiphertext: tokens.refreshToken ? await secrets.encrypt(tokens.refreshToken, `oauth-account:${accountId}:refresh`) : null,
        scopes: tokens.scopes,
        sharedKeys,
      },
      email,
    );
  }

  async openAccessToken(row: OAuthAccountRow): Promise<string | undefined> {
    return row.access_token_ciphertext ? this.rt.ctx.secrets.decrypt(row.access_token_ciphertext, `oauth-account:${row.id}:access`) : undefined;
  }

  async openRefreshToken(row: OAuthAccountRow): Promise<string | undefined> {
    return row.refresh_token_ciphertext ? this.rt.ctx.secrets.decrypt(row.refresh_token_ciphertext, `oauth-account:${row.id}:refresh`) : undefined;
  }

  /** A new link; `allowSignIn` is dropped when the user already signs in with another account of that provider. */
  async link(projectId: string, userId: string, id: CallbackIdentity, allowSignIn: boolean): Promise<string> {
    const { pool } = this.rt.ctx;
    const mine = await oauthStore.accountsOfUser(pool, projectId, userId);
    const signInTaken = mine.some((r) => r.provider_config_id === id.provider.configId && r.allow_sign_in);
    const accountId = newId();
    await oauthStore.insertAccount(pool, {
      id: accountId,
      projectId,
      userId,
      providerConfigId: id.provider.configId,
      providerType: id.provider.type,
      providerAccountId: id.profile.accountId,
      email: id.profile.email,
      allowSignIn: allowSignIn && !signInTaken,
      allowConnectedAccounts: true,
      sharedKeys: id.sharedKeys,
    });
    await this.storeTokens(accountId, id.tokens, id.sharedKeys, id.profile.email);
    await this.syncIdentity(projectId, userId);
    return accountId;
  }

  /** `type=link`: the provider account joins the signed-in user. */
  async linkToUser(projectId: string, userId: string, id: CallbackIdentity): Promise<void> {
    const rows = await oauthStore.accountsWithProviderAccount(this.rt.ctx.pool, projectId, id.provider.configId, id.profile.accountId);
    if (rows.some((r) => r.user_id !== userId && r.allow_sign_in)) throw knownError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
    const own = rows.find((r) => r.user_id === userId);
    if (own) {
      await this.storeTokens(own.id, id.tokens, id.sharedKeys, id.profile.email);
      return;
    }
    await this.link(projectId, userId, id, !rows.some((r) => r.allow_sign_in));
  }

  /**
   * `type=authenticate`: the user the provider account signs in, or a new one (an anonymous caller is upgraded).
   * An e-mail that already signs someone in follows the project's merge strategy.
   */
  async signInOrUp(
    settings: AuthSettings,
    mergeStrategy: MergeStrategy,
    id: CallbackIdentity,
    opts: { anonymousUserId?: string; ip: string },
  ): Promise<{ userId: string; isNewUser: boolean }> {
    const { pool } = this.rt.ctx;
    const projectId = settings.projectId;
    const existing = (await oauthStore.accountsWithProviderAccount(pool, projectId, id.provider.configId, id.profile.accountId)).find((r) => r.allow_sign_in);
    if (existing) {
      await this.storeTokens(existing.id, id.tokens, id.sharedKeys, id.profile.email);
      return { userId: existing.user_id, isNewUser: false };
    }

    let emailAuth = id.profile.email !== null;
    if (id.profile.email) {
      const found = await this.rt.identity.users.findUserByAuthEmail({ projectId, email: id.profile.email });
      if (found.user) {
        if (mergeStrategy === "link_method") {
          if (!id.profile.emailVerified || !found.emailVerified) {
            throw knownError("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", {
              type: "email",
              contact_channel_value: id.profile.email,
              would_work_if_email_was_verified: true,
            });
          }
          await this.link(projectId, found.user.id, id, true);
          return { userId: found.user.id, isNewUser: false };
        }
        if (mergeStrategy === "raise_error") {
          throw knownError("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", {
            type: "email",
            contact_channel_value: id.profile.email,
            would_work_if_email_was_verified: false,
          });
        }
        // allow_duplicates: a second user whose e-mail does not sign in.
        emailAuth = false;
      }
    }

    if (!settings.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
    const anonymous = opts.anonymousUserId ? await this.rt.sessions.getUser(projectId, opts.anonymousUserId) : undefined;
    let user: User;
    if (anonymous?.isAnonymous) {
      const res = await this.rt.identity.users.updateUser({
        projectId,
        userId: anonymous.id,
        ...(id.profile.email ? { primaryEmail: { value: id.profile.email }, primaryEmailVerified: id.profile.emailVerified, primaryEmailAuthEnabled: emailAuth } : {}),
        ...(id.profile.displayName && !anonymous.displayName ? { displayName: { value: id.profile.displayName } } : {}),
        ...(id.profile.profileImageUrl && !anonymous.profileImageUrl ? { profileImageUrl: { value: id.profile.profileImageUrl } } : {}),
        isAnonymous: false,
      });
      user = res.user!;
      await this.link(projectId, user.id, id, true);
    } else {
      // The user and its link in one step (user-creation.ts); the provider's tokens join the link afterwards.
      user = await createUserWithCredentials(
        this.rt,
        {
          projectId,
          primaryEmail: id.profile.email ?? undefined,
          primaryEmailVerified: id.profile.emailVerified,
          primaryEmailAuthEnabled: emailAuth,
          displayName: id.profile.displayName ?? undefined,
          profileImageUrl: id.profile.profileImageUrl ?? undefined,
          signUpMethod: "oauth",
          signUpIp: opts.ip,
        },
        { oauthLinks: [{ providerConfigId: id.provider.configId, providerType: id.provider.type, accountId: id.profile.accountId, email: id.profile.email, sharedKeys: id.sharedKeys }] },
      );
      const row = (await oauthStore.accountsWithProviderAccount(this.rt.ctx.pool, projectId, id.provider.configId, id.profile.accountId)).find((r) => r.user_id === user.id);
      if (row) await this.storeTokens(row.id, id.tokens, id.sharedKeys, id.profile.email);
    }
    return { userId: user.id, isNewUser: true };
  }

  /** The users' links as the API lists them. */
  async list(projectId: string, userId: string): Promise<OAuthAccountRow[]> {
    return oauthStore.accountsOfUser(this.rt.ctx.pool, projectId, userId);
  }

  /** Fails with the contract's 400 text when another link of the user already signs in with that provider. */
  async assertSignInFree(projectId: string, userId: string, providerConfigId: string, exceptId?: string): Promise<void> {
    const mine = await oauthStore.accountsOfUser(this.rt.ctx.pool, projectId, userId);
    if (mine.some((r) => r.id !== exceptId && r.provider_config_id === providerConfigId && r.allow_sign_in)) {
      throw statusError(400, "The user already has an OAuth provider of this type used for signing in.");
    }
  }
}
