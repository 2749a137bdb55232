/**
 * Users' linked OAuth accounts and connected-account access tokens (contract endpoints.md §9, latest-sdk.md C). The
 * links are the auth service's (OAuthService); `provider_id` in `/oauth-providers/{user}/{id}` is the link's UUID, in
 * `/connected-accounts` the provider config id.
 */
import { Type } from "typebox";
import type { OAuthAccount } from "@vestibule/proto/auth/v1/oauth_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { RequestAuth } from "../../auth/request-auth.ts";
import { Nullable, Obj, Optional, UserIdOrMe } from "../../validation/index.ts";
import { clientSelf, resolveUserId } from "../helpers.ts";
import { defineRoute } from "../route.ts";

const ANY = ["client", "server", "admin"] as const;

function providerView(a: OAuthAccount, auth: RequestAuth): Record<string, unknown> {
  const view: Record<string, unknown> = {
    user_id: a.userId,
    id: a.id,
    email: a.email ?? null,
    provider_config_id: a.providerConfigId,
    type: a.type,
    allow_sign_in: a.allowSignIn,
    allow_connected_accounts: a.allowConnectedAccounts,
  };
  if (auth.type !== "client") view.account_id = a.accountId;
  return view;
}

/** A client acts on its own user only (403 text otherwise); server and admin on any. */
function userOf(auth: RequestAuth, idOrMe: string | undefined, what: string): string {
  if (auth.type === "client") return clientSelf(auth, idOrMe, what);
  if (idOrMe === undefined) throw statusError(400, "user_id is required.");
  return resolveUserId(auth, idOrMe);
}

const linkParams = Obj({ user_id: UserIdOrMe(), provider_id: Type.String() });

export const listOAuthProvidersRoute = defineRoute({
  method: "GET",
  path: "/oauth-providers",
  summary: "A user's linked OAuth accounts",
  tags: ["OAuth providers"],
  access: ANY,
  schemas: { query: Obj({ user_id: Optional(UserIdOrMe()) }) },
  async handler({ auth, query, clients }) {
    const userId = userOf(auth, query.user_id ?? (auth.type === "client" ? "me" : undefined), "list OAuth providers");
    const { accounts } = await clients.oauth.listOAuthAccounts({ projectId: auth.projectId, userId });
    return { json: { items: accounts.map((a) => providerView(a, auth)), is_paginated: false } };
  },
});

export const createOAuthProviderRoute = defineRoute({
  method: "POST",
  path: "/oauth-providers",
  summary: "Link an OAuth account to a user (server side)",
  tags: ["OAuth providers"],
  access: ["server", "admin"],
  schemas: {
    body: Obj({
      user_id: UserIdOrMe(),
      provider_config_id: Type.String({ minLength: 1 }),
      account_id: Type.String({ minLength: 1 }),
      email: Optional(Nullable(Type.String())),
      allow_sign_in: Type.Boolean(),
      allow_connected_accounts: Type.Boolean(),
    }),
  },
  async handler({ auth, body, clients }) {
    const { account } = await clients.oauth.createOAuthAccount({
      projectId: auth.projectId,
      userId: resolveUserId(auth, body.user_id),
      providerConfigId: body.provider_config_id,
      accountId: body.account_id,
      email: body.email ?? undefined,
      allowSignIn: body.allow_sign_in,
      allowConnectedAccounts: body.allow_connected_accounts,
    });
    return { status: 201, json: providerView(account!, auth) };
  },
});

export const getOAuthProviderRoute = defineRoute({
  method: "GET",
  path: "/oauth-providers/:user_id/:provider_id",
  summary: "One linked OAuth account",
  tags: ["OAuth providers"],
  access: ANY,
  schemas: { params: linkParams },
  async handler({ auth, params, clients }) {
    const userId = userOf(auth, params.user_id, "read OAuth providers");
    const { account } = await clients.oauth.getOAuthAccount({ projectId: auth.projectId, userId, id: params.provider_id });
    return { json: providerView(account!, auth) };
  },
});

export const updateOAuthProviderRoute = defineRoute({
  method: "PATCH",
  path: "/oauth-providers/:user_id/:provider_id",
  summary: "Change whether a linked account signs in or serves connected-account tokens",
  tags: ["OAuth providers"],
  access: ANY,
  schemas: {
    params: linkParams,
    body: Obj({
      allow_sign_in: Optional(Type.Boolean()),
      allow_connected_accounts: Optional(Type.Boolean()),
      email: Optional(Nullable(Type.String())),
      account_id: Optional(Type.String({ minLength: 1 })),
    }),
  },
  async handler({ auth, params, body, clients }) {
    const userId = userOf(auth, params.user_id, "update OAuth providers");
    if (auth.type === "client" && (body.email !== undefined || body.account_id !== undefined)) {
      throw knownError("SCHEMA_ERROR", { message: "Request validation failed: body.email and body.account_id can only be set with server access" });
    }
    const { account } = await clients.oauth.updateOAuthAccount({
      projectId: auth.projectId,
      userId,
      id: params.provider_id,
      allowSignIn: body.allow_sign_in,
      allowConnectedAccounts: body.allow_connected_accounts,
      accountId: body.account_id,
      email: body.email ?? undefined,
      clearEmail: body.email === null,
    });
    return { json: providerView(account!, auth) };
  },
});

export const deleteOAuthProviderRoute = defineRoute({
  method: "DELETE",
  path: "/oauth-providers/:user_id/:provider_id",
  summary: "Unlink an OAuth account",
  tags: ["OAuth providers"],
  access: ANY,
  schemas: { params: linkParams },
  async handler({ auth, params, clients }) {
    const userId = userOf(auth, params.user_id, "delete OAuth providers");
    await clients.oauth.deleteOAuthAccount({ projectId: auth.projectId, userId, id: params.provider_id });
    return { json: { success: true } };
  },
});

const scopeBody = Optional(Obj({ scope: Optional(Type.String()) }));

export const connectedAccountTokenRoute = defineRoute({
  method: "POST",
  path: "/connected-accounts/:user_id/:provider_id/access-token",
  summary: "A current access token of the user's account at the provider, with the requested scopes",
  tags: ["OAuth providers"],
  access: ANY,
  schemas: { params: linkParams, body: scopeBody },
  async handler({ auth, params, body, clients }) {
    const userId = userOf(auth, params.user_id, "get connected-account tokens");
    const res = await clients.oauth.getConnectedAccessToken({
      projectId: auth.projectId,
      userId,
      providerConfigId: params.provider_id,
      providerAccountId: "",
      scope: body?.scope ?? "",
    });
    return { status: 201, json: { access_token: res.accessToken } };
  },
});

export const connectedAccountByAccountTokenRoute = defineRoute({
  method: "POST",
  path: "/connected-accounts/:user_id/:provider_id/:provider_account_id/access-token",
  summary: "A current access token of one of the user's accounts at the provider",
  tags: ["OAuth providers"],
  access: ANY,
  schemas: { params: Obj({ user_id: UserIdOrMe(), provider_id: Type.String(), provider_account_id: Type.String() }), body: scopeBody },
  async handler({ auth, params, body, clients }) {
    const userId = userOf(auth, params.user_id, "get connected-account tokens");
    const res = await clients.oauth.getConnectedAccessToken({
      projectId: auth.projectId,
      userId,
      providerConfigId: params.provider_id,
      providerAccountId: params.provider_account_id,
      scope: body?.scope ?? "",
    });
    return { status: 201, json: { access_token: res.accessToken } };
  },
});

export const listConnectedAccountsRoute = defineRoute({
  method: "GET",
  path: "/connected-accounts/:user_id",
  summary: "The user's accounts that serve connected-account tokens",
  tags: ["OAuth providers"],
  access: ANY,
  schemas: { params: Obj({ user_id: UserIdOrMe() }) },
  async handler({ auth, params, clients }) {
    const userId = userOf(auth, params.user_id, "list connected accounts");
    const { accounts } = await clients.oauth.listOAuthAccounts({ projectId: auth.projectId, userId });
    return {
      json: {
        items: accounts.filter((a) => a.allowConnectedAccounts).map((a) => ({ user_id: a.userId, provider: a.providerConfigId, provider_account_id: a.accountId })),
        is_paginated: false,
      },
    };
  },
});

export const oauthProviderRoutes = [
  listOAuthProvidersRoute,
  createOAuthProviderRoute,
  getOAuthProviderRoute,
  updateOAuthProviderRoute,
  deleteOAuthProviderRoute,
  connectedAccountTokenRoute,
  connectedAccountByAccountTokenRoute,
  listConnectedAccountsRoute,
];
