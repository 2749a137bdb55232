/**
 * Where does a password sign-up spend its CPU? Starts a private platform (fresh database on DATABASE_URL's server,
 * free ports, its own NATS subject prefix: it does not touch a running `npm start`), measures the machine's argon2id
 * hash rate (as `npm run bench` does), loads POST /auth/password/sign-up with autocannon (a new address per request,
 * with a verification callback, so every sign-up also sends its verification e-mail) and prints sign-ups/s against
 * that rate and CPU ms per sign-up for each process (gateway, every service with the processes it started, such as
 * the e-mail render processes, the Postgres backends of this platform's database, the load generator), read from
 * /proc. Work a sign-up leaves behind (its outbox events, the e-mail) runs partly after the load stops, so the CPU is
 * printed twice: during the run, and up to the moment the platform is idle again ("drained"). Both are net of what the
 * idle platform uses (relays and queues polling), measured for 5 s before the run, as is the count of Postgres
 * transactions per sign-up. With --cpu-prof, the gateway and the services but billing and vault are profiled from the
 * start of the measured run until 3 s after it (cpu-profile-hook.mjs, SIGUSR2; profiling slows them, so compare the
 * CPU figures of runs without it) and the hottest functions (self time) of each are printed.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx deploy/src/bench/profile-sign-up.ts \
 *     [--duration 10] [--concurrency 50] [--cpu-prof] [--top 20] [--out <dir>] [--env KEY=VALUE ...] [--bus postgres]
 *
 * --bus postgres measures with the embedded Postgres-backed event bus (what `npm start` uses without NATS_URL).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import pg from "pg";
import type { TestPlatform } from "../test-platform.ts";
import { parseProfilerArgs, startProfiledPlatform } from "./profiled-platform.ts";
import type { ProcessName } from "../platform.ts";
import { CLK_TCK, argon2Rate, cpuTicks, machineBusyTicks, printHottest, treeCpuTicks } from "./profiling.ts";

function parseArgs(argv: string[]) {
  let top = 20;
  const args = parseProfilerArgs(argv, (option, next) => {
    if (option !== "--top") return false;
    top = Number(next());
    return true;
  });
  return { ...args, top };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const say = (s: string) => void process.stdout.write(`${s}\n`);

  let tp: TestPlatform | undefined;
  try {
    tp = await startProfiledPlatform(args);
    const demo = tp.projects.demo;
    const prefix = randomBytes(4).toString("hex");
    let n = 0;
    const opts = (duration: number): autocannon.Options => ({
      url: `${tp!.gatewayUrl}/api/v1/auth/password/sign-up`,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-stack-project-id": demo.project_id,
        "x-stack-access-type": "client",
        "x-stack-publishable-client-key": demo.publishable_client_key,
      },
      duration,
      connections: args.concurrency,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ email: `profile-${prefix}-${n++}@example.com`, password: "profile password 1", verification_callback_url: "http://localhost:3000/handler/email-verification" }),
          }),
        },
      ],
    });

    const pids = tp.platform.pids();
    const names = Object.keys(pids) as ProcessName[];
    const db = new pg.Client({ connectionString: tp.databaseUrl });
    await db.connect();
    const pgPids = async (): Promise<number[]> =>
      (await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map((r) => r.pid);
    const platformTicks = (backends: number[]) => names.reduce((a, name) => a + treeCpuTicks(pids[name]!), 0) + backends.reduce((a, p) => a + cpuTicks(p), 0);
    /** Resolves once the platform used less than 3 % of a core over a second (at most 60 s). */
    const idle = async (backends: number[]) => {
      for (let i = 0; i < 60; i++) {
        const t0 = platformTicks(backends);
        await new Promise((r) => setTimeout(r, 1000));
        if (platformTicks(backends) - t0 <= 3) return;
      }
    };

    say(`warm-up 3 s (POST /auth/password/sign-up, concurrency ${args.concurrency})`);
    await autocannon(opts(3));
    const argon = await argon2Rate(5);
    await idle(await pgPids());

    const backends = await pgPids();
    const snapshot = () => ({
      procs: Object.fromEntries(names.map((name) => [name, treeCpuTicks(pids[name]!)])) as Record<ProcessName, number>,
      pg: backends.reduce((a, p) => a + cpuTicks(p), 0),
      machine: machineBusyTicks(),
      at: Date.now(),
    });
    type Snapshot = ReturnType<typeof snapshot>;
    /** Transactions of this platform's database so far (statistics as the backends last reported them). */
    const transactions = async () => {
      await db.query("SELECT pg_stat_clear_snapshot()");
      const { rows } = await db.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`);
      return Number(rows[0]!.n);
    };
    // What the idle platform uses (relays and queues polling, timers): subtracted from the figures below, which would
    // otherwise depend on how many sign-ups the (shared, variously loaded) machine managed.
    const idle0 = { snap: snapshot(), tx: await transactions() };
    await new Promise((r) => setTimeout(r, 5000));
    const idle1 = { snap: snapshot(), tx: await transactions() };
    const idleSeconds = (idle1.snap.at - idle0.snap.at) / 1000;
    const idleTxPerSecond = (idle1.tx - idle0.tx) / idleSeconds;
    /** Ticks of a process (or "pg") between two snapshots, less the idle rate over that time. */
    const net = (name: ProcessName | "pg", a: Snapshot, b: Snapshot) => {
      const ticks = (s: Snapshot) => (name === "pg" ? s.pg : s.procs[name]);
      const idleRate = (ticks(idle1.snap) - ticks(idle0.snap)) / idleSeconds;
      return ticks(b) - ticks(a) - idleRate * ((b.at - a.at) / 1000);
    };

    const profiled = args.cpuProf ? names.filter((name) => name !== "vault" && name !== "billing") : [];
    for (const name of profiled) process.kill(pids[name]!, "SIGUSR2");
    const txBefore = await transactions();
    const before = snapshot();
    const self0 = process.cpuUsage();
    const r = await autocannon(opts(args.duration));
    const during = snapshot();
    const self = process.cpuUsage(self0);
    // The profilers cost CPU themselves (the platform would never look idle): they stop 3 s after the run.
    if (profiled.length > 0) {
      await new Promise((r) => setTimeout(r, 3000));
      for (const name of profiled) process.kill(pids[name]!, "SIGUSR2");
    }
    await idle(backends);
    const drained = snapshot();
    // Backends report their statistics within a second of going idle.
    await new Promise((r) => setTimeout(r, 1500));
    const txCount = (await transactions()) - txBefore - idleTxPerSecond * ((Date.now() - before.at) / 1000);
    await db.end();

    const ops = r.requests.total;
    const perOp = (ticks: number) => ((ticks / CLK_TCK) * 1000) / Math.max(ops, 1);
    say("");
    say(`sign-ups ${ops} in ${args.duration} s: ${r.requests.average.toFixed(1)}/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, errors ${r.errors + r.timeouts}, non-2xx ${r.non2xx}`);
    say(`argon2id rate (4 in flight, before the load): ${argon.toFixed(1)}/s; sign-up reaches ${(r.requests.average / argon).toFixed(2)} of it`);
    say(`CPU ms per sign-up, less the idle platform's (during the run / until drained, ${((drained.at - during.at) / 1000).toFixed(0)} s after it):`);
    const rows: [string, number, number][] = names.map((name) => [name, perOp(net(name, before, during)), perOp(net(name, before, drained))]);
    rows.push([`postgres (${backends.length} backends)`, perOp(net("pg", before, during)), perOp(net("pg", before, drained))]);
    for (const [name, a, b] of rows.filter(([, , b]) => Math.abs(b) >= 0.05)) say(`  ${name.padEnd(28)}${a.toFixed(2).padStart(9)}${b.toFixed(2).padStart(9)}`);
    say(`  ${"platform total".padEnd(28)}${rows.reduce((s, x) => s + x[1], 0).toFixed(2).padStart(9)}${rows.reduce((s, x) => s + x[2], 0).toFixed(2).padStart(9)}`);
    say(`  ${"load generator (autocannon)".padEnd(28)}${((self.user + self.system) / 1000 / Math.max(ops, 1)).toFixed(2).padStart(9)}`);
    say(`Postgres transactions per sign-up until drained, less the idle platform's: ${(txCount / Math.max(ops, 1)).toFixed(1)}`);
    const m = { busy: during.machine.busy - before.machine.busy, total: during.machine.total - before.machine.total };
    say(`machine busy during the run: ${((m.busy / m.total) * 100).toFixed(0)}% of all cores; load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
    if (args.cpuProf) {
      await new Promise((r) => setTimeout(r, 1500));
      for (const name of profiled) {
        printHottest(say, { name, file: join(args.out, `${pids[name]}.cpuprofile`), ops, unit: "sign-up", top: args.top, areas: 12 });
      }
    }
  } finally {
    await tp?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`profile-sign-up: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
