/**
 * Outgoing webhooks through the real platform (six service processes + gateway, real PostgreSQL and the configured
 * bus): a receiver on loopback verifies every request with both `standardwebhooks` and `svix`. Every event type
 * arrives once per endpoint; a receiver answering 500 gets retries until it recovers; a receiver that never answers
 * does not slow another endpoint; private targets are refused; a killed e-mail service loses nothing and its
 * duplicates carry the same webhook-id; secret rotation, re-send, replay and the svix-token compatibility endpoint.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./fixtures/webhook-receiver.ts";
import { callDemo, demoSdkOptions, type Access, type ApiAnswer } from "./platform-api.ts";

const TIMEOUT_MS = 2_000;
let tp: TestPlatform;
let rx: WebhookReceiver;

beforeAll(async () => {
  rx = await startWebhookReceiver();
  tp = await startTestPlatform({
    platform: {
      env: {
        // Only the receiver's address: other loopback addresses stay refused.
        VESTIBULE_EGRESS_ALLOW: "127.0.0.1/32",
        VESTIBULE_WEBHOOK_RETRY_SCHEDULE_MS: "200,300,400,500,600,700,800,900,1000,1000,1000,1000",
        VESTIBULE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        VESTIBULE_WEBHOOK_LEASE_MS: "5000",
        VESTIBULE_WEBHOOK_POLL_MS: "100",
      },
      readyTimeoutMs: 240_000,
    },
  });
}, 300_000);
afterAll(async () => {
  await tp?.stop();
  await rx?.close();
});

const call = (method: string, path: string, access: Access, body?: unknown): Promise<ApiAnswer> => callDemo(tp, method, path, access, body);

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A new endpoint at the receiver's `path`, which then accepts its secret. */
async function endpoint(path: string, extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const r = await call("POST", "/internal/webhooks/endpoints", "admin", { url: rx.url(path), description: path, ...extra });
  expect(r.status, r.text).toBe(201);
  expect(r.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  rx.accept(path, r.json.secret);
  return { id: r.json.id, secret: r.json.secret };
}

async function newUser(): Promise<string> {
  const r = await call("POST", "/users", "server", { primary_email: `wh-${randomBytes(5).toString("hex")}@example.com`, display_name: "Webhook User" });
  expect(r.status, r.text).toBe(201);
  return r.json.id;
}

describe("webhooks", () => {
  it("delivers every event type once per endpoint, signed so that standardwebhooks and svix verify it", async () => {
    const a = await endpoint("/all-a");
    const b = await endpoint("/all-b");
    const only = await endpoint("/only-teams", { event_types: ["team.created"] });
    expect((await call("POST", "/team-permission-definitions", "admin", { id: "wh_perm" })).status).toBeLessThan(300);

    const userId = await newUser();
    expect((await call("PATCH", `/users/${userId}`, "server", { display_name: "Renamed" })).status).toBe(200);
    const team = await call("POST", "/teams", "server", { display_name: "Webhook Team" });
    expect(team.status, team.text).toBe(201);
    const teamId = team.json.id as string;
    const kept = await call("POST", "/teams", "server", { display_name: "Kept Team" });
    const keptId = kept.json.id as string;
    expect((await call("PATCH", `/teams/${teamId}`, "server", { display_name: "Webhook Team 2" })).status).toBe(200);
    expect((await call("POST", `/team-memberships/${teamId}/${userId}`, "server", {})).status).toBe(201);
    expect((await call("POST", `/team-memberships/${keptId}/${userId}`, "server", {})).status).toBe(201);
    expect((await call("POST", `/team-permissions/${teamId}/${userId}/wh_perm`, "server", {})).status).toBe(201);
    expect((await call("DELETE", `/team-permissions/${teamId}/${userId}/wh_perm`, "server")).status).toBe(200);
    expect((await call("DELETE", `/team-memberships/${teamId}/${userId}`, "server")).status).toBe(200);
    expect((await call("DELETE", `/teams/${teamId}`, "server")).status).toBe(200);
    // The membership of the kept team ends with the deletion itself: the user.deleted payload still lists it.
    await sleep(1_000);
    expect((await call("DELETE", `/users/${userId}`, "server")).status).toBe(200);

    const mine = (path: string) =>
      rx.at(path).filter((r) => {
        const d = r.payload?.data;
        return d && (d.id === userId || d.id === teamId || d.id === keptId || d.user_id === userId || d.team_id === teamId);
      });
    const expected = [
      "user.created",
      "user.updated",
      "user.deleted",
      "team.created",
      "team.updated",
      "team.deleted",
      "team_membership.created",
      "team_membership.deleted",
      "team_permission.created",
      "team_permission.deleted",
    ];
    for (const path of ["/all-a", "/all-b"]) {
      await until(`every event type at ${path}`, () => expected.every((t) => mine(path).some((r) => r.payload?.type === t)));
    }
    await sleep(1_500); // anything extra would have arrived by now
    for (const path of ["/all-a", "/all-b"]) {
      const got = mine(path);
      expect(got.every((r) => r.verified), JSON.stringify(got.find((r) => !r.verified)?.problem)).toBe(true);
      // once per endpoint: no webhook-id twice
      expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
      const byType = (t: string) => got.filter((r) => r.payload?.type === t);
      expect(byType("user.created")).toHaveLength(1);
      expect(byType("user.updated").length).toBeGreaterThanOrEqual(1);
      expect(byType("user.deleted")).toHaveLength(1);
      expect(byType("team.deleted")).toHaveLength(1);
      // (joining a team also grants the project's default member permissions: only ours is counted)
      const ours = (t: string) => byType(t).filter((r) => r.payload!.data.id === "wh_perm");
      expect(ours("team_permission.created")).toHaveLength(1);
      expect(ours("team_permission.deleted")).toHaveLength(1);
      // server-view shapes of the REST API
      const created = byType("user.created")[0]!.payload!.data;
      expect(created).toMatchObject({ id: userId, display_name: "Webhook User", primary_email_verified: false, server_metadata: null, selected_team: null });
      expect(typeof created.signed_up_at_millis).toBe("number");
      expect(byType("team.created").find((r) => r.payload!.data.id === teamId)!.payload!.data).toMatchObject({ id: teamId, display_name: "Webhook Team", server_metadata: null });
      expect(byType("team_membership.created").find((r) => r.payload!.data.team_id === teamId)!.payload!.data).toEqual({ team_id: teamId, user_id: userId });
      expect(ours("team_permission.created")[0]!.payload!.data).toEqual({ id: "wh_perm", team_id: teamId, user_id: userId });
      expect(byType("team.deleted")[0]!.payload!.data).toEqual({ id: teamId });
      // the kept team (and the personal team the project makes at sign-up), not the one left before the deletion
      const deleted = byType("user.deleted")[0]!.payload!.data;
      expect(deleted.id).toBe(userId);
      expect(deleted.teams).toContainEqual({ id: keptId });
      expect(deleted.teams).not.toContainEqual({ id: teamId });
    }
    // the filter: only team.created
    const filtered = rx.at("/only-teams");
    expect(filtered.length).toBeGreaterThanOrEqual(2);
    expect(filtered.every((r) => r.payload?.type === "team.created")).toBe(true);
    // the attempt log says the same
    const attempts = await call("GET", `/internal/webhooks/attempts?endpoint_id=${a.id}&limit=200`, "admin");
    expect(attempts.status).toBe(200);
    expect(attempts.json.items.every((x: any) => x.succeeded && x.response_status === 204)).toBe(true);
    expect(b.id).not.toBe(a.id);
    expect(only.id).toBeTruthy();
  }, 120_000);

  it("retries while the receiver answers 500 and delivers after it recovers, always with the same webhook-id", async () => {
    const ep = await endpoint("/flaky");
    rx.behave("/flaky", (_r, n) => (n <= 3 ? { status: 500 } : undefined));
    const sent = await call("POST", `/internal/webhooks/endpoints/${ep.id}/test`, "admin", {});
    expect(sent.status).toBe(200);
    await until("a 2xx answer at /flaky", () => rx.at("/flaky").length >= 4);
    const got = rx.at("/flaky");
    expect(new Set(got.map((r) => r.id))).toEqual(new Set([sent.json.message_id]));
    // the back-off: attempts are spaced at least by the (jittered) schedule
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(150);
    const log = await until("four attempts in the log", async () => {
      const r = await call("GET", `/internal/webhooks/attempts?endpoint_id=${ep.id}`, "admin");
      return r.json.items.length >= 4 ? r.json.items : undefined;
    });
    expect(log.map((x: any) => x.response_status)).toEqual([204, 500, 500, 500]);
    expect(log[1].response_excerpt).toBe("receiver says no");
    const failed = await call("GET", `/internal/webhooks/attempts?endpoint_id=${ep.id}&status=failed`, "admin");
    expect(failed.json.items).toHaveLength(3);
    const messages = await call("GET", `/internal/webhooks/messages?endpoint_id=${ep.id}`, "admin");
    expect(messages.json.items[0]).toMatchObject({ id: sent.json.message_id, status: "delivered", attempts: 4, event_type: "test.event" });
  }, 60_000);

  it("a receiver that never answers does not slow another endpoint", async () => {
    const dead = await endpoint("/dead");
    rx.behave("/dead", () => ({ hang: true }));
    const ok = await endpoint("/healthy");
    for (let i = 0; i < 12; i++) expect((await call("POST", `/internal/webhooks/endpoints/${dead.id}/test`, "admin", {})).status).toBe(200);
    await until("the dead endpoint holding requests", () => rx.at("/dead").length >= 4);
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = rx.at("/healthy").length;
      const started = Date.now();
      expect((await call("POST", `/internal/webhooks/endpoints/${ok.id}/test`, "admin", {})).status).toBe(200);
      await until("the healthy endpoint's delivery", () => rx.at("/healthy").length > before, 10_000);
      latencies.push(Date.now() - started);
    }
    latencies.sort((x, y) => x - y);
    console.log(`healthy endpoint while another hangs: delivery latency ms (sorted) ${latencies.join(", ")}; request timeout ${TIMEOUT_MS} ms`);
    // Well below one request timeout of the dead endpoint: its requests never queue the healthy one's.
    expect(latencies[latencies.length - 1]!).toBeLessThan(TIMEOUT_MS / 2);
    const timeouts = await until("timed-out attempts of the dead endpoint", async () => {
      const r = await call("GET", `/internal/webhooks/attempts?endpoint_id=${dead.id}&status=failed`, "admin");
      return r.json.items.length > 0 ? r.json.items : undefined;
    });
    expect(timeouts[0].error).toMatch(/No answer within/);
    expect(timeouts[0].latency_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect((await call("PATCH", `/internal/webhooks/endpoints/${dead.id}`, "admin", { enabled: false })).json.enabled).toBe(false);
  }, 90_000);

  it("refuses private, loopback and metadata targets", async () => {
    const targets = ["http://10.1.2.3/hook", "http://169.254.169.254/latest/meta-data/", `http://127.0.0.2:${rx.port}/ssrf`, "http://[::1]/hook", "http://192.168.1.1/"];
    for (const url of targets) {
      const r = await call("POST", "/internal/webhooks/endpoints", "admin", { url });
      expect(r.status).toBe(201);
      expect((await call("POST", `/internal/webhooks/endpoints/${r.json.id}/test`, "admin", {})).status).toBe(200);
      const attempt = await until(`a refused attempt for ${url}`, async () => (await call("GET", `/internal/webhooks/attempts?endpoint_id=${r.json.id}`, "admin")).json.items[0]);
      expect(attempt).toMatchObject({ succeeded: false, response_status: null });
      expect(attempt.error).toMatch(/^Refused: .* private or internal network/);
      await call("DELETE", `/internal/webhooks/endpoints/${r.json.id}`, "admin");
    }
    expect(rx.at("/ssrf")).toHaveLength(0);
    // bad input: clear 4xx
    expect((await call("POST", "/internal/webhooks/endpoints", "admin", { url: "ftp://example.com/" })).status).toBe(400);
    expect((await call("POST", "/internal/webhooks/endpoints", "admin", { url: "https://example.com/", event_types: ["user.exploded"] })).status).toBe(400);
  }, 60_000);

  it("rotation: deliveries in the overlap window carry both signatures; re-send and replay keep the webhook-id", async () => {
    const ep = await endpoint("/rotating");
    const first = await call("POST", `/internal/webhooks/endpoints/${ep.id}/test`, "admin", {});
    await until("the first delivery", () => rx.at("/rotating").length === 1);
    const rotated = await call("POST", `/internal/webhooks/endpoints/${ep.id}/rotate-secret`, "admin", {});
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).not.toBe(ep.secret);
    expect(rotated.json.previous_secret_expires_at_millis).toBeGreaterThan(Date.now());
    // a receiver that knows only the new secret, and one that knows only the old one, both verify
    for (const secret of [rotated.json.secret, ep.secret]) {
      rx.accept("/rotating", secret);
      const before = rx.at("/rotating").length;
      expect((await call("POST", `/internal/webhooks/messages/${first.json.message_id}/resend`, "admin", {})).status).toBe(200);
      const got = await until("the re-sent delivery", () => rx.at("/rotating")[before]);
      expect(got.verified, got.problem).toBe(true);
      expect(got.id).toBe(first.json.message_id);
      expect(got.signature.split(" ")).toHaveLength(2);
    }
    const replayed = await call("POST", `/internal/webhooks/endpoints/${ep.id}/replay`, "admin", { since_millis: Date.now() - 60_000 });
    expect(replayed.json).toEqual({ queued: 1 });
    await until("the replayed delivery", () => rx.at("/rotating").length === 4);
    expect(rx.at("/rotating")[3]!.id).toBe(first.json.message_id);
    expect((await call("POST", "/internal/webhooks/messages/msg_nope/resend", "admin", {})).status).toBe(404);
  }, 60_000);

  it("the published current admin SDK's sendTestWebhook: ok for an endpoint that takes it, the reason when it does not", async () => {
    const admin = new latest.StackAdminApp(demoSdkOptions(tp)) as unknown as { sendTestWebhook(o: { endpointId: string }): Promise<{ status: "ok" } | { status: "error"; error: { errorMessage: string } }> };
    const ok = await endpoint("/sdk-test");
    const before = rx.at("/sdk-test").length;
    expect(await admin.sendTestWebhook({ endpointId: ok.id })).toEqual({ status: "ok", data: undefined });
    expect(rx.at("/sdk-test").length).toBe(before + 1); // answered after the delivery, not before
    expect(rx.at("/sdk-test")[before]!.verified).toBe(true);

    const failing = await endpoint("/sdk-test-500");
    rx.behave("/sdk-test-500", () => ({ status: 500 }));
    const refused = await admin.sendTestWebhook({ endpointId: failing.id });
    expect(refused).toMatchObject({ status: "error", error: { errorMessage: "The endpoint answered with HTTP 500." } });
    await call("DELETE", `/internal/webhooks/endpoints/${failing.id}`, "admin");
    // bad input: clear 4xx
    expect((await call("POST", "/internal/send-test-webhook", "admin", { endpoint_id: "00000000-0000-4000-8000-000000000000" })).status).toBe(404);
    expect((await call("POST", "/internal/send-test-webhook", "admin", {})).status).toBe(400);
    expect((await call("POST", "/internal/send-test-webhook", "server", { endpoint_id: ok.id })).status).toBe(401);
  }, 60_000);

  it("POST /webhooks/svix-token: the token opens the webhook pages of its project, and only those", async () => {
    const r = await call("POST", "/webhooks/svix-token", "admin", {});
    expect(r.status).toBe(201);
    expect(Object.keys(r.json)).toEqual(["token"]);
    const list = await fetch(`${tp.gatewayUrl}/api/v1/internal/webhooks/endpoints`, { headers: { "x-vestibule-webhook-portal-token": r.json.token } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as any).items.length).toBeGreaterThan(0);
    const bad = await fetch(`${tp.gatewayUrl}/api/v1/internal/webhooks/endpoints`, { headers: { "x-vestibule-webhook-portal-token": "whpt_forged" } });
    expect(bad.status).toBe(401);
    expect((await call("GET", "/internal/webhooks/endpoints", "server")).status).toBe(401);
    expect((await call("POST", "/webhooks/svix-token", "server", {})).status).toBe(401);
  }, 30_000);

  it("kill -9 of the delivering e-mail service mid-batch: nothing is lost and duplicates carry the same webhook-id", async () => {
    await endpoint("/batch");
    rx.behave("/batch", () => ({ delayMs: 150 }));
    const users: string[] = [];
    for (let i = 0; i < 30; i++) users.push(await newUser());
    const created = () => rx.at("/batch").filter((r) => r.payload?.type === "user.created");
    await until("the batch under way", () => created().length >= 3);
    await tp.platform.killService("email");
    const atKill = created().length;
    await tp.platform.restartService("email");
    await until("every user.created after the restart", () => users.every((id) => created().some((r) => r.payload!.data.id === id)), 60_000);
    const got = created().filter((r) => users.includes(r.payload!.data.id));
    const idsByUser = new Map<string, Set<string>>();
    for (const r of got) idsByUser.set(r.payload!.data.id, (idsByUser.get(r.payload!.data.id) ?? new Set()).add(r.id));
    expect([...idsByUser.values()].every((ids) => ids.size === 1)).toBe(true);
    expect(idsByUser.size).toBe(30);
    console.log(`kill -9 mid-batch: ${atKill} of 30 delivered before the kill, ${got.length - 30} duplicate deliveries after the restart (same webhook-id)`);
    expect(atKill).toBeLessThan(30);
  }, 150_000);
});
