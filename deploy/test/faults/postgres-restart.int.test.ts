/**
 * Fault test: restart PostgreSQL under load. The cluster (2 replicas of every process, balancer, one NATS node)
 * runs on a private embedded PostgreSQL on a free port, which is stopped for 5 s and started again (same data,
 * same port). Holds: every process reconnects without being restarted (same pids), the gateways' readiness goes
 * false while the database is down and true again after, requests succeed again once it is back, and every
 * identity.user.updated.v1 committed is processed exactly once by each consumer. Prints a table. About 1.5 minutes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../../src/embedded-postgres.ts";
import { natsServerAvailable } from "../../src/nats-cluster.ts";
import { freePorts } from "../../src/platform.ts";
import { startTestCluster, type TestCluster } from "../../src/test-cluster.ts";
import { countsSince, countUserUpdatedEvents, eventRows, printTable, startLoad, waitForEvents } from "./load.ts";

const available = natsServerAvailable();
if (!available && process.env.CI === "true") throw new Error("nats-server is required under CI=true (the fault tests run a NATS cluster)");
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)("restart PostgreSQL under load", () => {
  let tc: TestCluster;
  let pgDir: string;
  let port: number;
  let postgres: EmbeddedPostgres | undefined;
  const startPostgres = async () =>
    (postgres = await startEmbeddedPostgres({ dataDir: join(pgDir, "pg"), port, portAttempts: 1, database: "vestibule_fault", onInfo: () => undefined, onLog: () => undefined }));

  beforeAll(async () => {
    pgDir = mkdtempSync(join(tmpdir(), "vestibule-fault-pg-"));
    port = (await freePorts(1))[0]!;
    await startPostgres();
    tc = await startTestCluster({ replicas: 2, natsNodes: 1, databaseUrl: postgres!.databaseUrl });
  }, 180_000);
  afterAll(async () => {
    await tc?.stop();
    await postgres?.stop();
    rmSync(pgDir, { recursive: true, force: true });
  }, 60_000);

  it("processes reconnect without restarting, readiness goes false then true, no event is lost", async () => {
    const pids = { ...tc.platform.pids() };
    const since = await countUserUpdatedEvents(tc.databaseUrl);
    const load = await startLoad(tc, { users: 4, workers: 4 });
    await sleep(1_500);
    const ready = async (): Promise<boolean[]> =>
      Promise.all(tc.platform.gatewayUrls.map((u) => fetch(`${u}/health`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status === 200, () => false)));
    expect(await ready()).toEqual([true, true]);

    const beforeOutage = load.snapshot();
    const t0 = Date.now();
    await postgres!.stop();
    postgres = undefined;
    let notReadyAfter: number | undefined;
    while (Date.now() - t0 < 5_000 || notReadyAfter === undefined) {
      if (notReadyAfter === undefined && (await ready()).every((r) => !r)) notReadyAfter = (Date.now() - t0) / 1000;
      if (Date.now() - t0 > 30_000) break;
      await sleep(200);
    }
    const t1 = Date.now();
    // Its start-up check connects once; under the reconnecting services it may be refused ("starting up"): again.
    for (let attempt = 1; ; attempt++) {
      try {
        await startPostgres();
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        await sleep(500);
      }
    }
    const pgBack = (Date.now() - t1) / 1000;
    let readyAfter: number | undefined;
    while (readyAfter === undefined && Date.now() - t1 < 60_000) {
      if ((await ready()).every((r) => r)) readyAfter = (Date.now() - t1) / 1000;
      else await sleep(200);
    }
    const outage = countsSince(load, beforeOutage);
    const afterRecovery = load.snapshot();
    await sleep(3_000);
    const recovered = countsSince(load, afterRecovery);
    await load.stop();
    const { events, seconds } = await waitForEvents(tc.databaseUrl, 30_000);

    printTable("Fault test: PostgreSQL stopped ≥ 5 s and started again, under load (2 replicas of every process)", [
      ["phase", "requests", "failed", "first failures", "time (s)"],
      ["stop → every gateway not ready", "", "", "", notReadyAfter?.toFixed(1) ?? "never"],
      ["outage until every gateway ready again", outage.all.requests, outage.all.failed, [...load.tally.read.samples, ...load.tally.write.samples].slice(0, 1).join(""), ""],
      ["start → PostgreSQL accepting", "", "", "", pgBack.toFixed(1)],
      ["start → every gateway ready", "", "", "", readyAfter?.toFixed(1) ?? "never"],
      ["3 s after recovery", recovered.all.requests, recovered.all.failed, "", ""],
      ["processes restarted", JSON.stringify(tc.platform.pids()) === JSON.stringify(pids) ? "none" : "some", "", "", ""],
    ]);
    printTable("identity.user.updated.v1 events", eventRows(events, since, load.okWrites(), seconds));

    expect(notReadyAfter).toBeDefined();
    expect(readyAfter).toBeDefined();
    expect(tc.platform.pids()).toEqual(pids);
    expect(recovered.all.requests).toBeGreaterThan(20);
    expect(recovered.all.failed).toBe(0);
    expect(events.produced - since.produced).toBeGreaterThanOrEqual(load.okWrites());
    expect(events.unpublished).toBe(0);
    for (const [consumer, processed] of Object.entries(events.consumers)) expect({ consumer, processed }).toEqual({ consumer, processed: events.produced });
  }, 180_000);
});
