/**
 * `npm run measure:processes`: starts every process of the release build (`dist/`, run `npm run build` first) the
 * way production does, `node dist/<workspace>/src/main.js` with no TypeScript tooling, one after the other on free
 * loopback ports and a fresh database, and prints for each: time from spawn to ready (gRPC health SERVING for a
 * service, `GET /health` 200 for the gateway and the frontends), resident memory once the whole platform is idle,
 * and whether any module it loaded is TypeScript tooling (tsx, typescript) or a `.ts` file.
 *
 * Bounds (issue 20): each service ready in < 2 s and < 120 MB RSS idle. Exit code 1 when one is exceeded.
 * A first start on an empty database runs every migration; it is reported apart ("first start") and the bounds
 * apply to a normal start on a migrated database. Options: `--json` prints the rows as JSON.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, deleteNatsStreams, uniqueEventPrefix } from "@vestibule/shared/testing";
import { generateSecrets } from "../local-state.ts";
import { checkServiceHealth, freePorts } from "../platform.ts";
import { SERVICES, SERVICE_NAMES, type ServiceName } from "../services.ts";
import { DIST } from "./build.ts";

export const READY_BOUND_MS = 2_000;
export const RSS_BOUND_MB = 120;

export type MeasuredProcess = ServiceName | "gateway" | "frontends";

export interface ProcessMeasurement {
  readonly name: MeasuredProcess;
  readonly entry: string;
  /** Spawn → ready on an empty database (migrations included); only services. */
  readonly firstStartMs: number | undefined;
  /** Spawn → ready on a migrated database. */
  readonly readyMs: number;
  /** VmRSS after the whole platform has been idle for `idleMs`. */
  readonly idleRssMb: number;
  /** Modules of TypeScript tooling or .ts files the process resolved (must be empty). */
  readonly typescriptModules: readonly string[];
  /** How many modules the process resolved (proof that the audit saw something). */
  readonly modulesResolved: number;
}

export interface MeasureOptions {
  /** How long the platform stays idle before RSS is read. Default 3 s. */
  readonly idleMs?: number;
  /** Give up on a process that is not ready after this long. Default 120 s (a loaded CI machine). */
  readonly readyTimeoutMs?: number;
  /** Measure the frontends server too (needs the built frontends in dist/). Default: when they are built. */
  readonly frontends?: boolean;
  /** Called while the whole platform runs (after the idle RSS reading), e.g. to make real API calls. */
  readonly whileRunning?: (platform: RunningRelease) => Promise<void>;
  /**
   * Starts of each process whose best ready time counts. Default 1. A test on a CI machine that runs other test
   * files beside it takes the best of several: one start that waited behind another file's burst says nothing about
   * the process.
   */
  readonly startTries?: number;
}

export interface RunningRelease {
  readonly gatewayUrl: string;
  readonly serviceUrls: Readonly<Record<ServiceName, string>>;
  readonly serviceSecret: string;
}

const AUDIT_HOOK = join(fileURLToPath(new URL(".", import.meta.url)), "module-audit.mjs");
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function entryOfRelease(name: MeasuredProcess): string {
  if (name === "gateway") return "gateway/src/main.js";
  if (name === "frontends") return "deploy/src/frontends-main.js";
  return `services/${SERVICES[name].dir}/src/main.js`;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

async function httpReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

interface Running {
  readonly proc: ChildProcess;
  readonly logs: string[];
  readonly auditFile: string;
}

/** Starts a release process; with `auditDir`, every module it resolves is recorded there (slower start-up). */
function launch(name: MeasuredProcess, env: Record<string, string>, auditDir?: string): Running {
  const auditFile = auditDir ? join(auditDir, `${name}.txt`) : "";
  const inherited = { ...process.env };
  for (const key of ["NODE_OPTIONS", "PORT", "NATS_URL", "VESTIBULE_EVENT_PREFIX"]) delete inherited[key];
  const proc = spawn(process.execPath, [...(auditDir ? ["--import", AUDIT_HOOK] : []), entryOfRelease(name)], {
    cwd: DIST,
    env: { ...inherited, ...env, ...(auditDir ? { VESTIBULE_MODULE_AUDIT: auditFile } : {}) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  const keep = (chunk: Buffer): void => {
    logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (logs.length > 30) logs.splice(0, logs.length - 30);
  };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  return { proc, logs, auditFile };
}

async function waitReady(name: MeasuredProcess, url: string, running: Running, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    if (running.proc.exitCode !== null) {
      throw new Error(`${name} exited with code ${running.proc.exitCode}:\n${running.logs.join("\n")}`);
    }
    const ready = name === "gateway" || name === "frontends" ? await httpReady(url) : (await checkServiceHealth(url, 500).catch(() => undefined))?.serving;
    if (ready) return Math.round(performance.now() - t0);
    await sleep(20);
  }
  throw new Error(`${name} not ready after ${timeoutMs} ms:\n${running.logs.join("\n")}`);
}

async function stopAll(processes: readonly Running[]): Promise<void> {
  await Promise.all(
    processes.map(async ({ proc }) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** TypeScript tooling among the resolved modules, and how many modules there were. */
export function auditModules(auditFile: string): { typescript: string[]; count: number } {
  const lines = existsSync(auditFile) ? readFileSync(auditFile, "utf8").split("\n").filter(Boolean) : [];
  const typescript = lines.filter(
    (l) => /\/node_modules\/(tsx|typescript|ts-node|@esbuild-kit)\//.test(l) || /\.(ts|mts|cts|tsx)$/.test(l) || /--(import|loader)[= ,"]+tsx/.test(l),
  );
  return { typescript, count: lines.filter((l) => !l.startsWith("argv ")).length };
}

export async function measureProcesses(options: MeasureOptions = {}): Promise<ProcessMeasurement[]> {
  if (!existsSync(join(DIST, "package.json"))) throw new Error("no release build in dist/: run npm run build first");
  const idleMs = options.idleMs ?? 3_000;
  const timeoutMs = options.readyTimeoutMs ?? 120_000;
  const withFrontends = options.frontends ?? existsSync(join(DIST, "frontends", "dashboard-users", "dist"));
  const names: MeasuredProcess[] = [...SERVICE_NAMES, "gateway", ...(withFrontends ? (["frontends"] as const) : [])];
  const ports = await freePorts(names.length);
  const url = (i: number): string => `http://127.0.0.1:${ports[i]}`;
  const secrets = generateSecrets();
  const db = await createTestDatabase("vestibule_m");
  const natsUrl = process.env.NATS_URL || undefined;
  const eventPrefix = uniqueEventPrefix();
  const auditDir = mkdtempSync(join(tmpdir(), "vestibule-audit-"));
  const shared: Record<string, string> = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: secrets.master_keys,
    VESTIBULE_SERVICE_SECRET: secrets.service_secret,
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    VESTIBULE_MODE: "production",
    VESTIBULE_PUBLIC_URL: url(names.indexOf("gateway")),
    VESTIBULE_DASHBOARD_PUBLISHABLE_CLIENT_KEY: "pck_measure_only",
    ...Object.fromEntries(SERVICE_NAMES.map((n) => [SERVICES[n].env, url(names.indexOf(n))])),
    ...(natsUrl ? { NATS_URL: natsUrl, VESTIBULE_EVENT_PREFIX: eventPrefix } : {}),
  };
  const envOf = (i: number): Record<string, string> => ({ ...shared, PORT: String(ports[i]) });
  const firstStart = new Map<MeasuredProcess, number>();
  const running: Running[] = [];
  try {
    // First start: migrations on the empty database, one service at a time, each process under the module audit
    // (which slows loading; its times are not bounded). The gateway and frontends join once the services serve.
    const audits = new Map<MeasuredProcess, string>();
    for (const [i, name] of names.entries()) {
      const r = launch(name, envOf(i), auditDir);
      running.push(r);
      audits.set(name, r.auditFile);
      const ms = await waitReady(name, url(i), r, timeoutMs);
      if (i < SERVICE_NAMES.length) firstStart.set(name, ms);
    }
    await stopAll(running.splice(0));
    // Normal start without the audit, one process at a time (each gets the machine to itself), then all idle.
    const ready = new Map<MeasuredProcess, number>();
    const byName = new Map<MeasuredProcess, Running>();
    const tries = Math.max(1, options.startTries ?? 1);
    for (const [i, name] of names.entries()) {
      let best = Number.POSITIVE_INFINITY;
      let r: Running | undefined;
      for (let t = 0; t < tries; t++) {
        if (r) await stopAll([r]);
        r = launch(name, envOf(i));
        best = Math.min(best, await waitReady(name, url(i), r, timeoutMs));
      }
      running.push(r!);
      byName.set(name, r!);
      ready.set(name, best);
    }
    await sleep(idleMs);
    const rows = names.map((name): ProcessMeasurement => {
      const r = byName.get(name)!;
      const audit = auditModules(audits.get(name)!);
      return {
        name,
        entry: `dist/${entryOfRelease(name)}`,
        firstStartMs: firstStart.get(name),
        readyMs: ready.get(name)!,
        idleRssMb: rssMb(r.proc.pid!),
        typescriptModules: audit.typescript,
        modulesResolved: audit.count,
      };
    });
    await options.whileRunning?.({
      gatewayUrl: url(names.indexOf("gateway")),
      serviceUrls: Object.fromEntries(SERVICE_NAMES.map((n) => [n, url(names.indexOf(n))])) as Record<ServiceName, string>,
      serviceSecret: secrets.service_secret,
    });
    return rows;
  } finally {
    await stopAll(running);
    rmSync(auditDir, { recursive: true, force: true });
    await db.drop().catch(() => undefined);
    if (natsUrl) await deleteNatsStreams(eventPrefix, natsUrl).catch(() => undefined);
  }
}

/**
 * Rows that break a bound (services: ready < 2 s, RSS < 120 MB; every process: no TypeScript tooling). Margins
 * multiply the bounds (a test on a loaded CI machine allows more start-up time).
 */
export function violations(rows: readonly ProcessMeasurement[], margins: { ready?: number; rss?: number } = {}): string[] {
  const readyBound = READY_BOUND_MS * (margins.ready ?? 1);
  const rssBound = RSS_BOUND_MB * (margins.rss ?? 1);
  const out: string[] = [];
  for (const r of rows) {
    const isService = r.name !== "gateway" && r.name !== "frontends";
    if (isService && r.readyMs >= readyBound) out.push(`${r.name}: ready in ${r.readyMs} ms (bound ${readyBound})`);
    if (isService && r.idleRssMb >= rssBound) out.push(`${r.name}: ${r.idleRssMb} MB RSS idle (bound ${rssBound})`);
    if (r.typescriptModules.length > 0) out.push(`${r.name}: loaded TypeScript tooling: ${r.typescriptModules.slice(0, 3).join(", ")}`);
    if (r.modulesResolved === 0) out.push(`${r.name}: the module audit saw nothing`);
  }
  return out;
}

export function formatTable(rows: readonly ProcessMeasurement[]): string {
  const header = ["process", "first start (ms)", "ready (ms)", "idle RSS (MB)", "modules", "TS tooling", "entry"];
  const body = rows.map((r) => [
    r.name,
    r.firstStartMs === undefined ? "-" : String(r.firstStartMs),
    String(r.readyMs),
    r.idleRssMb.toFixed(1),
    String(r.modulesResolved),
    r.typescriptModules.length === 0 ? "none" : String(r.typescriptModules.length),
    r.entry,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const rows = await measureProcesses();
    console.log(process.argv.includes("--json") ? JSON.stringify(rows, null, 2) : formatTable(rows));
    const bad = violations(rows);
    console.log(bad.length === 0 ? `within bounds: services ready < ${READY_BOUND_MS} ms, < ${RSS_BOUND_MB} MB RSS idle, no TypeScript tooling loaded` : `OUT OF BOUNDS:\n  ${bad.join("\n  ")}`);
    process.exit(bad.length === 0 ? 0 : 1);
  } catch (err) {
    console.error(`measure:processes failed: ${(err as Error).message}`);
    process.exit(1);
  }
}
