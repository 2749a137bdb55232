/**
 * Analytics ingestion and reads through the real gateway and analytics service (issue 13, item 6): both body
 * encodings the current SDK sends, the batch limits, sessions, quotas, retention, the project switch, session
 * replays and the named query API.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type ApiResponse, type Stack } from "../../../support.ts";

let stack: Stack;
let db: pg.Pool;

const EVENTS_PER_MINUTE = 600;

beforeAll(async () => {
  stack = await startStack({
    auth: true,
    analytics: true,
    env: {
      VESTIBULE_ANALYTICS_SESSION_EVENTS_PER_MINUTE: String(EVENTS_PER_MINUTE),
      VESTIBULE_ANALYTICS_RETENTION_DAYS: "1",
      VESTIBULE_ANALYTICS_REPLAY_RETENTION_DAYS: "1",
      VESTIBULE_ANALYTICS_JANITOR_INTERVAL_MS: "300",
    },
  });
  db = new pg.Pool({ connectionString: stack.db.url, max: 2 });
}, 60_000);
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

interface Session {
  readonly user_id: string;
  readonly access_token: string;
  readonly refresh_token: string;
}

function sessionHeaders(s: Session | undefined, prefix = "x-stack-"): Record<string, string> {
  return {
    ...headersFor(stack.demo, "client", prefix),
    [`${prefix}allow-anonymous-user`]: "true",
    ...(s ? { [`${prefix}access-token`]: s.access_token, [`${prefix}refresh-token`]: s.refresh_token } : {}),
  };
}

async function anonymous(): Promise<Session> {
  const res = await call(stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: sessionHeaders(undefined) });
  expect(res.status).toBe(200);
  return res.json as Session;
}

function sessionIdOf(s: Session): string {
  return (JSON.parse(Buffer.from(s.access_token.split(".")[1]!, "base64url").toString()) as { refresh_token_id: string }).refresh_token_id;
}

function pageView(path = "/", at = Date.now()) {
  return { event_type: "$page-view", event_at_ms: at, data: { url: `http://localhost:3000${path}`, path, title: "Home", entry_type: "initial" } };
}

function batch(events: unknown[], extra: Record<string, unknown> = {}) {
  return { session_replay_segment_id: randomUUID(), batch_id: randomUUID(), sent_at_ms: Date.now(), events, ...extra };
}

async function sendJson(s: Session | undefined, body: unknown, prefix = "x-stack-"): Promise<ApiResponse> {
  return call(stack, "POST", "/api/v1/analytics/events/batch", { headers: sessionHeaders(s, prefix), body });
}

/** As the 2.8.108 SDK sends in a browser with CompressionStream: gzip, application/octet-stream, no Content-Encoding. */
async function sendGzip(s: Session, raw: Buffer): Promise<ApiResponse> {
  const res = await fetch(`${stack.url}/api/v1/analytics/events/batch`, {
    method: "POST",
    headers: { ...sessionHeaders(s, "x-hexclave-"), "content-type": "application/octet-stream" },
    body: new Uint8Array(raw),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

async function eventRows(userId: string): Promise<{ event_type: string; refresh_token_id: string; batch_id: string; data: Record<string, unknown>; session_replay_id: string | null }[]> {
  return (await db.query(`SELECT event_type, refresh_token_id, batch_id, data, session_replay_id FROM analytics.events WHERE user_id = $1 ORDER BY id`, [userId])).rows;
}

describe("POST /api/v1/analytics/events/batch", () => {
  it("stores a plain JSON batch bound to the session of the access token", async () => {
    const s = await anonymous();
    const body = batch([pageView("/"), { event_type: "$click", event_at_ms: Date.now(), data: { tag_name: "button", text: "Buy" } }]);
    const res = await sendJson(s, body);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ inserted: 2 });
    const rows = await eventRows(s.user_id);
    expect(rows.map((r) => r.event_type)).toEqual(["$page-view", "$click"]);
    expect(rows.every((r) => r.refresh_token_id === sessionIdOf(s) && r.batch_id === body.batch_id)).toBe(true);
    expect(rows[0]!.data).toMatchObject({ path: "/", title: "Home" });
  });

  it("stores a gzip batch sent as application/octet-stream without Content-Encoding; a repeated batch is stored once", async () => {
    const s = await anonymous();
    const body = batch([pageView("/gz"), pageView("/gz/2")]);
    const res = await sendGzip(s, gzipSync(Buffer.from(JSON.stringify(body))));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ inserted: 2 });
    const again = await sendGzip(s, gzipSync(Buffer.from(JSON.stringify(body))));
    expect(again.json).toEqual({ inserted: 0 });
    expect((await eventRows(s.user_id)).map((r) => (r.data as { path: string }).path)).toEqual(["/gz", "/gz/2"]);
    // An uncompressed octet-stream body is JSON too.
    const plain = await sendGzip(s, Buffer.from(JSON.stringify(batch([pageView("/raw")]))));
    expect(plain.json).toEqual({ inserted: 1 });
  });

  it("takes 1 to 500 events, refuses oversized bodies and data, bad gzip and bad event types", async () => {
    const s = await anonymous();
    const none = await sendJson(s, batch([]));
    expectKnownError(none, 400, "SCHEMA_ERROR");
    expect(none.json.error).toContain("body.events");
    expectKnownError(await sendJson(s, batch(Array.from({ length: 501 }, () => pageView()))), 400, "SCHEMA_ERROR");
    expect((await sendJson(s, batch(Array.from({ length: 500 }, (_, i) => pageView(`/p${i}`))))).json).toEqual({ inserted: 500 });

    const bigData = await sendJson(s, batch([{ event_type: "$click", event_at_ms: Date.now(), data: { text: "x".repeat(17_000) } }]));
    expect(bigData.status).toBe(400);
    expect(bigData.text).toContain("at most 16384 bytes");
    const huge = await sendJson(s, batch(Array.from({ length: 100 }, () => ({ event_type: "$click", event_at_ms: Date.now(), data: { text: "y".repeat(12_000) } }))));
    expect(huge.status).toBe(413);
    // A gzip bomb: 50 MB of spaces in ~50 KB; refused without expanding past the limit.
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"batch_id":"'), Buffer.alloc(50_000_000, 0x20)]));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const bombRes = await sendGzip(s, bomb);
    expect(bombRes.status).toBe(413);
    expect(bombRes.text).toContain("uncompressed");
    expectKnownError(await sendGzip(s, Buffer.from([0x1f, 0x8b, 1, 2, 3, 4])), 400, "BODY_PARSING_ERROR");
    expectKnownError(await sendGzip(s, gzipSync(Buffer.from("not json"))), 400, "BODY_PARSING_ERROR");

    expectKnownError(await sendJson(s, batch([{ ...pageView(), event_type: "$made-up" }])), 400, "SCHEMA_ERROR");
    expect((await sendJson(s, batch([{ event_type: "signup.completed:v2", event_at_ms: Date.now(), data: {} }]))).json).toEqual({ inserted: 1 });
    expectKnownError(await sendJson(s, { ...batch([pageView()]), batch_id: "nope" }), 400, "SCHEMA_ERROR");
    expectKnownError(await sendJson(s, batch([{ ...pageView(), event_at_ms: 1e20 }])), 400, "SCHEMA_ERROR");
    expectKnownError(await sendJson(s, batch([pageView()], { unknown_field: 1 })), 400, "SCHEMA_ERROR");
    // U+0000 is refused in any string of a body (the gateway's rule; PostgreSQL's jsonb could not hold it either).
    const nul = await sendJson(s, batch([{ event_type: "$click", event_at_ms: Date.now(), data: { text: "a\u0000b" } }]));
    expectKnownError(nul, 400, "SCHEMA_ERROR");
  });

  it("needs a signed-in session; clients cannot write for another user or reference another session's replay", async () => {
    expectKnownError(await sendJson(undefined, batch([pageView()])), 401, "USER_AUTHENTICATION_REQUIRED");
    const a = await anonymous();
    const b = await anonymous();
    const other = await sendJson(a, batch([{ ...pageView(), user_id: b.user_id }]));
    expect(other.status).toBe(400);
    expect(other.text).toBe("Client analytics events cannot override user_id or team_id");

    const replay = await sendReplay(a, replayBatch());
    expect(replay.status).toBe(200);
    const replayId = replay.json.session_replay_id as string;
    // Session A's own replay: linked. Session B naming it: refused. An unknown replay: refused.
    expect((await sendJson(a, batch([pageView("/mine")], { session_replay_id: replayId }))).json).toEqual({ inserted: 1 });
    const wrong = await sendJson(b, batch([pageView("/theirs")], { session_replay_id: replayId }));
    expect(wrong.status).toBe(400);
    expect(wrong.text).toBe("Client analytics events can only reference the current session replay");
    const unknown = await sendJson(b, batch([{ ...pageView(), session_replay_id: randomUUID() }]));
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(/^Unknown session_replay_id: /);
    expect(await eventRows(b.user_id)).toEqual([]);
    // Events of a session with a recording replay are linked to it without naming it.
    await sendJson(a, batch([pageView("/auto")]));
    expect((await eventRows(a.user_id)).map((r) => r.session_replay_id)).toEqual([replayId, replayId]);

    // Server callers may name the user.
    const server = await call(stack, "POST", "/api/v1/analytics/events/batch", {
      headers: headersFor(stack.demo, "server"),
      body: batch([{ ...pageView("/server"), user_id: b.user_id }]),
    });
    expect(server.json).toEqual({ inserted: 1 });
    expect((await eventRows(b.user_id)).map((r) => r.refresh_token_id)).toEqual([null]);
  });

  it("limits each session per minute (429 with Retry-After) without touching other sessions", async () => {
    const s = await anonymous();
    const statuses: number[] = [];
    let refused: ApiResponse | undefined;
    // 500 events fit the 600 per minute; the next 500 do not (three tries cover a minute boundary).
    for (let i = 0; i < 3 && !refused; i++) {
      const res = await sendJson(s, batch(Array.from({ length: 500 }, () => pageView())));
      statuses.push(res.status);
      if (res.status === 429) refused = res;
    }
    expect(statuses[0]).toBe(200);
    expect(refused?.text).toMatch(/^Too many analytics events from this session\. Please wait \d+ seconds and try again\.$/);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await eventRows(s.user_id)).length).toBe(500 * statuses.filter((x) => x === 200).length);
    expect((await sendJson(await anonymous(), batch([pageView()]))).status).toBe(200);
  });

  it("keeps events for the retention period only", async () => {
    const s = await anonymous();
    await sendJson(s, batch([pageView("/old"), pageView("/new")]));
    await db.query(`UPDATE analytics.events SET received_at = now() - interval '25 hours' WHERE user_id = $1 AND data->>'path' = '/old'`, [s.user_id]);
    await expect.poll(async () => (await eventRows(s.user_id)).map((r) => (r.data as { path: string }).path), { timeout: 10_000, interval: 200 }).toEqual(["/new"]);
  });

  it("answers ANALYTICS_NOT_ENABLED when the project turns analytics off", async () => {
    const s = await anonymous();
    const setEnabled = async (enabled: boolean) => {
      const res = await call(stack, "PATCH", "/api/v1/internal/config/override", {
        headers: headersFor(stack.demo, "admin"),
        body: { config_override_string: JSON.stringify({ "apps.installed.analytics.enabled": enabled }) },
      });
      expect(res.status).toBe(200);
    };
    await setEnabled(false);
    try {
      await expect.poll(async () => (await sendJson(s, batch([pageView()]))).json?.code, { timeout: 5_000 }).toBe("ANALYTICS_NOT_ENABLED");
      const off = await sendJson(s, batch([pageView()]), "x-hexclave-");
      expectKnownError(off, 400, "ANALYTICS_NOT_ENABLED");
      expect(off.json.error).toBe("Analytics is not enabled for this project.");
      expectKnownError(await sendReplay(s, replayBatch()), 400, "ANALYTICS_NOT_ENABLED");
      expectKnownError(
        await call(stack, "POST", "/api/v1/internal/analytics/query", { headers: headersFor(stack.demo, "admin"), body: { query: "page_views_per_day" } }),
        400,
        "ANALYTICS_NOT_ENABLED",
      );
    } finally {
      await setEnabled(true);
    }
    await expect.poll(async () => (await sendJson(s, batch([pageView()]))).status, { timeout: 5_000 }).toBe(200);
  });
});

function replayBatch(extra: Record<string, unknown> = {}) {
  const t = Date.now();
  return {
    browser_session_id: randomUUID(),
    session_replay_segment_id: randomUUID(),
    batch_id: randomUUID(),
    started_at_ms: t - 5_000,
    sent_at_ms: t,
    events: [
      { type: 4, data: { href: "http://localhost:3000/", width: 1280, height: 800 }, timestamp: t - 4_000 },
      { type: 3, data: { source: 1, positions: [{ x: 10, y: 20, id: 1, timeOffset: 0 }] }, timestamp: t - 1_000 },
    ],
    ...extra,
  };
}

async function sendReplay(s: Session, body: unknown): Promise<ApiResponse> {
  return call(stack, "POST", "/api/v1/session-replays/batch", { headers: sessionHeaders(s), body });
}

describe("session replays", () => {
  it("stores batches compressed in the session's replay, once per batch id, listable by admins", async () => {
    const s = await anonymous();
    const first = replayBatch();
    const res = await sendReplay(s, first);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ batch_id: first.batch_id, deduped: false });
    const replayId = res.json.session_replay_id as string;
    expect(res.json.s3_key).toBe(`session-replays/${stack.demo.projectId}/main/${replayId}/${first.batch_id}.json.gz`);
    expect((await sendReplay(s, first)).json).toMatchObject({ session_replay_id: replayId, deduped: true });
    const second = replayBatch();
    expect((await sendReplay(s, second)).json).toMatchObject({ session_replay_id: replayId, deduped: false });

    const stored = await db.query<{ payload: Buffer }>(`SELECT payload FROM analytics.replay_chunks WHERE session_replay_id = $1`, [replayId]);
    expect(stored.rows.length).toBe(2);
    expect(stored.rows.every((r) => r.payload[0] === 0x1f && r.payload[1] === 0x8b)).toBe(true);

    const admin = headersFor(stack.demo, "admin");
    const list = await call(stack, "GET", `/api/v1/internal/session-replays?user_ids=${s.user_id}`, { headers: admin });
    expect(list.status).toBe(200);
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({ id: replayId, project_user: { id: s.user_id, display_name: null, primary_email: null }, chunk_count: 2, event_count: 4 });
    expect(list.json.pagination).toEqual({ next_cursor: null });
    expect((await call(stack, "GET", `/api/v1/internal/session-replays/${replayId}`, { headers: admin })).json.id).toBe(replayId);

    const chunks = await call(stack, "GET", `/api/v1/internal/session-replays/${replayId}/chunks?limit=1`, { headers: admin });
    expect(chunks.json.items).toHaveLength(1);
    expect(chunks.json.items[0]).toMatchObject({ batch_id: first.batch_id, event_count: 2 });
    const next = await call(stack, "GET", `/api/v1/internal/session-replays/${replayId}/chunks?limit=1&cursor=${chunks.json.pagination.next_cursor}`, { headers: admin });
    expect(next.json.items.map((c: { batch_id: string }) => c.batch_id)).toEqual([second.batch_id]);
    const events = await call(stack, "GET", `/api/v1/internal/session-replays/${replayId}/chunks/${chunks.json.items[0].id}/events`, { headers: admin });
    expect(events.json).toEqual({ events: first.events });
    const all = await call(stack, "GET", `/api/v1/internal/session-replays/${replayId}/events?offset=1`, { headers: admin });
    expect(all.json.chunks.map((c: { batch_id: string }) => c.batch_id)).toEqual([second.batch_id]);
    expect(all.json.chunk_events).toEqual([{ chunk_id: all.json.chunks[0].id, events: second.events }]);

    expect((await call(stack, "GET", `/api/v1/internal/session-replays/${randomUUID()}`, { headers: admin })).status).toBe(404);
    expectKnownError(await call(stack, "GET", "/api/v1/internal/session-replays", { headers: headersFor(stack.demo, "server") }), 401, "INSUFFICIENT_ACCESS_TYPE");
    expect((await call(stack, "GET", "/api/v1/internal/session-replays?cursor=bad", { headers: admin })).status).toBe(400);
  });

  it("needs a signed-in user, 1 to 5,000 events, and expires idle replays", async () => {
    expectKnownError(await call(stack, "POST", "/api/v1/session-replays/batch", { headers: sessionHeaders(undefined), body: replayBatch() }), 401, "USER_AUTHENTICATION_REQUIRED");
    const s = await anonymous();
    expectKnownError(await sendReplay(s, replayBatch({ events: [] })), 400, "SCHEMA_ERROR");
    expectKnownError(await sendReplay(s, replayBatch({ events: Array.from({ length: 5_001 }, () => ({ type: 3 })) })), 400, "SCHEMA_ERROR");
    const res = await sendReplay(s, replayBatch());
    const id = res.json.session_replay_id as string;
    await db.query(`UPDATE analytics.session_replays SET updated_at = now() - interval '25 hours' WHERE id = $1`, [id]);
    await expect.poll(async () => (await db.query(`SELECT count(*)::int AS n FROM analytics.replay_chunks WHERE session_replay_id = $1`, [id])).rows[0].n, { timeout: 10_000, interval: 200 }).toBe(0);
  });
});

describe("POST /api/v1/internal/analytics/query", () => {
  const admin = () => headersFor(stack.demo, "admin");
  const query = (body: unknown) => call(stack, "POST", "/api/v1/internal/analytics/query", { headers: admin(), body });

  it("answers named queries: page views and active users per day, top pages, recent events", async () => {
    const a = await anonymous();
    const b = await anonymous();
    const marker = `/q-${randomBytes(4).toString("hex")}`;
    await sendJson(a, batch([pageView(marker), pageView(marker)]));
    await sendJson(b, batch([pageView(marker)]));
    const today = new Date().toISOString().slice(0, 10);

    const views = await query({ query: "page_views_per_day", params: { from_millis: Date.now() - 6 * 86_400_000 } });
    expect(views.status).toBe(200);
    expect(views.json.result).toHaveLength(7);
    expect(views.json.query_id).toMatch(/^[0-9a-f-]{36}$/);
    const todayViews = views.json.result.find((r: { date: string }) => r.date === today);
    expect(todayViews.page_views).toBeGreaterThanOrEqual(3);

    const active = await query({ query: "active_users_per_day" });
    expect(active.json.result).toHaveLength(31);
    expect(active.json.result.at(-1)).toMatchObject({ date: today });
    expect(active.json.result.at(-1).active_users).toBeGreaterThanOrEqual(2);

    const top = await query({ query: "top_pages", params: { limit: 100 } });
    expect(top.json.result).toContainEqual({ path: marker, page_views: 3, users: 2 });
    const recent = await query({ query: "recent_events", params: { user_id: b.user_id, limit: 5 } });
    expect(recent.json.result).toHaveLength(1);
    expect(recent.json.result[0]).toMatchObject({ event_type: "$page-view", user_id: b.user_id, data: { path: marker } });
  });

  it("refuses SQL, unknown parameters and unbounded ranges with ANALYTICS_QUERY_ERROR", async () => {
    const sql = await query({ query: "SELECT * FROM events", params: {} });
    expectKnownError(sql, 400, "ANALYTICS_QUERY_ERROR");
    expect(sql.json.error).toContain("not SQL");
    expect(sql.json.details).toEqual({ error: sql.json.error });
    expectKnownError(await query({ query: "top_pages", params: { limit: 1_000 } }), 400, "ANALYTICS_QUERY_ERROR");
    expectKnownError(await query({ query: "top_pages", params: { project_id: "x" } }), 400, "ANALYTICS_QUERY_ERROR");
    expectKnownError(await query({ query: "events_per_day", params: { from_millis: 0 } }), 400, "ANALYTICS_QUERY_ERROR");
    expectKnownError(await query({ query: "events_per_day", timeout_ms: 60_000 }), 400, "SCHEMA_ERROR");
    expectKnownError(
      await call(stack, "POST", "/api/v1/internal/analytics/query", { headers: headersFor(stack.demo, "client"), body: { query: "top_pages" } }),
      401,
      "INSUFFICIENT_ACCESS_TYPE",
    );
  });
});

describe("OpenAPI", () => {
  it("documents every analytics route", async () => {
    const doc = (await call(stack, "GET", "/api/v1/openapi.json")).json as { paths: Record<string, Record<string, unknown>> };
    for (const [method, path] of [
      ["post", "/api/v1/analytics/events/batch"],
      ["post", "/api/v1/session-replays/batch"],
      ["get", "/api/v1/internal/session-replays"],
      ["get", "/api/v1/internal/session-replays/{session_replay_id}"],
      ["get", "/api/v1/internal/session-replays/{session_replay_id}/chunks"],
      ["get", "/api/v1/internal/session-replays/{session_replay_id}/chunks/{chunk_id}/events"],
      ["get", "/api/v1/internal/session-replays/{session_replay_id}/events"],
      ["post", "/api/v1/internal/analytics/query"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
  });
});
