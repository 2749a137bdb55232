/**
 * Fault test: under steady mixed load through the balancer, SIGKILL one replica of each service and of the gateway
 * in turn (each is started again before the next). Holds: no idempotent request fails (the RPC clients and the
 * balancer retry reads on the other replica), under 0.5 % of writes fail (a write cut off inside a dying replica
 * may have committed, so it is not retried), and every identity.user.updated.v1 event that was committed is
 * processed exactly once by each of its consumers. Prints a table of requests, failures, events and recovery times.
 * Bounded: about 2 minutes on 2 cores, most of it starting 14 processes and restarting the killed ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsServerAvailable } from "../../src/nats-cluster.ts";
import { PROCESS_NAMES } from "../../src/platform.ts";
import { startTestCluster, type TestCluster } from "../../src/test-cluster.ts";
import { countUserUpdatedEvents, KINDS, printTable, startLoad, type Kind } from "./load.ts";

const available = natsServerAvailable();
if (!available && process.env.CI === "true") throw new Error("nats-server is required under CI=true (the fault tests run a NATS cluster)");
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)("kill -9 one replica of each service in turn, under load", () => {
  let tc: TestCluster;
  beforeAll(async () => {
    tc = await startTestCluster({ replicas: 2 });
  }, 180_000);
  afterAll(async () => {
    await tc?.stop();
  }, 60_000);

  it("loses no read, < 0.5 % of writes, and delivers every committed event exactly once per consumer", async () => {
    const load = await startLoad(tc, { users: 6, workers: 4 });
    await sleep(2_000);
    const rows: Array<Array<string | number>> = [["killed (SIGKILL)", "requests", "failed sign-ins", "failed reads", "failed writes", "recovery (s)"]];
    type Counts = { requests: number; failed: number };
    const snapshot = () => Object.fromEntries(KINDS.map((k): [Kind, Counts] => [k, { ...load.tally[k] }])) as Record<Kind, Counts>;
    for (const [i, name] of PROCESS_NAMES.entries()) {
      const instance = tc.platform.instances(name)[i % 2]!;
      const before = snapshot();
      const t0 = Date.now();
      await tc.platform.killService(instance);
      await sleep(2_000);
      await tc.platform.restartService(instance);
      const recovery = (Date.now() - t0) / 1000;
      await sleep(500);
      const after = snapshot();
      const d = (k: Kind, f: "requests" | "failed") => after[k][f] - before[k][f];
      rows.push([instance, KINDS.reduce((s, k) => s + d(k, "requests"), 0), d("sign-in", "failed"), d("read", "failed"), d("write", "failed"), recovery.toFixed(1)]);
    }
    await load.stop();

    // Outboxes drain and consumers catch up.
    const drainStart = Date.now();
    let events = await countUserUpdatedEvents(tc.databaseUrl);
    const caughtUp = (e: typeof events) => e.unpublished === 0 && Object.keys(e.consumers).length > 0 && Object.values(e.consumers).every((n) => n === e.produced);
    while (!caughtUp(events) && Date.now() - drainStart < 30_000) {
      await sleep(250);
      events = await countUserUpdatedEvents(tc.databaseUrl);
    }
    const t = load.tally;
    rows.push(["total", KINDS.reduce((s, k) => s + t[k].requests, 0), t["sign-in"].failed, t.read.failed, t.write.failed, ""]);
    printTable("Fault test: kill -9 one replica of each process in turn (2 replicas each, 4 workers)", rows);
    printTable("Requests by kind", [
      ["kind", "requests", "failed", "failed %", "first failures"],
      ...KINDS.map((k) => [k, t[k].requests, t[k].failed, ((100 * t[k].failed) / Math.max(1, t[k].requests)).toFixed(2), t[k].samples.slice(0, 2).join(" ; ")]),
    ]);
    printTable("identity.user.updated.v1 events", [
      ["produced (outbox)", "successful PATCHes", "unpublished", ...Object.keys(events.consumers).map((c) => `processed by ${c}`), "caught up in (s)"],
      [events.produced, load.okWrites(), events.unpublished, ...Object.values(events.consumers), ((Date.now() - drainStart) / 1000).toFixed(1)],
    ]);

    expect(t.read.requests).toBeGreaterThan(100);
    expect(t.read.failed).toBe(0);
    const writes = t.write.requests + t["sign-in"].requests;
    expect((t.write.failed + t["sign-in"].failed) / writes).toBeLessThan(0.005);
    // Every successful PATCH committed an event; a failed one may have committed too.
    expect(events.produced).toBeGreaterThanOrEqual(load.okWrites());
    expect(events.unpublished).toBe(0);
    expect(Object.keys(events.consumers).some((c) => c.endsWith("/auth-identity-user-updated"))).toBe(true);
    for (const [consumer, processed] of Object.entries(events.consumers)) expect({ consumer, processed }).toEqual({ consumer, processed: events.produced });
  }, 240_000);
});
