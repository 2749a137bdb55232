/**
 * The local NATS cluster (nats-cluster.ts) leaves nothing behind however its process ends: no nats-server and no
 * temporary store directory, also when the process exits before stop() has finished (a second Ctrl-C of
 * `npm run start:cluster`) or without calling it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { natsServerAvailable } from "../src/nats-cluster.ts";
import { spawnFixture } from "./fixtures/spawn-fixture.ts";

/** Pids of processes whose command line mentions `text`. */
function processesWith(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text)) pids.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return pids;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!natsServerAvailable())("local NATS cluster clean-up", () => {
  it.each(["exit", "stopping"])("SIGINT handled by %s: no node and no store directory left", async (mode) => {
    const { proc: holder, ready } = await spawnFixture("hold-nats-cluster", [mode]);
    const storeDir = ready.slice("READY ".length);
    expect(existsSync(storeDir)).toBe(true);
    expect(processesWith(storeDir)).toHaveLength(1);

    const exited = new Promise<number | null>((resolve) => holder.once("exit", resolve));
    holder.kill("SIGINT");
    expect([await exited, holder.signalCode]).toEqual([130, null]);
    expect(existsSync(storeDir)).toBe(false);
    for (let i = 0; i < 50 && processesWith(storeDir).length > 0; i++) await sleep(100);
    expect(processesWith(storeDir)).toEqual([]);
  }, 60_000);
});
