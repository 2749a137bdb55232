/**
 * OAuth sign-in through the gateway (contract endpoints.md §1 OAuth, tokens.md §6, latest-sdk.md B and C): authorize
 * (redirect with the inner-state cookie, or JSON `{location}`), the provider's callback (GET, and POST for providers
 * that post their answer), cross-domain authorize and the project's OpenID metadata. The token endpoint's
 * authorization-code grant is `authorizationCodeGrant` below, called by `POST /auth/oauth/token`. The flow itself lives
 * in the auth service (OAuthService); these routes only translate HTTP.
 */
import { Type } from "typebox";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ExchangeAuthorizationCodeResponse } from "@vestibule/proto/auth/v1/oauth_service";
import { FreeformObj, Obj, Optional } from "../../validation/index.ts";
import type { KeyCache, ProjectCache } from "../../auth/caches.ts";
import type { ServiceClients } from "../../clients.ts";
import { defineRoute } from "../route.ts";
import { PUBLIC_CLIENT_SENTINEL, requiresPublishableKey } from "../../auth/request-auth.ts";

const INNER_COOKIE_PREFIX = "stack-oauth-inner-";
const PROJECT_ID = /^(internal|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * The project of an OAuth client id (`<project id>[#<branch>]`) after checking its client secret (a publishable key,
 * or the public-client marker). Unknown project or branch → INVALID_OAUTH_CLIENT_ID_OR_SECRET; a wrong key →
 * `badKey()` (authorize answers INVALID_PUBLISHABLE_CLIENT_KEY, the token endpoint the client-id error).
 */
export async function oauthClientProject(
  deps: { projects: ProjectCache; keys: KeyCache },
  clientId: string,
  clientSecret: string,
  badKey: (projectId: string) => Error,
): Promise<string> {
  const [projectId = "", branchId = "main"] = clientId.split("#");
  const project = PROJECT_ID.test(projectId) && branchId === "main" ? await deps.projects.get(projectId) : null;
  if (!project) throw knownError("INVALID_OAUTH_CLIENT_ID_OR_SECRET", { client_id: clientId });
  // The current SDK's marker for "no publishable key configured" (latest-sdk.md A2), unless the project requires one.
  if (clientSecret === PUBLIC_CLIENT_SENTINEL) {
    if (requiresPublishableKey(project)) throw knownError("PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", { project_id: projectId });
    return projectId;
  }
  if (!(await deps.keys.check(projectId, "publishable_client", clientSecret))) throw badKey(projectId);
  return projectId;
}

function cookieNames(req: FastifyRequest): Set<string> {
  const names = new Set<string>();
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const name = part.split("=")[0]?.trim();
    if (name) names.add(name);
  }
  return names;
}

function secureCookies(publicUrl: string): boolean {
  return publicUrl.startsWith("https:");
}

function redirect(reply: FastifyReply, status: number, location: string): { sent: true } {
  void reply.code(status).header("location", location).header("cache-control", "no-store").send();
  return { sent: true };
}

const authorizeQuery = FreeformObj({
  client_id: Type.String(),
  client_secret: Type.String(),
  redirect_uri: Type.String(),
  state: Type.String({ minLength: 1 }),
  code_challenge: Type.String(),
  code_challenge_method: Type.String(),
  scope: Optional(Type.String()),
  grant_type: Optional(Type.String()),
  response_type: Optional(Type.String()),
  type: Optional(Type.String({ enum: ["authenticate", "link"] })),
  token: Optional(Type.String()),
  provider_scope: Optional(Type.String()),
  error_redirect_url: Optional(Type.String()),
  error_redirect_uri: Optional(Type.String()),
  after_callback_redirect_url: Optional(Type.String()),
  stack_response_mode: Optional(Type.String()),
  hexclave_response_mode: Optional(Type.String()),
});

export const oauthAuthorizeRoute = defineRoute({
  method: "GET",
  path: "/auth/oauth/authorize/:provider_id",
  summary: "Start OAuth sign-in or linking: redirect to the provider (or its URL as JSON)",
  tags: ["OAuth"],
  access: "none",
  schemas: { params: Obj({ provider_id: Type.String() }), query: authorizeQuery },
  async handler({ params, query, clients, projects, keys, reply, config, clientIp, req }) {
    const projectId = await oauthClientProject({ projects, keys }, query.client_id, query.client_secret, (id) =>
      knownError("INVALID_PUBLISHABLE_CLIENT_KEY", { project_id: id }),
    );
    if (query.code_challenge_method !== "S256") throw statusError(400, "code_challenge_method must be S256.");
    if (query.response_type !== undefined && query.response_type !== "code") throw statusError(400, "response_type must be code.");
    if (query.grant_type !== undefined && query.grant_type !== "authorization_code") throw statusError(400, "grant_type must be authorization_code.");
    if (query.scope !== undefined && query.scope !== "legacy") throw knownError("INVALID_SCOPE", { scope: query.scope });
    const jsonMode = query.stack_response_mode === "json" || query.hexclave_response_mode === "json";
    const res = await clients.oauth.beginAuthorization({
      projectId,
      providerConfigId: params.provider_id.toLowerCase(),
      type: query.type ?? "authenticate",
      redirectUri: query.redirect_uri,
      state: query.state,
      codeChallenge: query.code_challenge,
      accessToken: query.token ?? "",
      providerScope: query.provider_scope ?? "",
      errorRedirectUrl: query.error_redirect_url ?? query.error_redirect_uri ?? "",
      afterCallbackRedirectUrl: query.after_callback_redirect_url ?? "",
      jsonMode,
      client: { ip: clientIp, userAgent: req.headers["user-agent"] ?? "" },
    });
    if (jsonMode) return { json: { location: res.location } };
    const secure = secureCookies(config.publicUrl);
    reply.header(
      "set-cookie",
      `${INNER_COOKIE_PREFIX}${res.innerState}=1; Path=/; Max-Age=${res.expiresInSeconds}; HttpOnly; ${secure ? "Secure; SameSite=None" : "SameSite=Lax"}`,
    );
    return redirect(reply, 307, res.location);
  },
});

async function callback(
  ctx: { params: { provider_id: string }; req: FastifyRequest; reply: FastifyReply; clients: ServiceClients; clientIp: string; config: { publicUrl: string } },
  fields: Record<string, unknown>,
  status: number,
): Promise<{ sent: true }> {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) if (typeof v === "string") params[k] = v;
  const state = params.state ?? "";
  const res = await ctx.clients.oauth.handleCallback({
    providerConfigId: ctx.params.provider_id.toLowerCase(),
    params,
    cookiePresent: state !== "" && cookieNames(ctx.req).has(`${INNER_COOKIE_PREFIX}${state}`),
    client: { ip: ctx.clientIp, userAgent: ctx.req.headers["user-agent"] ?? "" },
  });
  if (res.innerState) ctx.reply.header("set-cookie", `${INNER_COOKIE_PREFIX}${res.innerState}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
  return redirect(ctx.reply, status, res.location);
}

const callbackFields = FreeformObj({ state: Optional(Type.String()), code: Optional(Type.String()), error: Optional(Type.String()) });

export const oauthCallbackRoute = defineRoute({
  method: "GET",
  path: "/auth/oauth/callback/:provider_id",
  summary: "The identity provider's callback: redirects to the app with an authorization code",
  tags: ["OAuth"],
  access: "none",
  schemas: { params: Obj({ provider_id: Type.String() }), query: callbackFields },
  handler: (ctx) => callback(ctx, ctx.query, 307),
});

export const oauthCallbackPostRoute = defineRoute({
  method: "POST",
  path: "/auth/oauth/callback/:provider_id",
  summary: "The identity provider's callback as a form post (e.g. Apple)",
  tags: ["OAuth"],
  access: "none",
  schemas: { params: Obj({ provider_id: Type.String() }), query: callbackFields, body: Optional(callbackFields) },
  handler: (ctx) => callback(ctx, { ...ctx.query, ...(ctx.body ?? {}) }, 303),
});

/** `POST /auth/oauth/token` with `grant_type=authorization_code` (tokens.md §6). */
export async function authorizationCodeGrant(
  clients: ServiceClients,
  projectId: string,
  body: { code?: string; redirect_uri?: unknown; code_verifier?: unknown },
  clientIp: string,
): Promise<Record<string, unknown>> {
  const res: ExchangeAuthorizationCodeResponse = await clients.oauth.exchangeAuthorizationCode({
    projectId,
    code: body.code ?? "",
    redirectUri: typeof body.redirect_uri === "string" ? body.redirect_uri : "",
    codeVerifier: typeof body.code_verifier === "string" ? body.code_verifier : "",
    client: { ip: clientIp },
  });
  const r = res.result!;
  const after = res.afterCallbackRedirectUrl ?? null;
  return {
    access_token: r.accessToken,
    token_type: "Bearer",
    expires_in: 3599,
    refresh_token: r.refreshToken,
    scope: "legacy",
    is_new_user: r.isNewUser,
    newUser: r.isNewUser,
    after_callback_redirect_url: after,
    afterCallbackRedirectUrl: after,
    user_id: r.userId,
  };
}

export const crossDomainAuthorizeRoute = defineRoute({
  method: "POST",
  path: "/auth/oauth/cross-domain/authorize",
  summary: "An authorization code for the signed-in session, for handler pages on another origin",
  tags: ["OAuth"],
  access: ["client"],
  user: "known-error",
  schemas: {
    body: Obj({
      redirect_uri: Type.String(),
      state: Type.String({ minLength: 1, maxLength: 512 }),
      code_challenge: Type.String({ minLength: 43, maxLength: 128, pattern: "^[A-Za-z0-9._~-]+$" }),
      code_challenge_method: Type.String({ enum: ["S256"] }),
      after_callback_redirect_url: Optional(Type.String()),
    }),
  },
  async handler({ auth, body, clients }) {
    const res = await clients.oauth.authorizeCrossDomain({
      projectId: auth.projectId,
      userId: auth.user!.id,
      sessionId: auth.user!.refreshTokenId,
      refreshToken: auth.refreshToken ?? "",
      redirectUri: body.redirect_uri,
      state: body.state,
      codeChallenge: body.code_challenge,
      afterCallbackRedirectUrl: body.after_callback_redirect_url ?? "",
    });
    return { json: { redirect_url: res.redirectUrl } };
  },
});

/** OpenID Provider metadata of a project, next to its JWKS, so standard OIDC tooling can verify its tokens. */
export const openIdConfigurationRoute = defineRoute({
  method: "GET",
  path: "/projects/:project_id/.well-known/openid-configuration",
  summary: "OpenID Connect discovery metadata of the project (issuer, JWKS, token endpoint)",
  tags: ["Tokens"],
  access: "none",
  schemas: { params: Obj({ project_id: Type.String() }) },
  async handler({ params, projects, config, reply }) {
    const project = PROJECT_ID.test(params.project_id) ? await projects.get(params.project_id) : null;
    if (!project) throw statusError(404, "Project not found");
    const base = `${config.publicUrl.replace(/\/+$/, "")}/api/v1`;
    reply.header("cache-control", "public, max-age=3600");
    return {
      json: {
        issuer: `${base}/projects/${params.project_id}`,
        jwks_uri: `${base}/projects/${params.project_id}/.well-known/jwks.json`,
        authorization_endpoint: `${base}/auth/oauth/authorize`,
        token_endpoint: `${base}/auth/oauth/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["ES256"],
        token_endpoint_auth_methods_supported: ["client_secret_post"],
        code_challenge_methods_supported: ["S256"],
        scopes_supported: ["legacy"],
        claims_supported: ["sub", "iss", "aud", "exp", "iat", "project_id", "branch_id", "refresh_token_id", "role", "name", "email", "email_verified", "selected_team_id", "is_anonymous"],
      },
    };
  },
});

export const oauthFlowRoutes = [oauthAuthorizeRoute, oauthCallbackRoute, oauthCallbackPostRoute, crossDomainAuthorizeRoute, openIdConfigurationRoute];
