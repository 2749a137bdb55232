import { Type } from "typebox";
import type { WebhookAttempt, WebhookEndpoint, WebhookMessage } from "@vestibule/proto/email/v1/webhook_service";
import { statusError } from "@vestibule/shared/errors";
import { WEBHOOK_EVENT_TYPES } from "@vestibule/shared/views";
import { Obj, OneOf, Optional, QueryInteger, Uuid } from "../../validation/index.ts";
import { defineRoute, type RouteContext, type RouteSchemas } from "../route.ts";
import type { RequestAuth } from "../../auth/request-auth.ts";

/**
 * Outgoing webhooks (e-mail service, WebhookService): the dashboard's Webhooks pages and POST /webhooks/svix-token,
 * the published admin SDK's `getSvixToken()`. The `/internal/webhooks/*` routes accept admin access to the project,
 * or the token svix-token returned, in `x-vestibule-webhook-portal-token` (the pages' own credential, valid a day).
 */

const tags = ["Webhooks"];
export const PORTAL_TOKEN_HEADER = "x-vestibule-webhook-portal-token";

const EVENT_TYPES = WEBHOOK_EVENT_TYPES;

/** The project of a webhook page request: the admin's, else the portal token's. */
async function webhookProject(ctx: RouteContext<RouteSchemas, RequestAuth | null>): Promise<string> {
  if (ctx.auth?.type === "admin") return ctx.auth.projectId;
  const token = ctx.req.headers[PORTAL_TOKEN_HEADER];
  if (typeof token === "string" && token) {
    const { projectId } = await ctx.clients.webhooks.verifyWebhookPortalToken({ token });
    if (!ctx.auth || ctx.auth.projectId === projectId) return projectId;
  }
  throw statusError(401, `Admin access to the project, or a webhook portal token in ${PORTAL_TOKEN_HEADER} (POST /webhooks/svix-token), is required.`);
}

const millisOrNull = (v: bigint) => (v === 0n ? null : Number(v));

export function endpointView(e: WebhookEndpoint): Record<string, unknown> {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    enabled: e.enabled,
    disabled_reason: e.disabledReason || null,
    created_at_millis: Number(e.createdAtMillis),
    updated_at_millis: Number(e.updatedAtMillis),
    failing_since_millis: millisOrNull(e.failingSinceMillis),
    previous_secret_expires_at_millis: millisOrNull(e.previousSecretExpiresAtMillis),
  };
}

function attemptView(a: WebhookAttempt): Record<string, unknown> {
  return {
    id: a.id,
    message_id: a.messageId,
    endpoint_id: a.endpointId,
    event_type: a.eventType,
    attempted_at_millis: Number(a.attemptedAtMillis),
    response_status: a.responseStatus || null,
    succeeded: a.succeeded,
    latency_ms: a.latencyMs,
    response_excerpt: a.responseExcerpt,
    error: a.error || null,
    trigger: a.trigger,
  };
}

function messageView(m: WebhookMessage): Record<string, unknown> {
  return {
    id: m.id,
    endpoint_id: m.endpointId,
    event_type: m.eventType,
    status: m.status,
    attempts: m.attempts,
    created_at_millis: Number(m.createdAtMillis),
    next_attempt_at_millis: millisOrNull(m.nextAttemptAtMillis),
    payload: JSON.parse(m.payloadJson) as unknown,
  };
}

const EndpointId = Obj({ endpoint_id: Uuid() });
const Description = Type.String({ maxLength: 1000 });
const EventTypes = Type.Array(OneOf(EVENT_TYPES), { maxItems: EVENT_TYPES.length });
const HttpUrl = Type.String({ minLength: 1, maxLength: 2000, pattern: "^https?://" });

export const svixTokenRoute = defineRoute({
  method: "POST",
  path: "/webhooks/svix-token",
  summary: "A token for the dashboard's webhook pages (the published admin SDK's getSvixToken)",
  tags,
  access: ["admin"],
  schemas: { body: Obj({}) },
  async handler({ auth, clients }) {
    const { token } = await clients.webhooks.createWebhookPortalToken({ projectId: auth.projectId });
    return { status: 201, json: { token } };
  },
});

export const webhookRoutes = [
  svixTokenRoute,
  defineRoute({
    method: "GET",
    path: "/internal/webhooks/event-types",
    summary: "The webhook event types endpoints can subscribe to",
    tags,
    access: "none",
    schemas: {},
    async handler(ctx) {
      await webhookProject(ctx);
      return { json: { items: EVENT_TYPES.map((id) => ({ id })) } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/internal/webhooks/endpoints",
    summary: "The project's webhook endpoints",
    tags,
    access: "none",
    schemas: {},
    async handler(ctx) {
      const { endpoints } = await ctx.clients.webhooks.listWebhookEndpoints({ projectId: await webhookProject(ctx) });
      return { json: { items: endpoints.map(endpointView), is_paginated: false } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/webhooks/endpoints",
    summary: "New webhook endpoint; the answer carries its signing secret, shown only this once",
    tags,
    access: "none",
    schemas: { body: Obj({ url: HttpUrl, description: Optional(Description), event_types: Optional(EventTypes), enabled: Optional(Type.Boolean()) }) },
    async handler(ctx) {
      const { body } = ctx;
      const r = await ctx.clients.webhooks.createWebhookEndpoint({
        projectId: await webhookProject(ctx),
        url: body.url,
        description: body.description ?? "",
        eventTypes: body.event_types ?? [],
        enabled: body.enabled,
      });
      return { status: 201, json: { ...endpointView(r.endpoint!), secret: r.secret } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/internal/webhooks/endpoints/:endpoint_id",
    summary: "One webhook endpoint",
    tags,
    access: "none",
    schemas: { params: EndpointId },
    async handler(ctx) {
      const r = await ctx.clients.webhooks.getWebhookEndpoint({ projectId: await webhookProject(ctx), endpointId: ctx.params.endpoint_id });
      return { json: endpointView(r.endpoint!) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/internal/webhooks/endpoints/:endpoint_id",
    summary: "Change a webhook endpoint's URL, description, event types or enabled flag",
    tags,
    access: "none",
    schemas: {
      params: EndpointId,
      body: Obj({ url: Optional(HttpUrl), description: Optional(Description), event_types: Optional(EventTypes), enabled: Optional(Type.Boolean()) }),
    },
    async handler(ctx) {
      const { body } = ctx;
      const r = await ctx.clients.webhooks.updateWebhookEndpoint({
        projectId: await webhookProject(ctx),
        endpointId: ctx.params.endpoint_id,
        url: body.url,
        description: body.description,
        eventTypes: body.event_types ?? [],
        setEventTypes: body.event_types !== undefined,
        enabled: body.enabled,
      });
      return { json: endpointView(r.endpoint!) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/internal/webhooks/endpoints/:endpoint_id",
    summary: "Delete a webhook endpoint with its messages and attempts",
    tags,
    access: "none",
    schemas: { params: EndpointId },
    async handler(ctx) {
      await ctx.clients.webhooks.deleteWebhookEndpoint({ projectId: await webhookProject(ctx), endpointId: ctx.params.endpoint_id });
      return { json: { success: true } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/webhooks/endpoints/:endpoint_id/rotate-secret",
    summary: "New signing secret (shown once); the previous one stays valid for the overlap window",
    tags,
    access: "none",
    schemas: { params: EndpointId, body: Optional(Obj({})) },
    async handler(ctx) {
      const r = await ctx.clients.webhooks.rotateWebhookSecret({ projectId: await webhookProject(ctx), endpointId: ctx.params.endpoint_id });
      return { json: { ...endpointView(r.endpoint!), secret: r.secret } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/webhooks/endpoints/:endpoint_id/test",
    summary: "Send a test.event message to the endpoint",
    tags,
    access: "none",
    schemas: { params: EndpointId, body: Optional(Obj({})) },
    async handler(ctx) {
      const r = await ctx.clients.webhooks.sendTestWebhook({ projectId: await webhookProject(ctx), endpointId: ctx.params.endpoint_id });
      return { json: { message_id: r.messageId } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/webhooks/endpoints/:endpoint_id/replay",
    summary: "Send again every message of the endpoint created since a time (same webhook-ids)",
    tags,
    access: "none",
    schemas: { params: EndpointId, body: Obj({ since_millis: Type.Integer({ minimum: 0 }) }) },
    async handler(ctx) {
      const r = await ctx.clients.webhooks.replayWebhookMessages({
        projectId: await webhookProject(ctx),
        endpointId: ctx.params.endpoint_id,
        sinceMillis: BigInt(ctx.body.since_millis),
      });
      return { json: { queued: r.queued } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/internal/webhooks/attempts",
    summary: "Delivery attempts, newest first (kept 30 days)",
    tags,
    access: "none",
    schemas: {
      query: Obj({
        endpoint_id: Optional(Uuid()),
        status: Optional(OneOf(["succeeded", "failed"])),
        event_type: Optional(Type.String({ maxLength: 100 })),
        message_id: Optional(Type.String({ maxLength: 100 })),
        limit: Optional(QueryInteger({ minimum: 1, maximum: 200 })),
        cursor: Optional(Type.String({ maxLength: 200 })),
      }),
    },
    async handler(ctx) {
      const { query } = ctx;
      const r = await ctx.clients.webhooks.listWebhookAttempts({
        projectId: await webhookProject(ctx),
        endpointId: query.endpoint_id ?? "",
        status: query.status ?? "",
        eventType: query.event_type ?? "",
        messageId: query.message_id ?? "",
        limit: query.limit ?? 0,
        cursor: query.cursor ?? "",
      });
      return { json: { items: r.attempts.map(attemptView), is_paginated: true, pagination: { next_cursor: r.nextCursor || null } } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/internal/webhooks/messages",
    summary: "Webhook messages, newest first",
    tags,
    access: "none",
    schemas: {
      query: Obj({
        endpoint_id: Optional(Uuid()),
        status: Optional(OneOf(["pending", "delivered", "failed"])),
        event_type: Optional(Type.String({ maxLength: 100 })),
        limit: Optional(QueryInteger({ minimum: 1, maximum: 200 })),
        cursor: Optional(Type.String({ maxLength: 200 })),
      }),
    },
    async handler(ctx) {
      const { query } = ctx;
      const r = await ctx.clients.webhooks.listWebhookMessages({
        projectId: await webhookProject(ctx),
        endpointId: query.endpoint_id ?? "",
        status: query.status ?? "",
        eventType: query.event_type ?? "",
        limit: query.limit ?? 0,
        cursor: query.cursor ?? "",
      });
      return { json: { items: r.messages.map(messageView), is_paginated: true, pagination: { next_cursor: r.nextCursor || null } } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/webhooks/messages/:message_id/resend",
    summary: "Send one message again now (same webhook-id)",
    tags,
    access: "none",
    schemas: { params: Obj({ message_id: Type.String({ minLength: 1, maxLength: 100 }) }), body: Optional(Obj({})) },
    async handler(ctx) {
      await ctx.clients.webhooks.resendWebhookMessage({ projectId: await webhookProject(ctx), messageId: ctx.params.message_id });
      return { json: { success: true } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/internal/send-test-webhook",
    summary: "Send a test.event to an endpoint and answer how its first attempt went (the current admin SDK's sendTestWebhook)",
    tags,
    access: ["admin"],
    schemas: { body: Obj({ endpoint_id: Type.String({ minLength: 1, maxLength: 100 }) }) },
    async handler(ctx) {
      const r = await ctx.clients.webhooks.sendTestWebhook({ projectId: ctx.auth.projectId, endpointId: ctx.body.endpoint_id, waitForOutcome: true });
      return { json: r.delivered ? { success: true } : { success: false, error_message: r.errorMessage } };
    },
  }),
];
