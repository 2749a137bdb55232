import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres } from "../src/embedded-postgres.ts";
import { spawnFixture } from "./fixtures/spawn-fixture.ts";

// An absolute folder the `postgres` OS user can reach (we may run as root).
const base = mkdtempSync(join(tmpdir(), "vestibule-epg-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Each test initialises (initdb) and starts real clusters, one in a tsx child process: slow on a loaded CI machine. */
const CLUSTER_TEST_MS = 120_000;

describe("embedded Postgres", () => {
  it("initialises a cluster on first start, creates the database, and starts again from the same folder", async () => {
    const dataDir = join(base, "first");
    const first = await startEmbeddedPostgres({ dataDir, database: "vestibule", onInfo: () => undefined });
    try {
      expect(first.databaseUrl).toMatch(/^postgres:\/\/postgres:postgres@127\.0\.0\.1:\d+\/vestibule$/);
      await query(first.databaseUrl, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");
    } finally {
      await first.stop();
    }
    const again = await startEmbeddedPostgres({ dataDir, database: "vestibule", onInfo: () => undefined });
    try {
      expect(await query(again.databaseUrl, "SELECT v FROM kept")).toEqual([{ v: 42 }]);
    } finally {
      await again.stop();
    }
  }, CLUSTER_TEST_MS);

  it("stops the postmaster left by a SIGKILLed run and starts again", async () => {
    const dataDir = join(base, "killed");
    const { proc: holder, ready } = await spawnFixture("hold-embedded-postgres", [dataDir]);
    const stalePid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    expect(ready).toMatch(/^READY \d+ \d+$/);
    expect(alive(stalePid)).toBe(true); // the killed run's postmaster survived it

    const messages: string[] = [];
    const restarted = await startEmbeddedPostgres({ dataDir, database: "held", onInfo: (m) => messages.push(m) });
    try {
      expect(alive(stalePid)).toBe(false);
      expect(messages.join("\n")).toContain("left running by an earlier run");
      expect(await query(restarted.databaseUrl, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    } finally {
      await restarted.stop();
    }
  }, CLUSTER_TEST_MS);

  it("refuses a cluster that another live process is using, or moves to the next folder when asked", async () => {
    const dataDir = join(base, "busy");
    const { proc: holder } = await spawnFixture("hold-embedded-postgres", [dataDir]);
    try {
      await expect(startEmbeddedPostgres({ dataDir, onInfo: () => undefined })).rejects.toThrow(/is in use by process/);
      const second = await startEmbeddedPostgres({ dataDir, whenBusy: "next-dir", onInfo: () => undefined });
      try {
        expect(second.dataDir).toBe(`${dataDir}-2`);
      } finally {
        await second.stop();
      }
    } finally {
      holder.kill("SIGTERM"); // the fixture stops its postmaster, then exits
      await new Promise((resolve) => holder.once("exit", resolve));
    }
  }, CLUSTER_TEST_MS);
});
