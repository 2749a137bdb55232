/**
 * Helpers for integration tests that run the real platform (six service processes + gateway).
 *
 * ```ts
 * const tp = await startTestPlatform();           // fresh database, free ports, demo project + keys
 * await fetch(`${tp.gatewayUrl}/api/v1/projects/current`, { headers: { "x-stack-project-id": tp.projects.demo.project_id, ... } });
 * await tp.stop();                                 // stops the processes and drops the database
 *
 * const nats = await requireOrSkip("nats");
 * describe.skipIf(nats.skip)("outbox on NATS", () => {
 *   beforeAll(() => nats.assert());               // under CI=true a missing NATS fails here instead of skipping
 * });
 * ```
 *
 * Postgres: `DATABASE_URL` names the server (its database is only used to connect; every platform gets its own
 * `vestibule_t_<random>` database). Without it, an embedded Postgres with data under `.vestibule/test-pg` is used,
 * started once for the whole run by deploy/src/vitest-global-setup.ts (which sets DATABASE_URL for the workers).
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { join } from "node:path";
import pg from "pg";
import { bootstrapProjects, type DevProjects } from "./bootstrap.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres.ts";
import { generateSecrets } from "./local-state.ts";
import { stateDir } from "./paths.ts";
import { startPlatform, type Platform, type PlatformOptions } from "./platform.ts";
import type { LogLevelName } from "./logs.ts";

export const DEFAULT_NATS_URL = "nats://127.0.0.1:4222";
export const TEST_PG_DIR = join(stateDir, "test-pg");
export const TEST_PG_PORT = 54339;

export const isCI = (): boolean => process.env.CI === "true";

export interface TestPlatformOptions {
  /**
   * Event bus. "env" (default): NATS_URL when set, else the Postgres-backed bus. "nats": NATS at NATS_URL or
   * nats://127.0.0.1:4222 (check with requireOrSkip("nats") first). "postgres": the Postgres-backed bus.
   */
  bus?: "env" | "nats" | "postgres";
  /** Children's log lines at or above this level are printed. Default VESTIBULE_TEST_LOG or "warn". */
  printLevel?: LogLevelName;
  /** Passed through to startPlatform (ports, env, readyTimeoutMs, ...). */
  platform?: Partial<Omit<PlatformOptions, "databaseUrl" | "masterKeys" | "serviceSecret" | "natsUrl">>;
}

export interface TestPlatform {
  readonly gatewayUrl: string;
  readonly projects: DevProjects;
  readonly platform: Platform;
  /** URL of this platform's own database. */
  readonly databaseUrl: string;
  readonly natsUrl: string | undefined;
  /** For authenticated direct calls: createServiceClient(Desc, { baseUrl, caller: "test", secret }). */
  readonly serviceSecret: string;
  readonly masterKeys: string;
  /** Stops every process and drops the database. Idempotent. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// Availability checks

function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const first = url.split(",")[0]!.trim();
  const parsed = new URL(first.includes("://") ? first : `nats://${first}`);
  return { host: parsed.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1", port: Number(parsed.port) || defaultPort };
}

/** Whether something accepts TCP connections at `host:port` within `timeoutMs`. */
export function tcpAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolveAnswer) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolveAnswer(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The NATS URL tests use: NATS_URL, else nats://127.0.0.1:4222. */
export function natsUrl(): string {
  return process.env.NATS_URL || DEFAULT_NATS_URL;
}

/** TCP connect to NATS_URL (or 127.0.0.1:4222) within 500 ms. */
export async function natsAvailable(url: string = natsUrl(), timeoutMs = 500): Promise<boolean> {
  const { host, port } = hostPort(url, 4222);
  return tcpAnswers(host, port, timeoutMs);
}

/** Postgres: DATABASE_URL answers a query within 3 s; without DATABASE_URL the embedded one is always available. */
export async function postgresAvailable(url: string | undefined = process.env.DATABASE_URL): Promise<boolean> {
  if (!url) return true;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface Requirement {
  readonly name: "nats" | "postgres";
  readonly available: boolean;
  /** Pass to describe.skipIf / it.skipIf. Never true under CI=true: there a missing dependency is a failure. */
  readonly skip: boolean;
  readonly reason: string;
  /** Throws (failing the test) when the dependency is missing. Call it in beforeAll or at the top of each test. */
  assert(): void;
}

/**
 * Checks an external dependency of a test. Outside CI a missing one means "skip"; under CI=true it means "fail":
 * `skip` stays false and `assert()` throws with the reason.
 */
export async function requireOrSkip(name: "nats" | "postgres"): Promise<Requirement> {
  const target = name === "nats" ? natsUrl() : (process.env.DATABASE_URL ?? "embedded Postgres");
  const available = name === "nats" ? await natsAvailable() : await postgresAvailable();
  const reason = available
    ? `${name} answers at ${redact(target)}`
    : `${name} does not answer at ${redact(target)}${isCI() ? " (required under CI=true)" : ""}`;
  return {
    name,
    available,
    skip: !available && !isCI(),
    reason,
    assert() {
      if (!available) throw new Error(reason);
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, "//$1:***@");
}

// ---------------------------------------------------------------------------------------------------------------
// Postgres for tests

let embedded: Promise<EmbeddedPostgres> | undefined;

/**
 * Embedded Postgres for tests when neither DATABASE_URL nor the vitest global setup provides one: one cluster per
 * test process (in `.vestibule/test-pg`, or `test-pg-2`... when another live process uses it), stopped at exit.
 */
export function testEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  embedded ??= startEmbeddedPostgres({
    dataDir: TEST_PG_DIR,
    port: TEST_PG_PORT,
    database: "postgres",
    whenBusy: "next-dir",
    onInfo: () => undefined,
  });
  return embedded;
}

/** URL of the Postgres server tests create their databases on. */
async function serverUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  return (await testEmbeddedPostgres()).urlFor("postgres");
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw new Error(`Postgres at ${redact(url)} does not answer: ${(err as Error).message}`);
  }
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates an empty database `vestibule_t_<random>` on the test Postgres; returns its URL and a drop function. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const server = await serverUrl();
  const name = `vestibule_t_${randomBytes(6).toString("hex")}`;
  await adminQuery(server, `CREATE DATABASE ${name}`);
  return {
    name,
    url: withDatabase(server, name),
    drop: () => adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The platform

/**
 * Fresh database, all processes on free ports, a demo project and keys for `internal` and demo (as `npm start`
 * makes them). Events go over NATS when NATS_URL is set (see `bus`), each platform with its own subject prefix.
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const bus = options.bus ?? "env";
  const nats = bus === "nats" ? natsUrl() : bus === "env" ? process.env.NATS_URL || undefined : undefined;
  const secrets = generateSecrets();
  const db = await createTestDatabase();
  let platform: Platform | undefined;
  try {
    platform = await startPlatform({
      randomPorts: true,
      frontends: false,
      restartOnExit: false,
      logLevel: "info",
      readyTimeoutMs: 60_000,
      ...options.platform,
      databaseUrl: db.url,
      natsUrl: nats,
      eventPrefix: options.platform?.eventPrefix ?? `t_${db.name.slice("vestibule_t_".length)}`,
      masterKeys: secrets.master_keys,
      serviceSecret: secrets.service_secret,
      log: {
        minLevel: options.printLevel ?? (process.env.VESTIBULE_TEST_LOG as LogLevelName | undefined) ?? "warn",
        color: false,
        ...options.platform?.log,
      },
    });
    const { projects } = await bootstrapProjects({
      identityUrl: platform.serviceUrls.identity,
      serviceSecret: secrets.service_secret,
      keyDescription: "Test keys",
    });
    const started = platform;
    let stopping: Promise<void> | undefined;
    return {
      gatewayUrl: started.gatewayUrl,
      projects,
      platform: started,
      databaseUrl: db.url,
      natsUrl: nats,
      serviceSecret: secrets.service_secret,
      masterKeys: secrets.master_keys,
      stop: () => {
        stopping ??= (async () => {
          try {
            await started.stop();
          } finally {
            await db.drop();
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    await platform?.stop().catch(() => undefined);
    await db.drop().catch(() => undefined);
    throw err;
  }
}
