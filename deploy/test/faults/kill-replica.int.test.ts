/**
 * Fault test: under steady mixed load through the balancer, SIGKILL one replica of each service and of the gateway
 * in turn, 5 s apart (each is started again at once). Holds: no idempotent request fails (the RPC clients and the
 * balancer retry reads on the other replica), under 0.5 % of writes fail (a write cut off inside a dying replica
 * may have committed, so it is not retried), and every identity.user.updated.v1 event that was committed is
 * processed exactly once by each of its consumers. Prints a table of requests, failures, events and recovery times.
 * Bounded: about 2 minutes on 2 cores, most of it starting 14 processes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { natsServerAvailable } from "../../src/nats-cluster.ts";
import { PROCESS_NAMES } from "../../src/platform.ts";
import { startTestCluster, type TestCluster } from "../../src/test-cluster.ts";
import { countsSince, countUserUpdatedEvents, KINDS, printTable, startLoad } from "./load.ts";

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
    const rows: Array<Array<string | number>> = [["killed (SIGKILL)", "requests (next 5 s)", "failed sign-ins", "failed reads", "failed writes", "recovery (s)"]];
    // One replica of each process in turn, 5 s apart; each is started again at once (in the background, so the
    // next kill does not wait for it) and its recovery time is kill → SERVING again.
    const restarts: Array<Promise<void>> = [];
    for (const [i, name] of PROCESS_NAMES.entries()) {
      const instance = tc.platform.instances(name)[i % 2]!;
      const before = load.snapshot();
      const t0 = Date.now();
      await tc.platform.killService(instance);
      const row: Array<string | number> = [instance];
      rows.push(row);
      restarts.push(tc.platform.restartService(instance).then(() => void (row[5] = ((Date.now() - t0) / 1000).toFixed(1))));
      await sleep(5_000);
      const d = countsSince(load, before);
      row.push(d.all.requests, d["sign-in"].failed, d.read.failed, d.write.failed);
    }
    await Promise.all(restarts);
    await sleep(1_000);
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
    // Sign-ins are writes too (each creates a session): both count against the 0.5 %.
    const writes = t.write.requests + t["sign-in"].requests;
    expect((t.write.failed + t["sign-in"].failed) / writes).toBeLessThan(0.005);
    // Every successful PATCH committed an event; a failed one may have committed too.
    expect(events.produced).toBeGreaterThanOrEqual(load.okWrites());
    expect(events.unpublished).toBe(0);
    expect(Object.keys(events.consumers).some((c) => c.endsWith("/auth-identity-user-updated"))).toBe(true);
    for (const [consumer, processed] of Object.entries(events.consumers)) expect({ consumer, processed }).toEqual({ consumer, processed: events.produced });
  }, 240_000);

  it("drains a gateway on SIGTERM under load: its in-flight requests complete, no request fails", async () => {
    const load = await startLoad(tc, { users: 4, workers: 4 });
    await sleep(1_500);
    const before = load.snapshot();
    const t0 = Date.now();
    await tc.platform.stopService("gateway#2");
    const drained = (Date.now() - t0) / 1000;
    await sleep(1_000);
    const during = countsSince(load, before);
    const t1 = Date.now();
    await tc.platform.restartService("gateway#2");
    const back = (Date.now() - t1) / 1000;
    await sleep(1_000);
    await load.stop();
    const all = countsSince(load, before);
    printTable("Fault test: SIGTERM one of 2 gateways under load (balancer probes /health every 250 ms, drain delay 1 s)", [
      ["phase", "requests", "failed", "first failures", "time (s)"],
      ["SIGTERM → exited, +1 s", during.all.requests, during.all.failed, KINDS.flatMap((k) => load.tally[k].samples).slice(0, 2).join(" ; "), drained.toFixed(1)],
      ["restart → ready, +1 s", all.all.requests - during.all.requests, all.all.failed - during.all.failed, "", back.toFixed(1)],
    ]);
    expect(during.all.requests).toBeGreaterThan(20);
    expect(all.all.failed).toBe(0);
  }, 120_000);
});
