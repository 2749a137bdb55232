import { randomUUID } from "node:crypto";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import swagger from "@fastify/swagger";
import { runWithContext } from "@vestibule/shared/context";
import { isKnownError, knownError } from "@vestibule/shared/errors";
import { extractTraceContext, INERT_SPAN, inSpan, SpanKind, tracingEnabled, type Span } from "@vestibule/shared/tracing";
import type { EventBus, Subscription } from "@vestibule/shared/events";
import { isUuid } from "@vestibule/shared/ids";
import type { Logger } from "@vestibule/shared/log";
import { AuditTrail } from "./audit/audit-trail.ts";
import { ApiKeyCheckCache } from "./auth/api-key-checks.ts";
import { KeyCache, ProjectCache } from "./auth/caches.ts";
import { OwnerTeamCache } from "./auth/project-ownership.ts";
import { RefreshBatcher } from "./auth/refresh-batcher.ts";
import { ItemReads } from "./payments/item-reads.ts";
import { authenticateRequest, type ProjectOwnership, type RequestAuth, type TokenVerifier } from "./auth/request-auth.ts";
import { SignInBatcher } from "./auth/sign-in-batcher.ts";
import type { TeamAccess } from "./auth/team-access.ts";
import { TeamCache } from "./auth/team-cache.ts";
import { teamsServiceAccess } from "./auth/teams-service-access.ts";
import { JwksTokenVerifier } from "./auth/token-verifier.ts";
import { UsageRecorder } from "./auth/usage.ts";
import { UserCache } from "./auth/user-cache.ts";
import { subscribeCacheInvalidation } from "./cache-invalidation.ts";
import type { ServiceClients } from "./clients.ts";
import type { GatewayConfig } from "./config.ts";
import { registerBodyParsers } from "./http/body.ts";
import { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, HEADER_PREFIXES, header } from "./http/headers.ts";
import { MAX_PATH_PARAM_LENGTH, answerClientError, answerFrameworkError } from "./http/framework-errors.ts";
import { handleError, sendJson, sendText } from "./http/replies.ts";
import { LazyChildLogger } from "./http/request-logger.ts";
import { trustProxySetting } from "./http/trust-proxy.ts";
import { checkAccess, checkParamAccess, type RouteResult, type RouteSpec } from "./routes/route.ts";
import { v1Routes } from "./routes/v1/index.ts";
import { describeReadiness, type Readiness } from "./readiness.ts";
import type { HttpMetrics } from "@vestibule/shared/metrics";
import type { GatewayState } from "./state.ts";
import { compileRequestValidator } from "./validation/index.ts";

export interface GatewayDeps {
  readonly config: GatewayConfig;
  readonly clients: ServiceClients;
  readonly log: Logger;
  /** Event bus for cache invalidation; optional in unit tests. */
  readonly bus?: EventBus;
  /** Replaces the JWKS verifier (tests). */
  readonly tokens?: TokenVerifier;
  readonly ownership?: ProjectOwnership;
  /** Teams and team permissions (team API keys); defaults to the teams-permissions service (`teamsServiceAccess`). */
  readonly teams?: TeamAccess;
  /** Dependency readiness behind `GET /health`; without it /health is a constant 200 (unit tests). */
  readonly readiness?: Readiness;
  /** Request counts and latencies for Prometheus (served on the metrics port by main.ts). */
  readonly httpMetrics?: HttpMetrics;
}

/** The built gateway: its fastify app (not listening) and its collaborators (GatewayState). */
export interface Gateway extends GatewayState {
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

declare module "fastify" {
  interface FastifyRequest {
    vestibuleAuth: RequestAuth | null;
  }
}

const ALLOWED_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const API_PREFIXES = ["/api/v1", "/api/latest"];

/**
 * Builds the gateway (not listening). Request life cycle:
 * onRequest: request id, CORS, preflight → body parsing (http/body.ts) → route: header authentication
 * (auth/request-auth.ts) → access type → schema validation (SCHEMA_ERROR) → handler (RPCs) → onSend: override of
 * error statuses for the SDK → one error handler for everything (http/replies.ts).
 */
export async function buildGateway(deps: GatewayDeps): Promise<Gateway> {
  const { config, clients } = deps;
  const projects = new ProjectCache(clients);
  const keys = new KeyCache(clients);
  const users = new UserCache(clients);
  const verifier = new JwksTokenVerifier(clients, config.publicUrl, users);
  const tokens = deps.tokens ?? verifier;
  const usage = new UsageRecorder(clients, deps.log);
  const refreshes = new RefreshBatcher(clients.sessions);
  const teamCache = new TeamCache(clients);
  const ownerTeams = new OwnerTeamCache(clients);
  const apiKeyChecks = new ApiKeyCheckCache(clients);
  const teams = deps.teams ?? teamsServiceAccess(clients, teamCache);
  const signIns = new SignInBatcher(clients.passwords);
  const audit = new AuditTrail(clients);
  const itemReads = new ItemReads(clients.items);
  const state: GatewayState = { config, clients, projects, keys, users, teamCache, refreshes, apiKeyChecks, teams, signIns, usage, itemReads };
  const authDeps = { projects, keys, users, tokens, ownership: deps.ownership ?? ownerTeams.ownership(projects), mode: config.mode };

  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // Request lines are not logged one by one (the hot path); errors are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "request_id" }),
    bodyLimit: config.bodyLimit,
    genReqId: () => randomUUID(),
    trustProxy: trustProxySetting(config.trustProxy),
    // Long path parameters reach validation (a clear SCHEMA_ERROR) instead of fastify's JSON 414; longer ones, bad
    // percent-encoding and HTTP-level errors are answered in plain text (http/framework-errors.ts, issue 18 fuzzing).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  app.setChildLoggerFactory((logger, bindings, options) => new LazyChildLogger(logger, bindings, options));
  app.decorateRequest("vestibuleAuth", null);
  // Validation is ours (validation/), with the contract's messages; route schemas stay for the OpenAPI document.
  app.setValidatorCompiler(() => () => true);
  registerBodyParsers(app, config.bodyLimit);

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Vestibule API",
        version: "1.0.0",
        description:
          "The public /api/v1 REST contract of Vestibule. Authenticate with x-stack-project-id, x-stack-access-type and the key of that access type (x-hexclave- prefixed headers are accepted too).",
      },
      servers: [{ url: config.publicUrl }],
    },
  });

  // Callback-style hooks (not async): an async hook costs every request a promise and its microtasks.
  app.addHook("onRequest", (req, reply, done) => {
    for (const p of HEADER_PREFIXES) reply.header(`${p}request-id`, req.id);
    reply.header("cache-control", "no-store, max-age=0");
    if (req.url.startsWith("/api/")) {
      // Every API answer carries all of them, not only preflights (contract headers-and-auth.md §8).
      reply.header("access-control-allow-origin", "*");
      reply.header("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
      reply.header("access-control-max-age", "86400");
      reply.header("access-control-allow-headers", CORS_ALLOW_HEADERS);
      reply.header("access-control-expose-headers", CORS_EXPOSE_HEADERS);
      if (req.method === "OPTIONS") {
        reply.code(200).send();
        return;
      }
    }
    if (!ALLOWED_METHODS.has(req.method)) {
      sendText(reply, 405, "Method not allowed");
      return;
    }
    done();
  });

  app.addHook("onSend", (req, reply, payload, done) => {
    if (reply.statusCode >= 400 && header(req, "override-error-status") !== undefined) {
      for (const p of HEADER_PREFIXES) reply.header(`${p}actual-status`, String(reply.statusCode));
      reply.code(200);
    }
    done(null, payload);
  });

  app.setErrorHandler((err, req, reply) => handleError(err, req, reply, config.mode));

  const httpMetrics = deps.httpMetrics;
  if (httpMetrics) {
    app.addHook("onResponse", (req, reply, done) => {
      httpMetrics.observe(req.method, req.routeOptions.url ?? "unmatched", reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  const routePatterns: { method: string; pattern: RegExp }[] = [];
  for (const prefix of API_PREFIXES) {
    for (const route of v1Routes) {
      registerRoute(app, prefix, route as RouteSpec, authDeps, state, audit, prefix === "/api/v1");
      routePatterns.push({ method: route.method, pattern: pathPattern(prefix + route.path) });
    }
  }

  app.get("/api/v1/openapi.json", { schema: { hide: true } }, async (_req, reply) => sendJson(reply, 200, app.swagger()));
  app.get("/health", { schema: { hide: true } }, async (_req, reply) => {
    if (!deps.readiness) return sendText(reply, 200, "OK");
    const report = await deps.readiness.check();
    return sendText(reply, report.ready ? 200 : 503, describeReadiness(report));
  });
  app.get("/health/live", { schema: { hide: true } }, async (_req, reply) => sendText(reply, 200, "OK"));

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split("?")[0]!;
    if (routePatterns.some((r) => r.pattern.test(path))) return sendText(reply, 405, "Method not allowed");
    return sendText(reply, 404, `404 — this page does not exist in Vestibule's API.\n\nPlease see the API documentation at ${config.publicUrl}/api/v1/openapi.json.\n\nURL: ${req.url}`);
  });

  const subscriptions: Subscription[] = deps.bus
    ? await subscribeCacheInvalidation(deps.bus, { projects, keys, users, apiKeyChecks, verifier, teamCache, ownerTeams })
    : [];

  return {
    ...state,
    app,
    async close() {
      await app.close();
      await usage.close();
      await Promise.all(subscriptions.map((s) => s.stop()));
    },
  };
}

function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\?:([A-Za-z_]+)/g, "[^/]+");
  return new RegExp(`^${escaped}/?$`);
}

function registerRoute(
  app: FastifyInstance,
  prefix: string,
  route: RouteSpec,
  authDeps: Parameters<typeof authenticateRequest>[1],
  state: GatewayState,
  audit: AuditTrail,
  documented: boolean,
): void {
  const validate = compileRequestValidator(route.schemas);
  app.route({
    method: route.method,
    url: prefix + route.path,
    ...(route.bodyLimit !== undefined ? { bodyLimit: route.bodyLimit } : {}),
    schema: {
      hide: !documented,
      summary: route.summary,
      tags: [...route.tags],
      ...(route.schemas.body ? { body: route.schemas.body } : {}),
      ...(route.schemas.query ? { querystring: route.schemas.query } : {}),
      ...(route.schemas.params ? { params: route.schemas.params } : {}),
    },
    handler: (req: FastifyRequest, reply: FastifyReply) =>
      traced(route.method, prefix + route.path, req, (span) => runWithContext({ requestId: req.id }, async () => {
        const auth = await authenticateRequest(req, authDeps);
        req.vestibuleAuth = auth;
        checkAccess(route.access, auth);
        const extraErrors = route.user === "schema" && !auth?.user ? ["auth.user must be defined"] : [];
        const path = req.url.split("?")[0]!;
        const body = route.decodeBody ? await route.decodeBody(req.body) : req.body;
        const result = validate({ method: req.method, path, body, query: req.query, params: req.params, extraErrors });
        if (!result.ok) throw schemaError(result.message);
        if (route.user === "known-error" && !auth?.user) throw userAuthenticationRequired();
        // Sign-out without a user: the reference answers ACCESS_TOKEN_EXPIRED (legacy tokens without a session id).
        if (route.user === "access-token-expired" && !auth?.user) throw knownError("ACCESS_TOKEN_EXPIRED", { expired_at_millis: null });
        checkParamAccess(route, auth, result.params);
        if (auth?.user) state.usage.record(auth.projectId, auth.user.id, auth.user.refreshTokenId, req.ip);
        const usersStamp = route.method !== "GET" ? state.users.stamp() : undefined;
        const out = await route.handler({
          ...state,
          auth: auth as RequestAuth,
          body: result.body as never,
          query: result.query as never,
          params: result.params as never,
          req,
          reply,
          clientIp: req.ip,
        });
        if (usersStamp !== undefined && auth) state.users.afterWrite(auth.projectId, touchedUsers(auth, result.params, out), usersStamp);
        const status = "sent" in out ? reply.statusCode : (out.status ?? 200);
        if (AuditTrail.audits(route, auth, status)) await audit.record({ route, auth, params: result.params, out, req, ip: req.ip, log: req.log });
        span.setAttribute("http.response.status_code", status);
        if ("sent" in out) return reply;
        if ("text" in out) return sendText(reply, out.status ?? 200, out.text);
        return sendJson(reply, out.status ?? 200, out.json);
      })),
  });
}

/**
 * The request's span (SERVER) when tracing is on, continuing a `traceparent` the client sent. A known error is an
 * answer (its code is recorded), anything else marks the span failed.
 */
function traced<T>(method: string, path: string, req: FastifyRequest, fn: (span: Span) => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn(INERT_SPAN);
  const parent = extractTraceContext((key) => {
    const value = req.headers[key];
    return typeof value === "string" ? value : undefined;
  });
  const attributes = { "http.request.method": method, "http.route": path, "url.path": req.url.split("?")[0]! };
  return inSpan(`${method} ${path}`, { kind: SpanKind.SERVER, parent, attributes, isError: (err) => !isKnownError(err) }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      if (isKnownError(err)) span.setAttributes({ "error.type": err.code, "http.response.status_code": err.httpStatus });
      throw err;
    }
  });
}

/**
 * The users a mutating request may change (UserCache.afterWrite): the caller, a `user_id` path parameter, and a user
 * the answer names (`user_id` of a sign-in / sign-up result).
 */
function touchedUsers(auth: RequestAuth, params: unknown, out: RouteResult): Set<string> {
  const ids = new Set<string>();
  if (auth.user) ids.add(auth.user.id);
  const paramUser = (params as { user_id?: unknown } | undefined)?.user_id;
  if (typeof paramUser === "string" && isUuid(paramUser)) ids.add(paramUser.toLowerCase());
  const answered = "json" in out ? (out.json as { user_id?: unknown } | null)?.user_id : undefined;
  if (typeof answered === "string" && isUuid(answered)) ids.add(answered.toLowerCase());
  return ids;
}

function schemaError(message: string) {
  return knownError("SCHEMA_ERROR", { message });
}

function userAuthenticationRequired() {
  return knownError("USER_AUTHENTICATION_REQUIRED");
}
