import { createHash } from "node:crypto";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { markDatabaseError } from "../errors/unavailable.ts";
import type { Logger } from "../log/index.ts";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that can run a query: a pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

// Return bigint columns (int8) as JS numbers when they are safe; the ids we store in int8 are sequence numbers
// and epoch milliseconds, both far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PoolSettings {
  readonly connectionString: string;
  /** The service's own schema; becomes the search_path, so queries use unqualified table names. */
  readonly schema: string;
  readonly max?: number;
  readonly applicationName?: string;
  /** Planner or session settings of every connection (sent at connection start-up, costing no round trip). */
  readonly sessionSettings?: Readonly<Record<string, string>>;
  /** Where the errors of idle connections are reported (a lost connection, a server restart). */
  readonly log?: Logger;
}

/**
 * The client of our pools: the errors of its connection (refused, reset, timed out; while connecting or in use) are
 * marked as the database's, so that they answer Unavailable and the same codes from elsewhere do not
 * (errors/unavailable.ts). A socket error reaches the client's 'error' listeners before its queries fail.
 */
export class DatabaseClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on("error", markDatabaseError);
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, client: pg.Client) => void)): void;
  override connect(callback?: ((err: Error) => void) | ((err: null, client: pg.Client) => void)): Promise<pg.Client> | void {
    if (!callback) {
      return super.connect().catch((err: unknown) => {
        markDatabaseError(err);
        throw err;
      });
    }
    // pg calls back with (error) or (null, client), which is what the caller's callback takes.
    const done = callback as (err: Error | null, client?: pg.Client) => void;
    super.connect((err: Error | null, client?: pg.Client) => {
      if (err) markDatabaseError(err);
      done(err, client);
    });
  }
}

/** A pool whose every connection has `search_path` set to the service's schema. */
export function createPool(settings: PoolSettings): Pool {
  if (!SCHEMA_NAME.test(settings.schema)) throw new Error(`invalid schema name "${settings.schema}"`);
  const pool = new pg.Pool({
    Client: DatabaseClient,
    connectionString: settings.connectionString,
    max: settings.max ?? 10,
    application_name: settings.applicationName ?? `vestibule-${settings.schema}`,
    options: [`-c search_path=${settings.schema}`, ...Object.entries(settings.sessionSettings ?? {}).map(([k, v]) => `-c ${k}=${v}`)].join(" "),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its connection must not crash the process; the pool replaces it. It is still reported:
  // a run of these means the database went away or restarted.
  pool.on("error", (err) => {
    if (settings.log) settings.log.warn({ err: err.message, schema: settings.schema }, "idle database connection failed; the pool replaces it");
    else process.emitWarning(`vestibule-${settings.schema}: idle database connection failed: ${err.message}`);
  });
  survivesCheckedOutErrors(pool, settings.log, settings.schema);
  return pool;
}

/**
 * A checked-out client whose connection breaks (the database restarts mid-transaction) also emits 'error', and the
 * pool listens only to idle ones: without this listener the process crashed. Its query fails with the same error
 * (the caller sees it) and the pool discards the client when it is released. For every pg.Pool of ours.
 */
export function survivesCheckedOutErrors(pool: pg.Pool, log?: Logger, schema?: string): void {
  pool.on("connect", (client) => {
    client.on("error", (err) => log?.debug({ err: err.message, ...(schema ? { schema } : {}) }, "database connection failed while in use"));
  });
}

/** Runs `fn` in a transaction on one client; commits on success, rolls back on any error. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export interface Migration {
  /** Sortable, unique version, e.g. "runtime:0001_create_outbox" or "0001_create_projects". */
  readonly version: string;
  readonly sql: string;
}

/** Reads `NNNN_verb_object.sql` files of a directory in name order. */
export function readMigrations(dir: string, prefix = ""): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: `${prefix}${f.replace(/\.sql$/, "")}`, sql: readFileSync(join(dir, f), "utf8") }));
}

function checksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/**
 * Forward-only migrations of one schema under a Postgres advisory lock, so N replicas starting at once apply each
 * migration exactly once. Every migration runs in its own transaction together with its bookkeeping row. A migration
 * that was applied and later edited is refused (migrations are never edited after merge; add a new one).
 */
export async function migrate(pool: Pool, schema: string, migrations: readonly Migration[], log?: Logger): Promise<string[]> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [`vestibule:migrate:${schema}`]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
           version text PRIMARY KEY,
           checksum text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: string; checksum: string }>(
        `SELECT version, checksum FROM ${schema}.schema_migrations`,
      );
      const done = new Map(rows.map((r) => [r.version, r.checksum]));
      for (const m of migrations) {
        const sum = checksum(m.sql);
        const previous = done.get(m.version);
        if (previous !== undefined) {
          if (previous !== sum) {
            throw new Error(`migration ${schema}/${m.version} was changed after it was applied; add a new migration instead`);
          }
          continue;
        }
        await client.query("BEGIN");
        try {
          await client.query(`SET LOCAL search_path = ${schema}`);
          await client.query(m.sql);
          await client.query(`INSERT INTO ${schema}.schema_migrations (version, checksum) VALUES ($1, $2)`, [m.version, sum]);
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw new Error(`migration ${schema}/${m.version} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.version);
        log?.info({ schema, version: m.version }, "migration applied");
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [`vestibule:migrate:${schema}`]).catch(() => {});
    }
  } finally {
    client.release();
  }
  return applied;
}

/** Postgres error code of a unique violation, and the constraint that failed (for mapping to known errors). */
export function uniqueViolation(err: unknown): string | undefined {
  const e = err as { code?: string; constraint?: string };
  return e && e.code === "23505" ? (e.constraint ?? "") : undefined;
}
