/**
 * Prometheus metrics of a service process (VESTIBULE_METRICS_PORT): Node defaults, RPCs by method and code (refused
 * calls included), Postgres pool usage and outbox lag are present on GET /metrics and move with traffic.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, freePorts, type TestDatabase } from "@vestibule/shared/testing";
import { identityService } from "../src/server.ts";
import { TEAM_CONSUMERS } from "../src/team-events.ts";

let db: TestDatabase;
let identity: RunningService;
let secret: string;

async function scrape(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${identity.metricsPort}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  return res.text();
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(" ").pop());
  }
  return undefined;
}

beforeAll(async () => {
  db = await createTestDatabase();
  secret = randomBytes(32).toString("hex");
  const env = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry("k1"),
    VESTIBULE_SERVICE_SECRET: secret,
    LOG_LEVEL: "silent",
    PORT: "0",
    VESTIBULE_METRICS_PORT: String((await freePorts(1))[0]),
  };
  identity = await startService(identityService, { env, log: createLogger({ service: "test", level: "silent" }) });
}, 120_000);
afterAll(async () => {
  await identity?.stop();
  await db?.drop();
});

describe("service metrics", () => {
  it("serves Node, RPC, pool and outbox metrics that move with traffic", async () => {
    const method = "vestibule.identity.v1.ProjectService/CreateProject";
    const before = await scrape();
    expect(sample(before, "process_resident_memory_bytes", { process: "identity" })).toBeGreaterThan(0);
    expect(sample(before, "vestibule_db_pool_clients", { state: "total" })).toBeGreaterThanOrEqual(0);
    expect(sample(before, "vestibule_outbox_pending_events")).toBeGreaterThanOrEqual(0);
    expect(sample(before, "vestibule_outbox_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(before, "vestibule_rpc_server_requests_total", { method, code: "ok" })).toBeUndefined();

    const baseUrl = `http://127.0.0.1:${identity.port}`;
    const projects = createServiceClient(ProjectService, { baseUrl, caller: "test", secret });
    await projects.createProject({ displayName: "Metrics 1", configUpdateJson: "{}" });
    await projects.createProject({ displayName: "Metrics 2", configUpdateJson: "{}" });
    await expect(createClient(ProjectService, createGrpcTransport({ baseUrl })).createProject({ displayName: "x", configUpdateJson: "{}" })).rejects.toThrow(/credentials/);

    const after = await scrape();
    expect(sample(after, "vestibule_rpc_server_requests_total", { method, code: "ok" })).toBe(2);
    expect(sample(after, "vestibule_rpc_server_requests_total", { method, code: "Unauthenticated" })).toBe(1);
    expect(sample(after, "vestibule_rpc_server_duration_seconds_count", { method })).toBe(3);
    expect(sample(after, "vestibule_db_pool_clients", { state: "total" })).toBeGreaterThan(0);
    // Consumer lag of identity's durable consumers (e.g. of teams_permissions.team.deleted.v1): nothing waiting here.
    expect(sample(after, "vestibule_event_consumer_pending", { consumer: TEAM_CONSUMERS.teamDeleted })).toBe(0);
    expect((await fetch(`http://127.0.0.1:${identity.metricsPort}/other`)).status).toBe(404);
  }, 60_000);
});
