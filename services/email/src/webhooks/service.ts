import type { ServiceImpl } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  WebhookAttemptSchema,
  WebhookEndpointSchema,
  WebhookMessageSchema,
  WebhookService,
  type WebhookEndpoint,
} from "@vestibule/proto/email/v1/webhook_service";
import { withTransaction } from "@vestibule/shared/db";
import { statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import type { EmailRuntime } from "../runtime.ts";
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "./events.ts";
import { newSigningSecret, sealSecret } from "./signing.ts";
import { webhookMessageId, webhookStore, type AttemptRow, type EndpointRow, type MessageRow } from "./store.ts";
import type { WebhookRuntime } from "./runtime.ts";

const PORTAL_TOKEN_TTL_MS = 24 * 3_600_000;
const ms = (d: Date | null | undefined) => BigInt(d ? d.getTime() : 0);

function endpointMessage(e: EndpointRow): WebhookEndpoint {
  return create(WebhookEndpointSchema, {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.event_types,
    enabled: e.enabled,
    disabledReason: e.disabled_reason,
    createdAtMillis: ms(e.created_at),
    updatedAtMillis: ms(e.updated_at),
    failingSinceMillis: ms(e.failing_since),
    previousSecretExpiresAtMillis: e.previous_secret_expires_at && e.previous_secret_expires_at > new Date() ? ms(e.previous_secret_expires_at) : 0n,
  });
}

const attemptMessage = (a: AttemptRow) =>
  create(WebhookAttemptSchema, {
    id: a.id,
    messageId: a.message_id,
    endpointId: a.endpoint_id,
    eventType: a.event_type,
    attemptedAtMillis: ms(a.attempted_at),
    responseStatus: a.response_status,
    succeeded: a.succeeded,
    latencyMs: a.latency_ms,
    responseExcerpt: a.response_excerpt,
    error: a.error,
    trigger: a.trigger,
  });

const messageMessage = (m: MessageRow) =>
  create(WebhookMessageSchema, {
    id: m.id,
    endpointId: m.endpoint_id,
    eventType: m.event_type,
    status: m.status,
    attempts: m.attempts,
    createdAtMillis: ms(m.created_at),
    nextAttemptAtMillis: m.status === "pending" ? ms(m.next_attempt_at) : 0n,
    payloadJson: JSON.stringify(m.payload),
  });

/** http(s) URL with a host, at most 2000 characters (private targets are refused when delivering, after DNS). */
function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw statusError(400, "url must be an absolute http or https URL.");
  }
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || !parsed.hostname || url.length > 2000) {
    throw statusError(400, "url must be an absolute http or https URL.");
  }
  if (parsed.username || parsed.password) throw statusError(400, "url must not contain credentials.");
  return parsed.toString();
}

function checkEventTypes(types: readonly string[]): string[] {
  const known = new Set<string>(WEBHOOK_EVENT_TYPES);
  const unknown = types.filter((t) => !known.has(t));
  if (unknown.length > 0) throw statusError(400, `Unknown event types: ${unknown.join(", ")}. Known: ${WEBHOOK_EVENT_TYPES.join(", ")}.`);
  return [...new Set(types)];
}

function endpointId(id: string): string {
  if (!isUuid(id)) throw statusError(404, "Webhook endpoint not found.");
  return id;
}

function listLimit(limit: number): number {
  if (limit < 0) throw statusError(400, "limit must not be negative.");
  return Math.min(limit || 50, 200);
}

function nextCursor<T>(rows: T[], limit: number, at: (r: T) => Date, id: (r: T) => string): string {
  if (rows.length < limit) return "";
  const last = rows[rows.length - 1]!;
  return `${at(last).getTime()}_${id(last)}`;
}

/** WebhookService: endpoints, secrets, test sends, the attempt log, re-sends and replays, portal tokens. */
/** Waits for the first attempt of a message and says how it went (a test send from the SDK waits for this). */
async function firstAttemptOutcome(pool: EmailRuntime["ctx"]["pool"], projectId: string, messageId: string, timeoutMs: number): Promise<{ delivered: boolean; errorMessage: string }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [attempt] = await webhookStore.listAttempts(pool, { projectId, messageId, limit: 1 });
    if (attempt) {
      if (attempt.succeeded) return { delivered: true, errorMessage: "" };
      return { delivered: false, errorMessage: attempt.error || `The endpoint answered with HTTP ${attempt.response_status}.` };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { delivered: false, errorMessage: "No attempt finished in time; the test event stays queued and is retried." };
}

export function createWebhookService(rt: EmailRuntime, wh: WebhookRuntime): ServiceImpl<typeof WebhookService> {
  const { pool, secrets } = rt.ctx;
  const found = (e: EndpointRow | undefined): EndpointRow => {
    if (!e) throw statusError(404, "Webhook endpoint not found.");
    return e;
  };
  return {
    async createWebhookEndpoint(req) {
      const url = checkUrl(req.url);
      const eventTypes = checkEventTypes(req.eventTypes);
      const id = newId();
      const secret = newSigningSecret();
      const row = await webhookStore.insertEndpoint(pool, {
        id,
        projectId: req.projectId,
        url,
        description: req.description.slice(0, 1000),
        eventTypes,
        enabled: req.enabled ?? true,
        secretSealed: await sealSecret(secrets, id, secret),
      });
      return { endpoint: endpointMessage(row), secret };
    },
    async listWebhookEndpoints(req) {
      return { endpoints: (await webhookStore.listEndpoints(pool, req.projectId)).map(endpointMessage) };
    },
    async getWebhookEndpoint(req) {
      return { endpoint: endpointMessage(found(await webhookStore.getEndpoint(pool, req.projectId, endpointId(req.endpointId)))) };
    },
    async updateWebhookEndpoint(req) {
      const row = await webhookStore.updateEndpoint(pool, req.projectId, endpointId(req.endpointId), {
        url: req.url === undefined ? undefined : checkUrl(req.url),
        description: req.description?.slice(0, 1000),
        eventTypes: req.setEventTypes ? checkEventTypes(req.eventTypes) : undefined,
        enabled: req.enabled,
      });
      if (req.enabled) wh.delivery?.kick();
      return { endpoint: endpointMessage(found(row)) };
    },
    async deleteWebhookEndpoint(req) {
      if (!(await webhookStore.deleteEndpoint(pool, req.projectId, endpointId(req.endpointId)))) throw statusError(404, "Webhook endpoint not found.");
      return {};
    },
    async rotateWebhookSecret(req) {
      return await withTransaction(pool, async (tx) => {
        const { rows } = await tx.query<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE project_id = $1 AND id = $2 FOR UPDATE`, [
          req.projectId,
          endpointId(req.endpointId),
        ]);
        const current = found(rows[0]);
        const secret = newSigningSecret();
        // The current secret becomes the previous one as it is sealed (same endpoint, same context).
        const row = await webhookStore.rotateSecret(tx, req.projectId, current.id, await sealSecret(secrets, current.id, secret), current.secret_sealed, wh.config.secretOverlapMs);
        return { endpoint: endpointMessage(found(row)), secret };
      });
    },
    async sendTestWebhook(req) {
      const endpoint = found(await webhookStore.getEndpoint(pool, req.projectId, endpointId(req.endpointId)));
      const eventId = newId();
      const payload = { type: TEST_EVENT_TYPE, data: { message: "This is a test event sent from the Vestibule dashboard.", endpoint_id: endpoint.id } };
      await withTransaction(pool, async (tx) => {
        await webhookStore.insertMessage(tx, { projectId: req.projectId, endpointId: endpoint.id, eventId, eventType: TEST_EVENT_TYPE, payload });
        await tx.query(`SELECT pg_notify('webhook_queue', '')`);
      });
      wh.delivery?.kick();
      const messageId = webhookMessageId(eventId, endpoint.id);
      if (!req.waitForOutcome) return { messageId };
      if (!endpoint.enabled) return { messageId, delivered: false, errorMessage: "The endpoint is disabled; enable it to send it events." };
      return { messageId, ...(await firstAttemptOutcome(pool, req.projectId, messageId, wh.config.timeoutMs + 5_000)) };
    },
    async listWebhookAttempts(req) {
      const limit = listLimit(req.limit);
      if (req.status && req.status !== "succeeded" && req.status !== "failed") throw statusError(400, "status must be succeeded or failed.");
      const rows = await webhookStore.listAttempts(pool, {
        projectId: req.projectId,
        endpointId: req.endpointId ? endpointId(req.endpointId) : undefined,
        status: (req.status || undefined) as "succeeded" | "failed" | undefined,
        eventType: req.eventType || undefined,
        messageId: req.messageId || undefined,
        limit,
        cursor: req.cursor || undefined,
      });
      return { attempts: rows.map(attemptMessage), nextCursor: nextCursor(rows, limit, (r) => r.attempted_at, (r) => r.id) };
    },
    async listWebhookMessages(req) {
      const limit = listLimit(req.limit);
      const rows = await webhookStore.listMessages(pool, {
        projectId: req.projectId,
        endpointId: req.endpointId ? endpointId(req.endpointId) : undefined,
        status: req.status || undefined,
        eventType: req.eventType || undefined,
        limit,
        cursor: req.cursor || undefined,
      });
      return { messages: rows.map(messageMessage), nextCursor: nextCursor(rows, limit, (r) => r.created_at, (r) => r.id) };
    },
    async resendWebhookMessage(req) {
      if (!(await webhookStore.resend(pool, req.projectId, req.messageId))) throw statusError(404, "Webhook message not found.");
      wh.delivery?.kick();
      return {};
    },
    async replayWebhookMessages(req) {
      const endpoint = found(await webhookStore.getEndpoint(pool, req.projectId, endpointId(req.endpointId)));
      if (req.sinceMillis < 0n) throw statusError(400, "since must not be negative.");
      const queued = await webhookStore.replaySince(pool, req.projectId, endpoint.id, new Date(Number(req.sinceMillis)));
      wh.delivery?.kick();
      return { queued };
    },
    async createWebhookPortalToken(req) {
      const token = `whpt_${randomCode(40)}`;
      const expiresAt = new Date(Date.now() + PORTAL_TOKEN_TTL_MS);
      await webhookStore.insertPortalToken(pool, hashSecret(token), req.projectId, expiresAt);
      return { token, expiresAtMillis: BigInt(expiresAt.getTime()) };
    },
    async verifyWebhookPortalToken(req) {
      const projectId = req.token.startsWith("whpt_") ? await webhookStore.portalTokenProject(pool, hashSecret(req.token)) : undefined;
      if (!projectId) throw statusError(401, "The webhook portal token is invalid or expired.");
      return { projectId };
    },
  };
}
