/**
 * Where does a password sign-in spend its CPU? Starts a private platform (fresh database on DATABASE_URL's server,
 * free ports, its own NATS subject prefix: it does not touch a running `npm start`), signs up one user, measures the
 * machine's argon2id hash rate (as `npm run bench` does: the auth service's parameters, 4 in flight), loads
 * POST /auth/password/sign-in with autocannon and prints sign-ins/s against that rate and CPU ms per sign-in for each
 * process (gateway, auth, identity, the other services, the Postgres backends of this platform's database, and the
 * load generator itself), read from /proc. With --cpu-prof, the gateway, auth and identity are profiled during the
 * measured run only (cpu-profile-hook.mjs, SIGUSR2) and the hottest functions (self time) of each are printed.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx deploy/src/bench/profile-sign-in.ts \
 *     [--duration 10] [--concurrency 50] [--cpu-prof] [--out <dir>] [--env KEY=VALUE ...]
 *
 * --env sets a variable for every platform process (e.g. --env UV_THREADPOOL_SIZE=2).
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import pg from "pg";
import type { TestPlatform } from "../test-platform.ts";
import { parseProfilerArgs, startProfiledPlatform } from "./profiled-platform.ts";
import type { ProcessName } from "../platform.ts";
import { CLK_TCK, argon2Rate, cpuTicks, json, machineBusyTicks, printHottest } from "./profiling.ts";

/** CPU ticks (user + system) of a process, 0 when it is gone. */
function mainThreadTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** CPU ticks per thread of a process (thread id → ticks). */
function threadTicks(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        out.set(Number(tid), Number(fields[11]) + Number(fields[12]));
      } catch {
        // The thread went away.
      }
    }
  } catch {
    // The process went away.
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseProfilerArgs(process.argv.slice(2));
  const say = (s: string) => void process.stdout.write(`${s}\n`);

  let tp: TestPlatform | undefined;
  try {
    tp = await startProfiledPlatform(args);
    const demo = tp.projects.demo;
    const base = tp.gatewayUrl;
    const client = {
      "content-type": "application/json",
      "x-stack-project-id": demo.project_id,
      "x-stack-access-type": "client",
      "x-stack-publishable-client-key": demo.publishable_client_key,
    };
    // Ten accounts in turn: one account's sign-ins are checked at most five at a time (brute-force reservations: the
    // others wait for the outcome of the ones in flight), which would measure that limit rather than the machine.
    const password = "profile password 1";
    const accounts: string[] = [];
    while (accounts.length < 10) {
      const email = `profile-${randomBytes(4).toString("hex")}@example.com`;
      await json(
        await fetch(`${base}/api/v1/auth/password/sign-up`, {
          method: "POST",
          headers: client,
          body: JSON.stringify({ email, password, verification_callback_url: "http://localhost:3000/handler/email-verification" }),
        }),
      );
      accounts.push(email);
    }
    let turn = 0;
    const opts: autocannon.Options = {
      url: `${base}/api/v1/auth/password/sign-in`,
      method: "POST",
      headers: client,
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ email: accounts[turn++ % accounts.length], password }) }) }],
    };

    const pids = tp.platform.pids();
    const db = new pg.Client({ connectionString: tp.databaseUrl });
    await db.connect();
    const pgPids = async (): Promise<number[]> =>
      (await db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map((r) => r.pid);

    say(`warm-up 3 s (POST /auth/password/sign-in, concurrency ${args.concurrency})`);
    await autocannon({ ...opts, duration: 3, connections: args.concurrency });
    const argon = await argon2Rate(5);

    const backends = await pgPids();
    const profiled = args.cpuProf ? ([["gateway", pids.gateway!], ["auth", pids.auth!], ["identity", pids.identity!]] as const) : [];
    for (const [, pid] of profiled) process.kill(pid, "SIGUSR2");
    const before = {
      procs: Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuTicks(pid!)])),
      pg: backends.map(cpuTicks),
      authMain: mainThreadTicks(pids.auth!),
      authThreads: threadTicks(pids.auth!),
      self: process.cpuUsage(),
      machine: machineBusyTicks(),
    };
    const r = await autocannon({ ...opts, duration: args.duration, connections: args.concurrency });
    const after = {
      procs: Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuTicks(pid!)])),
      pg: backends.map(cpuTicks),
      authMain: mainThreadTicks(pids.auth!),
      authThreads: threadTicks(pids.auth!),
      self: process.cpuUsage(before.self),
      machine: machineBusyTicks(),
    };
    for (const [, pid] of profiled) process.kill(pid, "SIGUSR2");
    // Requests autocannon abandoned at the end are still being served: let them finish before anything stops.
    await new Promise((r) => setTimeout(r, 2000));
    await db.end();
    const ops = r.requests.total;
    const perOp = (ticks: number) => ((ticks / CLK_TCK) * 1000) / Math.max(ops, 1);
    say("");
    say(`sign-ins ${ops} in ${args.duration} s: ${r.requests.average.toFixed(1)}/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, errors ${r.errors + r.timeouts}, non-2xx ${r.non2xx}`);
    say(`argon2id rate (4 in flight, before the load): ${argon.toFixed(1)}/s; sign-in reaches ${((r.requests.average / argon) * 100).toFixed(0)}% of it`);
    const rows: [string, number][] = [];
    for (const name of Object.keys(pids) as ProcessName[]) rows.push([name, perOp(after.procs[name]! - before.procs[name]!)]);
    rows.push([`postgres (${backends.length} backends)`, perOp(after.pg.reduce((a, b) => a + b, 0) - before.pg.reduce((a, b) => a + b, 0))]);
    rows.push(["load generator (autocannon)", (after.self.user + after.self.system) / 1000 / Math.max(ops, 1)]);
    say("CPU ms per sign-in:");
    for (const [name, ms] of rows.filter(([, ms]) => ms >= 0.005)) say(`  ${name.padEnd(32)}${ms.toFixed(3)}`);
    const authMain = perOp(after.authMain - before.authMain);
    say(`    (auth: event loop ${authMain.toFixed(3)}, other threads: argon2 pool, GC ${(perOp(after.procs.auth! - before.procs.auth!) - authMain).toFixed(3)})`);
    const busiest = [...after.authThreads]
      .filter(([tid]) => tid !== pids.auth)
      .map(([tid, t]) => [tid, perOp(t - (before.authThreads.get(tid) ?? 0))] as const)
      .filter(([, ms]) => ms >= 0.01)
      .sort((a, b) => b[1] - a[1]);
    say(`    (auth threads other than the event loop, ms per sign-in: ${busiest.map(([tid, ms]) => `${tid}: ${ms.toFixed(2)}`).join(", ")})`);
    const platformMs = rows.slice(0, -1).reduce((a, [, ms]) => a + ms, 0);
    say(`  ${"platform total".padEnd(32)}${platformMs.toFixed(3)}`);
    const m = { busy: after.machine.busy - before.machine.busy, total: after.machine.total - before.machine.total };
    say(`machine busy during the run: ${((m.busy / m.total) * 100).toFixed(0)}% of all cores; load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
    if (args.cpuProf) {
      await new Promise((r) => setTimeout(r, 1500));
      for (const [name, pid] of profiled) {
        printHottest(say, { name, file: join(args.out, `${pid}.cpuprofile`), ops, unit: "sign-in", top: 30, areas: 15 });
      }
    }
  } finally {
    await tp?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`profile-sign-in: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
