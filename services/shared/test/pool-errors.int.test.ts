/**
 * Issue 18 (Low row): the pool's error handler used to drop every error of an idle connection. An idle client whose
 * connection dies must neither crash the process nor vanish silently: it is logged (without credentials) and the pool
 * keeps working with a new connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../src/db/index.ts";
import { createLogger } from "../src/log/index.ts";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe("database pool errors", () => {
  it("an idle connection killed by the server is logged as a warning, and the next query works", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger({ service: "test", level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const pool: Pool = createPool({ connectionString: db.url, schema: "public", max: 1, applicationName: "pool-errors-test", log });
    const admin = createPool({ connectionString: db.url, schema: "public", max: 1 });
    try {
      const { rows } = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      // The connection is idle in the pool now; the server ends it.
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      await expect.poll(() => lines.length, { timeout: 5_000 }).toBeGreaterThan(0);
      expect(lines[0]).toMatchObject({ level: 40, schema: "public", msg: "idle database connection failed; the pool replaces it" });
      expect(JSON.stringify(lines)).not.toContain(db.url);
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    } finally {
      await pool.end();
      await admin.end();
    }
  });

  it("a checked-out client whose connection dies between two queries does not crash the process; its next query fails", async () => {
    const pool: Pool = createPool({ connectionString: db.url, schema: "public", max: 1, applicationName: "pool-checked-out-test" });
    const admin = createPool({ connectionString: db.url, schema: "public", max: 1 });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", onUncaught);
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      // Held between queries (a transaction awaiting an RPC) while the server ends the connection.
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      await new Promise((r) => setTimeout(r, 500));
      await expect(client.query("SELECT 1")).rejects.toThrow();
      client.release();
      expect(uncaught).toEqual([]);
      // The pool replaced it.
      expect((await pool.query("SELECT 1 AS one")).rows[0].one).toBe(1);
    } finally {
      process.off("uncaughtException", onUncaught);
      await pool.end();
      await admin.end();
    }
  });
});
