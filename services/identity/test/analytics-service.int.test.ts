/**
 * Identity's analytics capability (AnalyticsService) on real Postgres (and the embedded event bus): per-project daily
 * and per-session replay quotas, the query timeout, and the clean-up of a deleted project's data
 * (identity.project.deleted.v1).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnalyticsService } from "@vestibule/proto/analytics/v1/analytics_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createPool, type Pool } from "@vestibule/shared/db";
import { KnownError, StatusError } from "@vestibule/shared/errors";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, rpcError, type TestDatabase } from "@vestibule/shared/testing";
import { identityService } from "../src/server.ts";

const log = createLogger({ service: "test", level: "silent" });
let db: TestDatabase;
let identity: RunningService;
let pool: Pool;
let client: ReturnType<typeof createServiceClient<typeof AnalyticsService>>;
let projects: ReturnType<typeof createServiceClient<typeof ProjectService>>;

beforeAll(async () => {
  db = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
    PORT: "0",
    VESTIBULE_DB_POOL_SIZE: "4",
    VESTIBULE_ANALYTICS_PROJECT_BYTES_PER_DAY: "20000",
    VESTIBULE_ANALYTICS_SESSION_REPLAY_BYTES_PER_MINUTE: "5000",
  };
  identity = await startService(identityService, { env, log });
  pool = createPool({ connectionString: db.url, schema: "identity", max: 2 });
  const rpc = { caller: "test", secret: env.VESTIBULE_SERVICE_SECRET! };
  client = createServiceClient(AnalyticsService, { ...rpc, baseUrl: `http://127.0.0.1:${identity.port}` });
  projects = createServiceClient(ProjectService, { ...rpc, baseUrl: `http://127.0.0.1:${identity.port}` });
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await identity?.stop();
  await db?.drop();
});

function caller(projectId: string, session: string = randomUUID()) {
  return { projectId, branchId: "main", userId: randomUUID(), refreshTokenId: session, fromServer: false };
}

function ingest(projectId: string, bodyBytes: number, session?: string) {
  return client.ingestEvents({
    caller: caller(projectId, session),
    batchId: randomUUID(),
    sentAtMs: BigInt(Date.now()),
    events: [{ eventType: "$page-view", eventAtMs: BigInt(Date.now()), dataJson: JSON.stringify({ path: "/" }) }],
    bodyBytes: BigInt(bodyBytes),
  });
}

describe("quotas", () => {
  it("limits what one project stores per day across all its sessions", async () => {
    const p = randomUUID();
    expect((await ingest(p, 15_000)).inserted).toBe(1);
    const refused = await rpcError(ingest(p, 6_000));
    expect(refused).toBeInstanceOf(StatusError);
    expect((refused as StatusError).httpStatus).toBe(429);
    expect((refused as StatusError).message).toMatch(/^Too many analytics events from this project today\./);
    expect((refused as StatusError).retryAfterSeconds).toBeGreaterThan(0);
    expect((await ingest(p, 4_000)).inserted).toBe(1);
    expect((await ingest(randomUUID(), 15_000)).inserted).toBe(1);
  });

  it("limits the replay data of one session per minute", async () => {
    const p = randomUUID();
    const c = caller(p);
    const replay = (size: number) =>
      client.ingestReplayBatch({
        caller: c,
        browserSessionId: randomUUID(),
        sessionReplaySegmentId: randomUUID(),
        batchId: randomUUID(),
        startedAtMs: BigInt(Date.now()),
        sentAtMs: BigInt(Date.now()),
        eventsJson: JSON.stringify([{ type: 3, data: "x".repeat(size) }]),
        eventCount: 1,
        firstEventAtMs: BigInt(Date.now()),
        lastEventAtMs: BigInt(Date.now()),
      });
    const first = await replay(3_000);
    expect(first.deduped).toBe(false);
    const refused = await rpcError(replay(3_000));
    expect((refused as StatusError).httpStatus).toBe(429);
    expect((refused as StatusError).message).toMatch(/^Too much session replay data from this session\./);
    const chunks = await pool.query(`SELECT count(*)::int AS n FROM analytics_replay_chunks WHERE session_replay_id = $1`, [first.sessionReplayId]);
    expect(chunks.rows[0].n).toBe(1);
  });
});

describe("concurrency", () => {
  it("puts a session's concurrent replay batches in one replay, alongside its event batches, without deadlocks", async () => {
    const p = randomUUID();
    const c = caller(p);
    const replay = () =>
      client.ingestReplayBatch({
        caller: c,
        browserSessionId: randomUUID(),
        sessionReplaySegmentId: randomUUID(),
        batchId: randomUUID(),
        startedAtMs: BigInt(Date.now()),
        sentAtMs: BigInt(Date.now()),
        eventsJson: "[{}]",
        eventCount: 1,
        firstEventAtMs: BigInt(Date.now()),
        lastEventAtMs: BigInt(Date.now()),
      });
    const events = () => ingest(p, 100, c.refreshTokenId);
    const results = await Promise.all([replay(), events(), replay(), events(), replay(), events(), replay()]);
    const replayIds = new Set(results.flatMap((r) => ("sessionReplayId" in r ? [r.sessionReplayId] : [])));
    expect(replayIds.size).toBe(1);
    const rows = await pool.query(`SELECT count(*)::int AS n FROM analytics_session_replays WHERE project_id = $1`, [p]);
    expect(rows.rows[0].n).toBe(1);
  });
});

describe("queries", () => {
  it("stops a query at its timeout with ANALYTICS_QUERY_TIMEOUT", async () => {
    const p = randomUUID();
    await pool.query(
      `INSERT INTO analytics_events (project_id, branch_id, event_type, event_at, batch_id, data, user_id)
       SELECT $1, 'main', '$page-view', now() - (i % 300) * interval '1 day', gen_random_uuid(), '{"path":"/"}', gen_random_uuid()
       FROM generate_series(1, 100000) AS i`,
      [p],
    );
    const params = JSON.stringify({ from_millis: Date.now() - 365 * 86_400_000 });
    const slow = await rpcError(client.queryAnalytics({ projectId: p, branchId: "main", query: "active_users_per_day", paramsJson: params, timeoutMs: 1 }));
    expect(slow).toBeInstanceOf(KnownError);
    expect((slow as KnownError).code).toBe("ANALYTICS_QUERY_TIMEOUT");
    expect((slow as KnownError).details).toEqual({ timeout_ms: 1 });
    const ok = await client.queryAnalytics({ projectId: p, branchId: "main", query: "page_views_per_day", paramsJson: params, timeoutMs: 30_000 });
    const rows = JSON.parse(ok.resultJson) as { page_views: number }[];
    expect(rows.reduce((s, r) => s + r.page_views, 0)).toBe(100_000);
  });
});

describe("project deletion", () => {
  it("removes a deleted project's events and replays", async () => {
    const { project } = await projects.createProject({ displayName: "Analytics doomed", configUpdateJson: "{}" });
    const projectId = project!.id;
    await ingest(projectId, 100);
    await client.ingestReplayBatch({
      caller: caller(projectId),
      browserSessionId: randomUUID(),
      sessionReplaySegmentId: randomUUID(),
      batchId: randomUUID(),
      startedAtMs: 1n,
      sentAtMs: 1n,
      eventsJson: "[{}]",
      eventCount: 1,
      firstEventAtMs: 1n,
      lastEventAtMs: 1n,
    });
    const count = async () =>
      (await pool.query(`SELECT (SELECT count(*) FROM analytics_events WHERE project_id = $1) + (SELECT count(*) FROM analytics_session_replays WHERE project_id = $1) AS n`, [projectId])).rows[0].n;
    expect(Number(await count())).toBe(2);
    await projects.deleteProject({ projectId });
    await expect.poll(async () => Number(await count()), { timeout: 15_000, interval: 200 }).toBe(0);
  });
});
