/**
 * The webhook capability in process (identity + e-mail services, real PostgreSQL and bus; a stand-in producer
 * publishes teams events the way teams-permissions does): a redelivered event queues nothing new; an endpoint failing
 * longer than the disable window is disabled with a reason and its pending messages wait; enabling it again delivers
 * them with the same webhook-id.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebhookService } from "@vestibule/proto/email/v1/webhook_service";
import { TeamCreatedSchema } from "@vestibule/proto/teams_permissions/v1/events";
import { withTransaction } from "@vestibule/shared/db";
import { defineEvent } from "@vestibule/shared/events";
import { createServiceClient } from "@vestibule/shared/rpc";
import { newId } from "@vestibule/shared/ids";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmailStack, waitFor, type EmailStack } from "./support.ts";

const teamCreated = defineEvent("teams_permissions.team.created.v1", TeamCreatedSchema);
let stack: EmailStack;
let status = 500;
const got: { id: string; body: string }[] = [];
/** Requests to /held wait here until the test answers them. */
const held: { id: string; answer: () => void }[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    if (req.url === "/held") {
      held.push({ id: String(req.headers["webhook-id"]), answer: () => res.writeHead(200).end() });
      return;
    }
    got.push({ id: String(req.headers["webhook-id"]), body: Buffer.concat(chunks).toString() });
    res.writeHead(status).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  stack = await startEmailStack({}, { VESTIBULE_WEBHOOK_DISABLE_AFTER_MS: "300", VESTIBULE_WEBHOOK_RETRY_SCHEDULE_MS: "150,150,150,150,150,150", VESTIBULE_WEBHOOK_POLL_MS: "50" });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
});

describe("webhooks in the e-mail service", () => {
  it("queues once per event (redeliveries change nothing), disables a failing endpoint, delivers after it is enabled again", async () => {
    const hooks = createServiceClient(WebhookService, { baseUrl: stack.env.VESTIBULE_EMAIL_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    const projectId = await stack.newProject();
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const { endpoint } = await hooks.createWebhookEndpoint({ projectId, url, description: "", eventTypes: ["team.created"] });
    const p = stack.producers.teams_permissions;
    const teamId = newId();
    const eventId = await withTransaction(p.ctx.pool, (tx) =>
      p.ctx.outbox.enqueue(tx, teamCreated, { team: { id: teamId, projectId, displayName: "T", createdAtMillis: 1n, clientMetadataJson: "", clientReadOnlyMetadataJson: "", serverMetadataJson: "" } }, { projectId }),
    );
    await p.relay.flush();
    await stack.republish(eventId, newId(), "teams_permissions"); // the same event under another transport id

    const disabled = await waitFor(async () => {
      const e = (await hooks.getWebhookEndpoint({ projectId, endpointId: endpoint!.id })).endpoint!;
      return e.enabled ? undefined : e;
    }, 20_000);
    expect(disabled.disabledReason).toMatch(/^Disabled automatically: every delivery failed since /);
    const { messages } = await hooks.listWebhookMessages({ projectId, endpointId: endpoint!.id, limit: 10 });
    expect(messages).toHaveLength(1);
    expect(messages[0]!.status).toBe("pending");
    const payload = JSON.parse(messages[0]!.payloadJson);
    expect(payload).toEqual({ type: "team.created", data: { id: teamId, display_name: "T", profile_image_url: null, created_at_millis: 1, client_metadata: null, client_read_only_metadata: null, server_metadata: null } });
    const attemptsWhileDisabled = got.length;
    expect(attemptsWhileDisabled).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 500));
    expect(got.length).toBe(attemptsWhileDisabled); // nothing goes to a disabled endpoint

    status = 200;
    await hooks.updateWebhookEndpoint({ projectId, endpointId: endpoint!.id, enabled: true });
    await waitFor(async () => (await hooks.listWebhookMessages({ projectId, endpointId: endpoint!.id, limit: 10 })).messages[0]?.status === "delivered", 20_000);
    expect(new Set(got.map((g) => g.id))).toEqual(new Set([messages[0]!.id]));
    const e = (await hooks.getWebhookEndpoint({ projectId, endpointId: endpoint!.id })).endpoint!;
    expect(e.failingSinceMillis).toBe(0n);
    // bad input: clear errors
    await expect(hooks.createWebhookEndpoint({ projectId, url: "javascript:alert(1)", description: "", eventTypes: [] })).rejects.toThrow(/url must be an absolute http or https URL/);
    await expect(hooks.getWebhookEndpoint({ projectId, endpointId: "nope" })).rejects.toThrow(/Webhook endpoint not found/);
    await expect(hooks.verifyWebhookPortalToken({ token: "whpt_x" })).rejects.toThrow(/invalid or expired/);
  }, 60_000);

  it("a re-send asked for while an attempt is in flight is delivered after that attempt succeeds, not dropped", async () => {
    const hooks = createServiceClient(WebhookService, { baseUrl: stack.env.VESTIBULE_EMAIL_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    const projectId = await stack.newProject();
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/held`;
    const { endpoint } = await hooks.createWebhookEndpoint({ projectId, url, description: "", eventTypes: [] });
    const endpointId = endpoint!.id;
    const message = async () => (await hooks.listWebhookMessages({ projectId, endpointId, limit: 10 })).messages[0]!;
    const { messageId } = await hooks.sendTestWebhook({ projectId, endpointId });
    await waitFor(async () => (held.length === 1 ? true : undefined), 10_000);
    // While the first attempt waits for its answer: the endpoint is paused (so the re-send cannot be claimed at once,
    // which is what happens when the deliverer is busy) and the message re-sent.
    await hooks.updateWebhookEndpoint({ projectId, endpointId, enabled: false });
    await hooks.resendWebhookMessage({ projectId, messageId });
    held[0]!.answer();
    await waitFor(async () => ((await hooks.listWebhookAttempts({ projectId, endpointId, limit: 10 })).attempts.length === 1 ? true : undefined), 10_000);
    expect((await message()).status).toBe("pending"); // the first attempt's success did not swallow the re-send

    await hooks.updateWebhookEndpoint({ projectId, endpointId, enabled: true });
    await waitFor(async () => (held.length === 2 ? true : undefined), 10_000);
    held[1]!.answer();
    await waitFor(async () => ((await message()).status === "delivered" ? true : undefined), 10_000);
    expect(held.map((h) => h.id)).toEqual([messageId, messageId]);
    const { attempts } = await hooks.listWebhookAttempts({ projectId, endpointId, limit: 10 });
    expect(attempts.map((a) => `${a.succeeded} ${a.trigger}`).sort()).toEqual(["true resend", "true scheduled"]);
  }, 30_000);

  it("an event of a project with no enabled endpoint is acknowledged without a transaction (issue 19)", async () => {
    const hooks = createServiceClient(WebhookService, { baseUrl: stack.env.VESTIBULE_EMAIL_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    const [quiet, listening] = [await stack.newProject(), await stack.newProject()];
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const { endpoint } = await hooks.createWebhookEndpoint({ projectId: listening, url, description: "", eventTypes: ["team.created"] });
    const p = stack.producers.teams_permissions;
    const team = (projectId: string) => ({ team: { id: newId(), projectId, displayName: "T", createdAtMillis: 1n, clientMetadataJson: "", clientReadOnlyMetadataJson: "", serverMetadataJson: "" } });
    // One durable consumer handles the subject's events in order: once the second is queued, the first was handled.
    const [skipped, queued] = await withTransaction(p.ctx.pool, async (tx) => [
      await p.ctx.outbox.enqueue(tx, teamCreated, team(quiet), { projectId: quiet }),
      await p.ctx.outbox.enqueue(tx, teamCreated, team(listening), { projectId: listening }),
    ]);
    await p.relay.flush();
    await waitFor(async () => (await hooks.listWebhookMessages({ projectId: listening, endpointId: endpoint!.id, limit: 10 })).messages.length === 1, 20_000);
    const processed = async (eventId: string) =>
      (await stack.email.ctx.pool.query(`SELECT 1 FROM processed_events WHERE consumer = 'email-webhooks-team-created' AND event_id = $1`, [eventId])).rows.length;
    expect(await processed(queued)).toBe(1);
    expect(await processed(skipped)).toBe(0);
  });
});
