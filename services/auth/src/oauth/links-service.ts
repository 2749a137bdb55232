/**
 * The `/oauth-providers` CRUD and connected-account access tokens (contract endpoints.md §9, latest-sdk.md C).
 * Links are those of oauth_accounts (the same store the OAuth callback and `POST /users` write); every change is
 * mirrored into identity's copy for the user views.
 */
import { knownError, statusError } from "@vestibule/shared/errors";
import { normalizeEmail } from "@vestibule/shared/emails";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { OAuthAccount } from "@vestibule/proto/auth/v1/oauth_service";
import type { OAuthRuntime } from "./runtime.ts";
import type { ProviderSettings } from "./settings.ts";
import { oauthStore, type OAuthAccountRow } from "./store/oauth-store.ts";

/** A stored token is handed out while it has at least this long to live. */
const TOKEN_MARGIN_MS = 60_000;

function message(r: OAuthAccountRow): OAuthAccount {
  return {
    $typeName: "vestibule.auth.v1.OAuthAccount",
    id: r.id,
    userId: r.user_id,
    providerConfigId: r.provider_config_id,
    type: r.provider_type,
    accountId: r.provider_account_id,
    email: r.email ?? undefined,
    allowSignIn: r.allow_sign_in,
    allowConnectedAccounts: r.allow_connected_accounts,
  };
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === "23505";
}

export function createLinkHandlers(o: OAuthRuntime) {
  const { rt, accounts } = o;
  const { pool } = rt.ctx;

  async function ownLink(projectId: string, userId: string, id: string): Promise<OAuthAccountRow> {
    const row = isUuid(id) ? await oauthStore.account(pool, projectId, id) : undefined;
    if (!row || row.user_id !== userId) throw statusError(404, "OAuth provider not found.");
    return row;
  }

  async function providerOf(projectId: string, configId: string): Promise<ProviderSettings | undefined> {
    return (await o.settings.get(projectId)).providers.get(configId);
  }

  return {
    async listOAuthAccounts(req: { projectId: string; userId: string }) {
      const rows = isUuid(req.userId) ? await accounts.list(req.projectId, req.userId) : [];
      return { accounts: rows.map(message) };
    },

    async getOAuthAccount(req: { projectId: string; userId: string; id: string }) {
      return { account: message(await ownLink(req.projectId, req.userId, req.id)) };
    },

    async createOAuthAccount(req: {
      projectId: string;
      userId: string;
      providerConfigId: string;
      accountId: string;
      email?: string;
      allowSignIn: boolean;
      allowConnectedAccounts: boolean;
    }) {
      const provider = await providerOf(req.projectId, req.providerConfigId);
      if (!provider) throw statusError(404, `OAuth provider ${req.providerConfigId} not found in the project's configuration.`);
      if (!isUuid(req.userId) || !(await rt.sessions.getUser(req.projectId, req.userId))) throw knownError("USER_NOT_FOUND");
      if (req.allowSignIn) {
        await accounts.assertSignInFree(req.projectId, req.userId, provider.configId);
        const used = await oauthStore.accountsWithProviderAccount(pool, req.projectId, provider.configId, req.accountId);
        if (used.some((r) => r.allow_sign_in)) throw knownError("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN");
      }
      const id = newId();
      try {
        await oauthStore.insertAccount(pool, {
          id,
          projectId: req.projectId,
          userId: req.userId,
          providerConfigId: provider.configId,
          providerType: provider.type,
          providerAccountId: req.accountId,
          email: req.email ? normalizeEmail(req.email) : null,
          allowSignIn: req.allowSignIn,
          allowConnectedAccounts: req.allowConnectedAccounts,
          sharedKeys: provider.isShared,
        });
      } catch (err) {
        if (isUniqueViolation(err)) {
          if (req.allowSignIn) throw knownError("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN");
          throw statusError(400, "The user is already linked to this provider account.");
        }
        throw err;
      }
      await accounts.syncIdentity(req.projectId, req.userId);
      return { account: message((await oauthStore.account(pool, req.projectId, id))!) };
    },

    async updateOAuthAccount(req: {
      projectId: string;
      userId: string;
      id: string;
      allowSignIn?: boolean;
      allowConnectedAccounts?: boolean;
      accountId?: string;
      email?: string;
      clearEmail: boolean;
    }) {
      const row = await ownLink(req.projectId, req.userId, req.id);
      const next = {
        allowSignIn: req.allowSignIn ?? row.allow_sign_in,
        allowConnectedAccounts: req.allowConnectedAccounts ?? row.allow_connected_accounts,
        providerAccountId: req.accountId ?? row.provider_account_id,
        email: req.clearEmail ? null : req.email !== undefined ? normalizeEmail(req.email) : row.email,
      };
      if (next.allowSignIn && (!row.allow_sign_in || next.providerAccountId !== row.provider_account_id)) {
        await accounts.assertSignInFree(req.projectId, req.userId, row.provider_config_id, row.id);
        const used = await oauthStore.accountsWithProviderAccount(pool, req.projectId, row.provider_config_id, next.providerAccountId);
        if (used.some((r) => r.id !== row.id && r.allow_sign_in)) throw knownError("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN");
      }
      try {
        await oauthStore.updateAccount(pool, row.id, next);
      } catch (err) {
        if (isUniqueViolation(err)) throw knownError("OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN");
        throw err;
      }
      await accounts.syncIdentity(req.projectId, req.userId);
      return { account: message((await oauthStore.account(pool, req.projectId, row.id))!) };
    },

    async deleteOAuthAccount(req: { projectId: string; userId: string; id: string }) {
      const row = await ownLink(req.projectId, req.userId, req.id);
      await oauthStore.deleteAccount(pool, req.projectId, row.id);
      await accounts.syncIdentity(req.projectId, req.userId);
      return {};
    },

    async getConnectedAccessToken(req: { projectId: string; userId: string; providerConfigId: string; providerAccountId: string; scope: string }) {
      const provider = await providerOf(req.projectId, req.providerConfigId);
      if (!provider || !(provider.allowConnectedAccounts || provider.allowSignIn)) throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
      if (provider.isShared) throw knownError("OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS");
      const rows = (isUuid(req.userId) ? await accounts.list(req.projectId, req.userId) : []).filter(
        (r) => r.provider_config_id === provider.configId && r.allow_connected_accounts && (!req.providerAccountId || r.provider_account_id === req.providerAccountId),
      );
      if (rows.length === 0) throw knownError("OAUTH_CONNECTION_NOT_CONNECTED_TO_USER");
      const wanted = req.scope.split(/\s+/).filter((s) => s !== "");
      const hasScopes = (r: { scopes: readonly string[] }) => wanted.every((s) => r.scopes.includes(s));
      const row = rows.find(hasScopes);
      if (!row) throw knownError("OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE");
      const fresh = row.access_token_expires_at === null || row.access_token_expires_at.getTime() - Date.now() > TOKEN_MARGIN_MS;
      const current = fresh ? await accounts.openAccessToken(row) : undefined;
      if (current) return { accessToken: current };
      const refreshToken = await accounts.openRefreshToken(row);
      if (!refreshToken) throw knownError("OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE");
      const client = await o.clients.get(provider);
      let tokens;
      try {
        tokens = await o.clients.refresh(client, refreshToken, row.scopes);
      } catch (err) {
        rt.ctx.log.warn({ project_id: req.projectId, provider: provider.configId, err: (err as Error).message }, "the provider refused to refresh a connected account's token");
        throw knownError("PROVIDER_REJECTED");
      }
      await accounts.storeTokens(row.id, tokens, provider.isShared, null);
      return { accessToken: tokens.accessToken };
    },
  };
}
