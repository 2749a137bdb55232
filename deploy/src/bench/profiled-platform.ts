/**
 * The private platform a profiler measures (profile-refresh.ts, profile-sign-in.ts, profile-sign-up.ts,
 * profile-get-item.ts): a fresh database on DATABASE_URL's server (default the local PostgreSQL), free ports, quiet
 * logs; with `cpuProf` every process records a CPU profile into `out` (cpu-profile-hook.mjs, started and stopped by
 * SIGUSR2). `measureLoad` is the measured run the request profilers share: CPU per operation of each process.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { checkoutRoot } from "../paths.ts";
import type { ProcessName } from "../platform.ts";
import { startTestPlatform, type TestPlatform } from "../test-platform.ts";
import { CLK_TCK, cpuTicks, machineBusyTicks, printHottest } from "./profiling.ts";

/** The options every profiler takes. */
export interface ProfilerArgs {
  duration: number;
  concurrency: number;
  cpuProf: boolean;
  /** Where CPU profiles (and --serve's dev.json) go; default a fresh /tmp/vestibule-profile-* directory. */
  out: string;
  /** --env KEY=VALUE: set for every platform process (e.g. UV_THREADPOOL_SIZE=2). */
  env: Record<string, string>;
  /** --bus postgres: the embedded Postgres-backed event bus (what `npm start` uses without NATS_URL); default NATS. */
  bus: "nats" | "postgres";
}

/**
 * Parses the common options (--duration, --concurrency, --cpu-prof, --out, --env KEY=VALUE, --bus); `own` takes a profiler's
 * own option, reading its value with `next()`, and answers false for an option it does not know.
 */
export function parseProfilerArgs(argv: readonly string[], own: (option: string, next: () => string) => boolean = () => false): ProfilerArgs {
  const args: ProfilerArgs = { duration: 10, concurrency: 50, cpuProf: false, out: "", env: {}, bus: "nats" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = () => argv[++i] ?? "";
    if (a === "--duration") args.duration = Number(next());
    else if (a === "--concurrency") args.concurrency = Number(next());
    else if (a === "--cpu-prof") args.cpuProf = true;
    else if (a === "--out") args.out = next();
    else if (a === "--bus") args.bus = next() === "postgres" ? "postgres" : "nats";
    else if (a === "--env") {
      const [k, ...v] = next().split("=");
      args.env[k!] = v.join("=");
    } else if (!own(a, next)) throw new Error(`unknown option ${a}`);
  }
  args.out ||= `/tmp/vestibule-profile-${Date.now().toString(36)}`;
  return args;
}

export function startProfiledPlatform(opts: { bus?: "nats" | "postgres"; cpuProf: boolean; out: string; env?: Record<string, string> }): Promise<TestPlatform> {
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/test";
  mkdirSync(opts.out, { recursive: true });
  return startTestPlatform({
    bus: opts.bus ?? "nats",
    printLevel: "error",
    platform: {
      logLevel: "warn",
      env: {
        ...opts.env,
        ...(opts.cpuProf ? { NODE_OPTIONS: `--import ${join(checkoutRoot, "deploy/src/bench/cpu-profile-hook.mjs")}`, VESTIBULE_CPU_PROF_DIR: opts.out } : {}),
      },
    },
  });
}

export interface MeasuredLoad {
  /** What one request is called in the output ("refresh", "item read"). */
  readonly unit: string;
  /** The request autocannon sends (url, method, headers, body or requests). */
  readonly request: autocannon.Options;
  readonly duration: number;
  readonly concurrency: number;
  /** Processes whose CPU profile is recorded during the measured run and summarised (with `cpuProf`). */
  readonly profiled: readonly ProcessName[];
  readonly cpuProf: boolean;
  readonly out: string;
  /** Hottest functions printed per profiled process. */
  readonly top?: number;
}

/**
 * A 3 s warm-up, then the measured autocannon run: prints requests/s and latency, the CPU ms per request of every
 * platform process, of this platform's Postgres backends and of the load generator (from /proc, during the run only),
 * how busy the machine was, and with `cpuProf` the hottest functions of the `profiled` processes.
 */
export async function measureLoad(tp: TestPlatform, m: MeasuredLoad, say: (line: string) => void): Promise<void> {
  const pids = tp.platform.pids();
  const db = new pg.Client({ connectionString: tp.databaseUrl });
  await db.connect();
  const backends = (await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map((r) => r.pid);
  await db.end();

  say(`warm-up 3 s (${m.request.method ?? "GET"} ${new URL(String(m.request.url)).pathname}, concurrency ${m.concurrency})`);
  await autocannon({ ...m.request, duration: 3, connections: m.concurrency });

  const profiled = m.cpuProf ? m.profiled.map((name) => [name, pids[name]!] as const) : [];
  for (const [, pid] of profiled) process.kill(pid, "SIGUSR2");
  const snapshot = () => ({
    procs: Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuTicks(pid!)])),
    pg: backends.reduce((a, pid) => a + cpuTicks(pid), 0),
    machine: machineBusyTicks(),
  });
  const before = { ...snapshot(), self: process.cpuUsage() };
  const r = await autocannon({ ...m.request, duration: m.duration, connections: m.concurrency });
  const after = { ...snapshot(), self: process.cpuUsage(before.self) };
  for (const [, pid] of profiled) process.kill(pid, "SIGUSR2");

  const ops = r.requests.total;
  const perOp = (ticks: number) => ((ticks / CLK_TCK) * 1000) / Math.max(ops, 1);
  say("");
  say(`${m.unit}: ${ops} in ${m.duration} s, ${r.requests.average.toFixed(0)}/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, errors ${r.errors + r.timeouts}, non-2xx ${r.non2xx}`);
  const rows: [string, number][] = (Object.keys(pids) as ProcessName[]).map((name) => [name, perOp(after.procs[name]! - before.procs[name]!)]);
  rows.push([`postgres (${backends.length} backends)`, perOp(after.pg - before.pg)]);
  say(`CPU ms per ${m.unit}:`);
  for (const [name, ms] of rows.filter(([, ms]) => ms >= 0.005)) say(`  ${name.padEnd(32)}${ms.toFixed(3)}`);
  say(`  ${"platform total".padEnd(32)}${rows.reduce((a, [, ms]) => a + ms, 0).toFixed(3)}`);
  say(`  ${"load generator (autocannon)".padEnd(32)}${((after.self.user + after.self.system) / 1000 / Math.max(ops, 1)).toFixed(3)}`);
  const busy = after.machine.busy - before.machine.busy;
  const total = after.machine.total - before.machine.total;
  say(`machine busy during the run: ${((busy / total) * 100).toFixed(0)}% of all cores; load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  if (profiled.length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const [name, pid] of profiled) printHottest(say, { name, file: join(m.out, `${pid}.cpuprofile`), ops, unit: m.unit, top: m.top ?? 40, areas: 20 });
  }
}
