/**
 * Runs the whole platform on one machine: the six services and the gateway, each its own Node process, plus the
 * frontends (built when their sources changed, served on the frontends port). Used by `npm start` (with restarts) and by the integration tests (random ports,
 * no restarts, quiet logs).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@vestibule/proto/grpc/health/v1/health";
import { SERVICES, SERVICE_NAMES, type ServiceName } from "./services.ts";
import { checkoutRoot, entryExtension, isReleaseBuild, nodeLoaderArgs } from "./paths.ts";
import { formatChildLine, levelNumber, nameColor, type LogLevelName } from "./logs.ts";
import { startFrontends, type Frontends, type ProjectKeysForFrontends } from "./frontends-server.ts";
import { freePorts } from "@vestibule/shared/testing";

export type { ServiceName };
export { SERVICE_NAMES, freePorts };
export type ProcessName = ServiceName | "gateway";
export const PROCESS_NAMES: readonly ProcessName[] = [...SERVICE_NAMES, "gateway"];
/** One running process: `auth` (its first replica, or the only one), `auth#2` (the second replica) ... */
export type InstanceName = ProcessName | `${ProcessName}#${number}`;

/** Instance names of a process's replicas: ["auth"], or ["auth", "auth#2"] ... */
export function instanceNames(name: ProcessName, replicas: number): InstanceName[] {
  return Array.from({ length: replicas }, (_, i): InstanceName => (i === 0 ? name : `${name}#${i + 1}`));
}

export const DEFAULT_PORTS: Readonly<Record<ProcessName | "frontends", number>> = {
  ...(Object.fromEntries(SERVICE_NAMES.map((n) => [n, SERVICES[n].port])) as Record<ServiceName, number>),
  gateway: 8102,
  frontends: 8101,
};

export interface PlatformLogOptions {
  /** Where rendered lines go. Default: process.stdout. */
  sink?: (line: string) => void;
  /** Lines below this level are not printed (they are still kept for error reports). Default "info". */
  minLevel?: LogLevelName;
  /** ANSI colours. Default: when stdout is a TTY and NO_COLOR is unset. */
  color?: boolean;
}

export interface PlatformOptions {
  databaseUrl: string;
  /** NATS with JetStream; unset = the embedded Postgres-backed bus. */
  natsUrl?: string;
  /** `VESTIBULE_MASTER_KEYS` value. */
  masterKeys: string;
  /** `VESTIBULE_SERVICE_SECRET` value (≥ 32 characters). */
  serviceSecret: string;
  mode?: "development" | "production";
  /** LOG_LEVEL of the children. Default "info". */
  logLevel?: LogLevelName;
  /** Interface every process listens on. Default 127.0.0.1. */
  host?: string;
  /** Fixed ports; the rest come from DEFAULT_PORTS, or are all free random ports with `randomPorts`. */
  ports?: Partial<Record<ProcessName | "frontends", number>>;
  randomPorts?: boolean;
  /** `VESTIBULE_PUBLIC_URL`. Default http://localhost:<gateway port>. */
  publicUrl?: string;
  /** Build (when stale) and serve the frontends on the frontends port. Default true. */
  frontends?: boolean;
  /**
   * Processes per service and gateways. Default 1. With more, `VESTIBULE_<SERVICE>_URL` lists every replica of the
   * service (the RPC clients spread calls over them) and replica k listens on its port + 100·(k−1) (fixed ports), or
   * on a free port of its own (`randomPorts`). Nothing balances the gateways: callers pick from `gatewayUrls`.
   */
  replicas?: number;
  /** Restart a child that exits unexpectedly (with backoff). Default false. */
  restartOnExit?: boolean;
  /** Give up waiting for readiness after this long. Default 50 s. */
  readyTimeoutMs?: number;
  /** `VESTIBULE_EVENT_PREFIX`: isolates platforms that share one NATS server. */
  eventPrefix?: string;
  /** Extra variables for every child. */
  env?: Record<string, string>;
  /** Entry files to run instead of the real ones (absolute, or relative to the checkout); for tests of this module. */
  entries?: Partial<Record<ProcessName, string>>;
  log?: PlatformLogOptions;
}

export interface Platform {
  /** Base URL of the gateway for direct calls, e.g. http://127.0.0.1:8102 (the first one, with replicas). */
  readonly gatewayUrl: string;
  /** Base URL of every gateway replica. */
  readonly gatewayUrls: readonly string[];
  /** `VESTIBULE_PUBLIC_URL` given to the processes. */
  readonly publicUrl: string;
  /** URL of the frontends server, when served. */
  readonly frontendsUrl: string | undefined;
  /** Puts the project ids and publishable keys into the frontends' /config.json (after the projects exist). */
  configureFrontends(projects: { internal: ProjectKeysForFrontends; handler: ProjectKeysForFrontends }): void;
  /** h2c base URL of each service (with replicas: theirs, comma-separated, as the processes get them). */
  readonly serviceUrls: Readonly<Record<ServiceName, string>>;
  /** Instance names of a process's replicas (see `InstanceName`). */
  instances(name: ProcessName): readonly InstanceName[];
  /** Base URL of one instance. */
  instanceUrl(name: InstanceName): string;
  /** Environment every child got (without the inherited variables). */
  readonly env: Readonly<Record<string, string>>;
  /** pids of the running children. */
  pids(): Partial<Record<ProcessName, number>> & Readonly<Record<string, number>>;
  /** Last lines a process wrote (for error reports). */
  recentLogs(name: InstanceName): readonly string[];
  /** SIGTERM to the gateway, then to the services; SIGKILL whatever still runs 10 s later. Idempotent. */
  stop(): Promise<void>;
  /** Stops the process gracefully (if running), starts it again and waits until it is ready. */
  restartService(name: InstanceName): Promise<void>;
  /** SIGKILL, no restart; resolves when the process has exited. Bring it back with `restartService`. */
  killService(name: InstanceName): Promise<void>;
  /** SIGTERM (graceful stop), no restart; resolves when the process has exited. Bring it back with `restartService`. */
  stopService(name: InstanceName): Promise<void>;
  /** Waits until the process answers its readiness check. */
  waitReady(name: InstanceName, timeoutMs?: number): Promise<void>;
}

const STOP_GRACE_MS = 10_000;

/** The purchase page's Stripe.js settings, when a publishable key is configured (production: the real Stripe.js). */
function stripeForFrontends(env: Record<string, string | undefined>): { stripe?: { jsUrl: string; publishableKey: string } } {
  if (!env.STRIPE_PUBLISHABLE_KEY) return {};
  return { stripe: { jsUrl: env.STRIPE_JS_URL || "https://js.stripe.com/v3", publishableKey: env.STRIPE_PUBLISHABLE_KEY } };
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** A timer that does not keep the process alive (for races against an exit). */
const deadlineAfter = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/** Entry file of a process, relative to the checkout (or to `dist/` in the release build: `.js`). */
export function entryOf(name: ProcessName): string {
  return name === "gateway" ? `gateway/src/main.${entryExtension}` : `services/${SERVICES[name].dir}/src/main.${entryExtension}`;
}

/** Answers whether a service's grpc.health.v1 Check says SERVING (overall status, service ""). */
export async function checkServiceHealth(
  baseUrl: string,
  timeoutMs = 1_000,
): Promise<{ status: string; serving: boolean }> {
  const sessionManager = new Http2SessionManager(baseUrl);
  try {
    const client = createClient(Health, createGrpcTransport({ baseUrl, sessionManager }));
    const res = await client.check({ service: "" }, { timeoutMs });
    const status = HealthCheckResponse_ServingStatus[res.status] ?? String(res.status);
    return { status, serving: res.status === HealthCheckResponse_ServingStatus.SERVING };
  } finally {
    sessionManager.abort();
  }
}

async function checkGatewayHealth(baseUrl: string, timeoutMs = 1_000): Promise<{ status: string; serving: boolean }> {
  const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  await res.arrayBuffer().catch(() => undefined);
  return { status: `HTTP ${res.status}`, serving: res.status === 200 };
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const code = (cause as { code?: string } | undefined)?.code ?? (err as { code?: unknown }).code;
  return typeof code === "string" ? `${err.message} (${code})` : err.message;
}

interface Child {
  readonly name: InstanceName;
  /** The process it is a replica of. */
  readonly kind: ProcessName;
  readonly port: number;
  readonly url: string;
  process: ChildProcess | undefined;
  exited: Promise<void>;
  /** Set while we stop or kill it on purpose: its exit is not a crash. */
  expectExit: boolean;
  startedAt: number;
  restarts: number;
  restartTimer: NodeJS.Timeout | undefined;
  recent: string[];
  lastExit: string | undefined;
}

/** Spawns the six services, waits for SERVING, then the gateway, waits for /health 200. */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const host = options.host ?? "127.0.0.1";
  const connectHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const names: Array<ProcessName | "frontends"> = [...PROCESS_NAMES, "frontends"];
  const ports: Record<ProcessName | "frontends", number> = { ...DEFAULT_PORTS };
  const replicas = options.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`replicas must be a positive integer, got ${replicas}`);
  const extra = PROCESS_NAMES.flatMap((n) => instanceNames(n, replicas).slice(1));
  const instancePorts = new Map<InstanceName, number>();
  if (options.randomPorts) {
    const free = await freePorts(names.length + extra.length, connectHost);
    names.forEach((n, i) => (ports[n] = free[i]!));
    extra.forEach((n, i) => instancePorts.set(n, free[names.length + i]!));
  }
  Object.assign(ports, options.ports ?? {});
  for (const n of PROCESS_NAMES) {
    instanceNames(n, replicas).forEach((instance, k) => {
      if (k === 0 || !options.randomPorts) instancePorts.set(instance, ports[n] + 100 * k);
    });
  }

  const urlOf = (port: number): string => `http://${connectHost.includes(":") ? `[${connectHost}]` : connectHost}:${port}`;
  const instanceUrl = (instance: InstanceName): string => urlOf(instancePorts.get(instance)!);
  const serviceUrls = Object.fromEntries(
    SERVICE_NAMES.map((n) => [n, instanceNames(n, replicas).map(instanceUrl).join(",")]),
  ) as Record<ServiceName, string>;
  const gatewayUrls = instanceNames("gateway", replicas).map(instanceUrl);
  const gatewayUrl = gatewayUrls[0]!;
  const publicUrl = (options.publicUrl ?? `http://localhost:${ports.gateway}`).replace(/\/+$/, "");

  const sharedEnv: Record<string, string> = {
    DATABASE_URL: options.databaseUrl,
    VESTIBULE_MASTER_KEYS: options.masterKeys,
    VESTIBULE_SERVICE_SECRET: options.serviceSecret,
    HOST: host,
    LOG_LEVEL: options.logLevel ?? "info",
    VESTIBULE_MODE: options.mode ?? "development",
    VESTIBULE_PUBLIC_URL: publicUrl,
    // Where the hosted pages are served (billing's purchase URLs: <frontends>/handler/purchase/<code>).
    VESTIBULE_FRONTENDS_URL: `http://localhost:${ports.frontends}`,
    ...Object.fromEntries(SERVICE_NAMES.map((n) => [SERVICES[n].env, serviceUrls[n]])),
    ...(options.natsUrl ? { NATS_URL: options.natsUrl } : {}),
    ...(options.eventPrefix ? { VESTIBULE_EVENT_PREFIX: options.eventPrefix } : {}),
    ...(options.env ?? {}),
  };
  // The children must not inherit settings meant for this process (NATS_URL unset on purpose, another PORT...).
  const inherited: Record<string, string | undefined> = { ...process.env };
  for (const key of ["PORT", "NATS_URL", "VESTIBULE_EVENT_PREFIX", "NODE_OPTIONS"]) delete inherited[key];

  const log = options.log ?? {};
  const sink = log.sink ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const minLevel = levelNumber(log.minLevel ?? "info");
  const color = log.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR);
  const nameWidth = Math.max(...PROCESS_NAMES.flatMap((n) => instanceNames(n, replicas)).map((n) => n.length));
  const restartOnExit = options.restartOnExit ?? false;
  const readyTimeoutMs = options.readyTimeoutMs ?? 50_000;

  const children = new Map<InstanceName, Child>();
  for (const name of PROCESS_NAMES.flatMap((kind) => instanceNames(kind, replicas).map((instance) => [kind, instance] as const))) {
    const [kind, instance] = name;
    children.set(instance, {
      name: instance,
      kind,
      port: instancePorts.get(instance)!,
      url: instanceUrl(instance),
      process: undefined,
      exited: Promise.resolve(),
      expectExit: false,
      startedAt: 0,
      restarts: 0,
      restartTimer: undefined,
      recent: [],
      lastExit: undefined,
    });
  }
  let stopping = false;
  // Restarts begin once the platform is up: a crash during start-up is reported, not retried.
  let supervising = false;

  const emit = (child: Child, raw: string, fromStderr: boolean): void => {
    if (!raw.trim()) return;
    const index = PROCESS_NAMES.indexOf(child.kind);
    const { level, text } = formatChildLine(child.name, nameColor(index), raw, fromStderr, { color, nameWidth });
    child.recent.push(formatChildLine(child.name, "0", raw, fromStderr, { color: false, nameWidth }).text);
    if (child.recent.length > 40) child.recent.shift();
    if (level >= minLevel) sink(text);
  };
  const note = (child: Child, message: string, level: number = 40): void => {
    const line = JSON.stringify({ level, time: Date.now(), msg: message });
    emit(child, line, false);
  };

  const spawnChild = (child: Child): void => {
    const entry = options.entries?.[child.kind] ?? entryOf(child.kind);
    const proc = spawn(process.execPath, [...nodeLoaderArgs, entry], {
      cwd: checkoutRoot,
      env: { ...inherited, ...sharedEnv, PORT: String(child.port) },
      stdio: ["ignore", "pipe", "pipe"],
      // Own process group: a terminal Ctrl-C reaches only the launcher, which stops everything in order.
      detached: true,
    });
    child.process = proc;
    child.expectExit = false;
    child.startedAt = Date.now();
    child.lastExit = undefined;
    createInterface({ input: proc.stdout! }).on("line", (line) => emit(child, line, false));
    createInterface({ input: proc.stderr! }).on("line", (line) => emit(child, line, true));
    child.exited = new Promise<void>((resolveExit) => {
      proc.once("exit", (code, signal) => {
        child.lastExit = signal ? `killed by ${signal}` : `exited with code ${code}`;
        if (child.process === proc) child.process = undefined;
        resolveExit();
        if (child.expectExit || stopping) return;
        note(child, `${child.name} ${child.lastExit} unexpectedly`, 50);
        if (restartOnExit && supervising) scheduleRestart(child);
      });
    });
    proc.once("error", (err) => note(child, `could not spawn ${child.name}: ${err.message}`, 50));
  };

  const scheduleRestart = (child: Child): void => {
    // Backoff 1 s, 2 s, 4 s ... 30 s; reset once a run lasted a minute.
    if (Date.now() - child.startedAt > 60_000) child.restarts = 0;
    const delay = Math.min(30_000, 1_000 * 2 ** child.restarts);
    child.restarts++;
    note(child, `restarting ${child.name} in ${delay / 1000} s`, 40);
    child.restartTimer = setTimeout(() => {
      child.restartTimer = undefined;
      if (stopping || child.process) return;
      spawnChild(child);
      waitReady(child.name, readyTimeoutMs).then(
        () => note(child, `${child.name} is back`, 30),
        (err: Error) => note(child, err.message, 50),
      );
    }, delay);
  };

  const probe = (child: Child): Promise<{ status: string; serving: boolean }> =>
    child.kind === "gateway" ? checkGatewayHealth(child.url) : checkServiceHealth(child.url);

  const waitAll = async (list: Child[], timeoutMs: number): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    const last = new Map<InstanceName, string>();
    const pending = new Set(list);
    let delay = 100;
    while (pending.size > 0) {
      await Promise.all(
        [...pending].map(async (child) => {
          if (!child.process && !child.restartTimer) {
            pending.delete(child);
            throw new Error(
              `${child.name} ${child.lastExit ?? "is not running"} before it was ready. Last lines:\n  ${child.recent.slice(-15).join("\n  ")}`,
            );
          }
          try {
            const result = await probe(child);
            last.set(child.name, result.status);
            if (result.serving) pending.delete(child);
          } catch (err) {
            last.set(child.name, describeError(err));
          }
        }),
      );
      if (pending.size === 0) return;
      if (Date.now() >= deadline) {
        const waiting = [...pending].map((c) => `${c.name} (${c.url}: ${last.get(c.name) ?? "no answer"})`);
        const tail = [...pending].flatMap((c) => c.recent.slice(-5)).join("\n  ");
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${waiting.join(", ")}. Last lines:\n  ${tail}`);
      }
      await sleep(delay);
      delay = Math.min(500, delay * 1.5);
    }
  };

  const waitReady = (name: InstanceName, timeoutMs = readyTimeoutMs): Promise<void> =>
    waitAll([children.get(name)!], timeoutMs);

  const stopChild = async (child: Child, graceMs = STOP_GRACE_MS): Promise<void> => {
    if (child.restartTimer) {
      clearTimeout(child.restartTimer);
      child.restartTimer = undefined;
    }
    const proc = child.process;
    if (!proc) return;
    child.expectExit = true;
    proc.kill("SIGTERM");
    const exited = await Promise.race([child.exited.then(() => true), deadlineAfter(graceMs).then(() => false)]);
    if (!exited) {
      note(child, `${child.name} did not stop within ${graceMs / 1000} s of SIGTERM; sending SIGKILL`, 40);
      proc.kill("SIGKILL");
      await child.exited;
    }
  };

  // Last resort if this process exits without stop(): do not leave children behind.
  const onExit = (): void => {
    for (const child of children.values()) child.process?.kill("SIGKILL");
  };
  process.on("exit", onExit);

  let frontends: Frontends | undefined;
  let stopPromise: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopPromise ??= (async () => {
      stopping = true;
      const all = [...children.values()];
      await Promise.all(all.filter((c) => c.kind === "gateway").map((c) => stopChild(c)));
      await Promise.all(all.filter((c) => c.kind !== "gateway").map((c) => stopChild(c)));
      await frontends?.close();
      process.removeListener("exit", onExit);
    })();
    return stopPromise;
  };

  try {
    if (options.frontends ?? true) {
      frontends = await startFrontends({
        port: ports.frontends,
        host,
        publicUrl,
        mode: options.mode ?? "development",
        emailServiceUrl: serviceUrls.email,
        serviceSecret: options.serviceSecret,
        ...stripeForFrontends({ ...process.env, ...sharedEnv }),
        // The release build ships built frontends (and no sources to rebuild them from).
        build: !isReleaseBuild,
        log: (line) => sink(`frontends | ${line}`),
      });
    }
    const services = [...children.values()].filter((c) => c.kind !== "gateway");
    services.forEach(spawnChild);
    await waitAll(services, readyTimeoutMs);
    const gateways = [...children.values()].filter((c) => c.kind === "gateway");
    gateways.forEach(spawnChild);
    await waitAll(gateways, readyTimeoutMs);
    supervising = true;
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    gatewayUrl,
    gatewayUrls,
    publicUrl,
    frontendsUrl: frontends ? urlOf(ports.frontends) : undefined,
    configureFrontends: (projects) => frontends?.configure(projects),
    serviceUrls,
    instances: (name) => instanceNames(name, replicas),
    instanceUrl,
    env: sharedEnv,
    pids: () =>
      Object.fromEntries([...children.values()].filter((c) => c.process?.pid).map((c) => [c.name, c.process!.pid!])),
    recentLogs: (name) => [...children.get(name)!.recent],
    stop,
    waitReady,
    async restartService(name) {
      const child = children.get(name)!;
      if (stopping) throw new Error("the platform is stopping");
      await stopChild(child);
      spawnChild(child);
      await waitReady(name);
    },
    async stopService(name) {
      await stopChild(children.get(name)!);
    },
    async killService(name) {
      const child = children.get(name)!;
      if (child.restartTimer) {
        clearTimeout(child.restartTimer);
        child.restartTimer = undefined;
      }
      const proc = child.process;
      if (!proc) return;
      child.expectExit = true;
      proc.kill("SIGKILL");
      await child.exited;
    },
  };
}
