/**
 * Issue 18 (Low row): the pool's error handler used to drop every error of an idle connection. An idle client whose
 * connection dies must neither crash the process nor vanish silently: it is logged (without credentials) and the pool
 * keeps working with a new connection.
 */
import net from "node:net";
import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../src/db/index.ts";
import { isDatabaseUnavailable, toConnectError } from "../src/errors/index.ts";
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

  it("a refused connection and a connection reset mid-query are the database's: Unavailable (503), not Internal", async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const refused = createPool({ connectionString: `postgres://postgres@127.0.0.1:${closed}/test`, schema: "public", max: 1 });
    const err = await refused.query("SELECT 1").catch((e: unknown) => e);
    await refused.end();
    expect((err as { code?: string }).code).toBe("ECONNREFUSED");
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(toConnectError(err).code).toBe(Code.Unavailable);

    // A proxy in front of Postgres that resets the connection (TCP RST) while a query runs.
    const target = new URL(db.url);
    const sockets: net.Socket[] = [];
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      sockets.push(client);
      client.pipe(upstream).on("error", () => undefined);
      upstream.pipe(client).on("error", () => undefined);
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const proxied = new URL(db.url);
    proxied.hostname = "127.0.0.1";
    proxied.port = String((proxy.address() as net.AddressInfo).port);
    const pool = createPool({ connectionString: proxied.toString(), schema: "public", max: 1 });
    try {
      await pool.query("SELECT 1");
      const running = pool.query("SELECT pg_sleep(5)").catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 200));
      for (const s of sockets) s.resetAndDestroy();
      const reset = await running;
      expect((reset as { code?: string }).code).toBe("ECONNRESET");
      expect(isDatabaseUnavailable(reset)).toBe(true);
      expect(toConnectError(reset).code).toBe(Code.Unavailable);
    } finally {
      await pool.end().catch(() => undefined);
      await new Promise((r) => proxy.close(r));
    }
  });
});
