import { randomBytes } from "node:crypto";
import net from "node:net";
import pg from "pg";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";

/**
 * Test support for integration tests that use the real PostgreSQL and NATS (never mocks).
 * `DATABASE_URL` points at a server where we may create databases (the vitest global setup starts an embedded
 * Postgres when it is unset). Each test file gets its own fresh database, dropped afterwards.
 */
export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

export function serverDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (the vitest global setup should have set it)");
  return url;
}

export async function createTestDatabase(prefix = "vestibule_t"): Promise<TestDatabase> {
  const base = serverDatabaseUrl();
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** The NATS URL tests use: NATS_URL, else the local default. */
export function testNatsUrl(): string {
  return process.env.NATS_URL || "nats://127.0.0.1:4222";
}

/** True when a TCP connection to the NATS server succeeds within `timeoutMs`. */
export function natsAvailable(url = testNatsUrl(), timeoutMs = 500): Promise<boolean> {
  const u = new URL(url.includes("://") ? url : `nats://${url}`);
  return new Promise((resolve) => {
    const sock = net.connect({ host: u.hostname, port: Number(u.port || 4222) });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once("connect", () => done(true));
    sock.once("error", () => done(false));
  });
}

/**
 * Whether tests that need NATS should run. Without NATS they are skipped, except under CI=true, where a missing
 * NATS is an error (a skipped persistence or event test must not pass CI silently).
 */
export async function shouldRunNatsTests(): Promise<boolean> {
  if (await natsAvailable()) return true;
  if (process.env.CI === "true") throw new Error(`NATS is required under CI=true but ${testNatsUrl()} does not answer`);
  return false;
}

/** A unique subject/stream prefix so concurrent test runs on one NATS server do not see each other. */
export function uniqueEventPrefix(): string {
  return `t${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

/**
 * Deletes the JetStream streams (and so their consumers) that a test run created under `prefix` (see NatsBus), so
 * test runs do not pile up streams on a shared NATS server. Errors are ignored: cleanup must not fail a test.
 */
export async function deleteNatsStreams(prefix: string, url = testNatsUrl()): Promise<void> {
  const streamPrefix = `${prefix.replace(/[^A-Za-z0-9_-]/g, "_")}_`;
  try {
    const nc = await connect({ servers: url, timeout: 2000 });
    try {
      const jsm = await jetstreamManager(nc);
      for await (const info of jsm.streams.list()) {
        if (info.config.name.startsWith(streamPrefix)) await jsm.streams.delete(info.config.name);
      }
    } finally {
      await nc.close();
    }
  } catch {
    // NATS not reachable: nothing to clean.
  }
}

/**
 * A TCP proxy in front of a real server, which a test can cut and restore to simulate the server going down
 * (e.g. NATS unreachable) without touching the shared server itself, or slow down (`connectDelayMs`: each new
 * connection is held that long before it reaches the server).
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    private readonly options: { readonly connectDelayMs?: number } = {},
  ) {}

  async start(port = 0): Promise<number> {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      let upstream: net.Socket | undefined;
      const close = () => {
        client.destroy();
        upstream?.destroy();
        this.sockets.delete(client);
        if (upstream) this.sockets.delete(upstream);
      };
      client.on("error", close).on("close", close);
      const connect = () => {
        if (client.destroyed) return;
        upstream = net.connect({ host: this.targetHost, port: this.targetPort });
        this.sockets.add(upstream);
        upstream.on("error", close).on("close", close);
        client.pipe(upstream).pipe(client);
      };
      if (this.options.connectDelayMs) setTimeout(connect, this.options.connectDelayMs);
      else connect();
    });
    await new Promise<void>((resolve) => this.server!.listen(port || this.port, "127.0.0.1", () => resolve()));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Closes the listener and every open connection: the target looks down. */
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

/** The same contract headers as the current SDK (2.8.108 and later) sends them: `x-hexclave-*` instead of `x-stack-*`. */
export function asCurrentSdkHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.replace(/^x-stack-/, "x-hexclave-"), v]));
}

export { extractCode, waitForMail, type MailboxLister, type WaitForMailOptions } from "./mailbox.ts";
export { allStrings, timed } from "./exhaustive.ts";
export { failure, rpcError, waitFor } from "./rpc.ts";

export { ephemeralPortRange, freePorts } from "./free-ports.ts";
