/**
 * `npm run bench:list [-- --users 1000000]`: users-list latency at scale. Creates a scratch database on DATABASE_URL
 * (or the local PostgreSQL at 127.0.0.1:5432/test), runs the identity service in this process, seeds N users with the
 * seeder, then times pages of 100 through the real RPC (gRPC over h2c, as the gateway calls it), one call at a time:
 * keyset pages without a query (from random start positions, forwards and backwards) and searches of every
 * selectivity (first names, surnames, full names, e-mails and parts of them, domains, ids). Prints p50/p99/max per
 * round and, for each target of issue 19 (bench/targets.ts: p99 under 10 ms without a query, under 20 ms with one,
 * at 1,000,000 users), in how many rounds it was met. The database is dropped at the end.
 *
 * `--embedded` runs on a fresh embedded PostgreSQL configured as `npm start` configures it (shared_buffers sized for
 * the data, see deploy/src/embedded-postgres.ts) in a temporary folder, removed afterwards, instead of DATABASE_URL's
 * server (whose settings are its operator's: Debian's default shared_buffers of 128 MB holds an eighth of a million
 * users' tables and indexes, so searches there read most pages from the OS cache).
 */
import { randomBytes } from "node:crypto";
import { createPool } from "@vestibule/shared/db";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService } from "@vestibule/shared/service";
import { createTestDatabase } from "@vestibule/shared/testing";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { identityService } from "@vestibule/identity";
import { mkdtempSync, rmSync } from "node:fs";
import pg from "pg";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "../embedded-postgres.ts";
import { seedUsers } from "./seed-users.ts";
import { LATENCY_TARGETS, scaleNote, verdict, type LatencyTarget } from "./targets.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Times `rounds` rounds of the calls (after a warm-up) and prints each; answers the p99 of each round. */
async function round(name: string, calls: Array<() => Promise<unknown>>, rounds = 3): Promise<number[]> {
  const p99s: number[] = [];
  for (const call of calls) await call(); // warm-up: connections, JIT, plans, buffer cache
  for (let i = 1; i <= rounds; i++) {
    const samples: number[] = [];
    for (const call of calls) {
      const started = performance.now();
      await call();
      samples.push(performance.now() - started);
    }
    const p99 = percentile(samples, 99);
    process.stdout.write(
      `${name.padEnd(34)} round ${i}: p50 ${percentile(samples, 50).toFixed(2)} ms  p99 ${p99.toFixed(2)} ms  max ${Math.max(...samples).toFixed(2)} ms  (${samples.length} calls)\n`,
    );
    p99s.push(p99);
  }
  return p99s;
}

/** The verdict on one of issue 19's users-page targets. */
function reportTarget(name: string, p99s: number[], target: LatencyTarget, users: number): void {
  const met = p99s.filter((p) => p < target.p99Ms).length;
  process.stdout.write(`target: ${name}, p99 < ${target.p99Ms} ms: ${verdict(met === p99s.length)}, in ${met} of ${p99s.length} rounds${scaleNote(target, users, "users")}\n`);
}

async function main(): Promise<void> {
  const count = arg("--users", 200_000);
  const calls = arg("--calls", 200);
  let embedded: { server: EmbeddedPostgres; dir: string } | undefined;
  if (process.argv.includes("--embedded")) {
    const dir = mkdtempSync(join(tmpdir(), "vestibule-bench-pg-"));
    const server = await startEmbeddedPostgres({ dataDir: join(dir, "pg"), port: 54400, onInfo: () => {} });
    embedded = { server, dir };
    process.env.DATABASE_URL = server.databaseUrl;
    const probe = new pg.Client({ connectionString: server.databaseUrl });
    await probe.connect();
    const { rows } = await probe.query<{ shared_buffers: string }>("SHOW shared_buffers");
    await probe.end();
    process.stdout.write(`embedded PostgreSQL on :${server.port}, shared_buffers ${rows[0]!.shared_buffers}\n`);
  }
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/test";
  const db = await createTestDatabase("vestibule_bench");
  const env = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    VESTIBULE_MODE: "development", // tests and benchmarks use the development conveniences (dev mailbox)
    LOG_LEVEL: "silent",
    PORT: "0",
  };
  const service = await startService(identityService, { env, log: createLogger({ service: "bench", level: "silent" }) });
  const pool = createPool({ connectionString: db.url, schema: "identity", max: 2 });
  try {
    const rpc = { baseUrl: `http://127.0.0.1:${service.port}`, caller: "bench", secret: env.VESTIBULE_SERVICE_SECRET, timeoutMs: 60_000 };
    const users = createServiceClient(UserService, rpc);
    const { project } = await createServiceClient(ProjectService, rpc).createProject({ displayName: "List benchmark" });
    const projectId = project!.id;
    const client = await pool.connect();
    try {
      const seeded = await seedUsers(client, { projectId, count });
      process.stdout.write(`seeded ${seeded.inserted.toLocaleString("en-US")} users in ${(seeded.totalMs / 1000).toFixed(1)} s\n`);
    } finally {
      client.release();
    }
    const { rows: starts } = await pool.query<{ id: string }>(
      `SELECT id FROM users WHERE project_id = $1 AND NOT is_anonymous ORDER BY random() LIMIT ${Math.ceil(calls / 4)}`,
      [projectId],
    );
    const pages: Array<() => Promise<unknown>> = [];
    for (const [i, { id }] of starts.entries()) {
      let cursor = id;
      for (let page = 0; page < 4; page++) {
        pages.push(async () => {
          const res = await users.listUsers({ projectId, limit: 100, cursor, desc: i % 2 === 1 });
          cursor = res.nextCursor || id;
        });
      }
    }
    const pageP99s = await round("page of 100, no query", pages);
    const { rows } = await pool.query<{ id: string; display_name: string; value: string }>(
      `SELECT u.id, u.display_name, c.value FROM users u JOIN contact_channels c ON c.user_id = u.id WHERE u.project_id = $1 ORDER BY random() LIMIT 20`,
      [projectId],
    );
    const queries = ["gmail", "proton.me", "Example.ORG", "nobody-matches-this"];
    for (const r of rows) {
      const [first, last] = r.display_name.split(" ") as [string, string];
      queries.push(first, last.toUpperCase(), r.display_name, r.value, r.value.split("@")[0]!.slice(0, 8), r.id);
    }
    const searches = Array.from({ length: calls }, (_, i) => () => users.listUsers({ projectId, limit: 100, query: queries[i % queries.length]!, desc: i % 2 === 1 }));
    const searchP99s = await round("page of 100 with query", searches);
    reportTarget("page of 100, no query", pageP99s, LATENCY_TARGETS.usersPage, count);
    reportTarget("page of 100 with query", searchP99s, LATENCY_TARGETS.usersSearch, count);
  } finally {
    await pool.end();
    await service.stop();
    await db.drop();
    if (embedded) {
      await embedded.server.stop();
      rmSync(embedded.dir, { recursive: true, force: true });
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:list: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
