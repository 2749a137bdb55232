import { Type } from "typebox";
import type { Session } from "@vestibule/proto/auth/v1/session";
import { knownError, statusError } from "@vestibule/shared/errors";
import { FreeformObj, Obj, Optional, QueryBoolean, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { header } from "../../http/headers.ts";
import { defineRoute } from "../route.ts";
import { authorizationCodeGrant } from "./oauth.ts";
import { clientSelf, resolveUserId } from "../helpers.ts";
import { PUBLIC_CLIENT_SENTINEL, requiresPublishableKey } from "../../auth/request-auth.ts";

const ANY = ["client", "server", "admin"] as const;

function sessionView(s: Session, currentSessionId: string | undefined): Record<string, unknown> {
  const ip = s.lastUsedIpInfo;
  return {
    id: s.id,
    user_id: s.userId,
    created_at: Number(s.createdAtMillis),
    is_impersonation: s.isImpersonation,
    last_used_at: s.lastUsedAtMillis ? Number(s.lastUsedAtMillis) : undefined,
    is_current_session: s.id === currentSessionId,
    last_used_at_end_user_ip_info: ip
      ? {
          ip: ip.ip,
          countryCode: ip.countryCode ?? null,
          regionCode: ip.regionCode ?? null,
          cityName: ip.cityName ?? null,
          latitude: ip.latitude ?? null,
          longitude: ip.longitude ?? null,
          tzIdentifier: ip.tzIdentifier ?? null,
        }
      : undefined,
  };
}

export const createSessionRoute = defineRoute({
  method: "POST",
  path: "/auth/sessions",
  summary: "Create a session for a user (server side; impersonation too)",
  tags: ["Sessions"],
  access: ["server", "admin"],
  schemas: {
    body: Obj({
      user_id: UserIdOrMe(),
      expires_in_millis: Optional(Type.Integer({ minimum: 0, maximum: 31_708_800_000 })),
      is_impersonation: Optional(Type.Boolean()),
    }),
  },
  async handler({ auth, body, clients }) {
    const { result } = await clients.sessions.createSession({
      projectId: auth.projectId,
      userId: resolveUserId(auth, body.user_id),
      expiresInMillis: BigInt(body.expires_in_millis ?? 0),
      isImpersonation: body.is_impersonation ?? false,
    });
    return { json: { refresh_token: result!.refreshToken, access_token: result!.accessToken } };
  },
});

export const listSessionsRoute = defineRoute({
  method: "GET",
  path: "/auth/sessions",
  summary: "List a user's sessions, newest first",
  tags: ["Sessions"],
  access: ANY,
  schemas: { query: Obj({ user_id: UserIdOrMe() }) },
  async handler({ auth, query, clients }) {
    const userId = clientSelf(auth, query.user_id, "list sessions");
    const { sessions } = await clients.sessions.listSessions({ projectId: auth.projectId, userId, includeImpersonation: auth.type === "admin" });
    return { json: { items: sessions.map((s) => sessionView(s, auth.user?.refreshTokenId)), is_paginated: false } };
  },
});

export const deleteCurrentSessionRoute = defineRoute({
  method: "DELETE",
  path: "/auth/sessions/current",
  summary: "Sign out: revoke the session of the access token",
  tags: ["Sessions"],
  access: ANY,
  // No user / no access token: the reference answers ACCESS_TOKEN_EXPIRED (legacy tokens without a session id).
  user: "access-token-expired",
  schemas: { body: Optional(Obj({})) },
  async handler({ auth, clients }) {
    if (!auth.user) throw knownError("ACCESS_TOKEN_EXPIRED", { expired_at_millis: null }); // (checked before; for the type)
    try {
      await clients.sessions.revokeSession({ projectId: auth.projectId, sessionId: auth.user.refreshTokenId, userId: auth.user.id });
    } catch (err) {
      if ((err as { code?: number }).code === 5) throw knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      throw err;
    }
    return { json: { success: true } };
  },
});

export const deleteSessionRoute = defineRoute({
  method: "DELETE",
  path: "/auth/sessions/:id",
  summary: "Revoke one session of a user",
  tags: ["Sessions"],
  access: ANY,
  schemas: { params: Obj({ id: Uuid() }), query: Obj({ user_id: UserIdOrMe() }) },
  async handler({ auth, params, query, clients }) {
    const userId = clientSelf(auth, query.user_id, "delete sessions");
    if (params.id === auth.user?.refreshTokenId) throw knownError("CANNOT_DELETE_CURRENT_SESSION");
    await clients.sessions.revokeSession({ projectId: auth.projectId, sessionId: params.id, userId });
    return { json: { success: true } };
  },
});

export const refreshCurrentSessionRoute = defineRoute({
  method: "POST",
  path: "/auth/sessions/current/refresh",
  summary: "A new access token for the refresh token in x-stack-refresh-token",
  tags: ["Sessions"],
  access: ANY,
  schemas: { body: Optional(FreeformObj({})) },
  async handler({ auth, req, refreshes, clientIp }) {
    const refreshToken = header(req, "refresh-token");
    if (!refreshToken) {
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on POST ${req.url.split("?")[0]}:\n  - headers.x-stack-refresh-token must be defined` });
    }
    const res = await refreshes.refresh({ projectId: auth.projectId, refreshToken, ip: clientIp });
    return { json: res.refreshToken ? { access_token: res.accessToken, refresh_token: res.refreshToken } : { access_token: res.accessToken } };
  },
});

/**
 * `POST /auth/oauth/token`: the OAuth 2 token endpoint the published SDKs refresh with (form-encoded, client id =
 * project id[#branch], client secret = a publishable key). Extra form fields are allowed (OAuth libraries add some).
 */
export const oauthTokenRoute = defineRoute({
  method: "POST",
  path: "/auth/oauth/token",
  summary: "OAuth 2 token endpoint (refresh_token grant; authorization_code for OAuth sign-in)",
  tags: ["OAuth"],
  access: "none",
  schemas: {
    body: FreeformObj({
      grant_type: Type.String({ enum: ["refresh_token", "authorization_code"] }),
      client_id: Type.String(),
      client_secret: Type.String(),
      refresh_token: Optional(Type.String()),
      code: Optional(Type.String()),
    }),
  },
  async handler({ body, refreshes, projects, keys, req, clientIp, clients }) {
    const [projectId, branchId = "main"] = body.client_id.split("#") as [string, string | undefined];
    const project = /^(internal|[0-9a-f-]{36})$/.test(projectId) ? await projects.get(projectId) : null;
    let keyOk: boolean;
    if (project && branchId === "main" && body.client_secret === PUBLIC_CLIENT_SENTINEL) {
      // The current SDK without a publishable key (latest-sdk.md A2): allowed unless the project requires keys.
      if (requiresPublishableKey(project)) throw knownError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", { project_id: projectId });
      keyOk = true;
    } else {
      keyOk = project && branchId === "main" ? await keys.check(projectId, "publishable_client", body.client_secret) : false;
    }
    if (!keyOk) throw knownError("INVALID_OAUTH_CLIENT_ID_OR_SECRET", { client_id: body.client_id });
    if (body.grant_type === "authorization_code") return { json: await authorizationCodeGrant(clients, projectId, body, clientIp) };
    if (!body.refresh_token) {
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on POST ${req.url.split("?")[0]}:\n  - body.refresh_token must be defined` });
    }
    const res = await refreshes.refresh({ projectId, refreshToken: body.refresh_token, ip: clientIp });
    const out: Record<string, unknown> = { access_token: res.accessToken, token_type: "Bearer", expires_in: 3599, scope: "legacy" };
    if (res.refreshToken) out.refresh_token = res.refreshToken;
    return { json: out };
  },
});

export const jwksRoute = defineRoute({
  method: "GET",
  path: "/projects/:project_id/.well-known/jwks.json",
  summary: "Public keys that verify the project's access tokens",
  tags: ["Tokens"],
  access: "none",
  // include_restricted (the current SDK): restricted users' tokens are signed with the project's regular keys in
  // Vestibule, so the regular set already verifies them; accepted and validated, it adds nothing.
  schemas: {
    params: Obj({ project_id: Type.String() }),
    query: Obj({ include_anonymous: Optional(QueryBoolean()), include_restricted: Optional(QueryBoolean()) }),
  },
  async handler({ params, query, clients, reply, projects }) {
    const project = /^(internal|[0-9a-f-]{36})$/.test(params.project_id) ? await projects.get(params.project_id) : null;
    if (!project) throw statusError(404, "Project not found");
    const res = await clients.sessions.getVerificationKeys({ projectId: params.project_id, includeAnonymous: query.include_anonymous === true });
    const keys = (JSON.parse(res.jwksJson) as { keys: unknown[] }).keys;
    if (query.include_anonymous === true) keys.push(...(JSON.parse(res.anonymousJwksJson || '{"keys":[]}') as { keys: unknown[] }).keys);
    reply.header("cache-control", "public, max-age=3600");
    return { json: { keys } };
  },
});
