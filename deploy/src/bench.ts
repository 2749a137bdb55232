/**
 * `npm run bench`: measures a running platform (start it first with `npm start`; keys come from .vestibule/dev.json).
 *
 * 1. The ceiling: a bare fastify route in its own process on this machine (one Node HTTP hop).
 * 2. The machine's argon2id hash rate with the auth service's parameters, measured in this run.
 * 3. For a fixed duration each, at a fixed concurrency: sign-up/s, sign-in/s, token refresh/s, GET /users/me/s and a
 *    users list page of 100 and an item quantity read (GET /payments/items, 1,000 ledger rows), with p50/p99 latency, errors, and server CPU per operation (CPU time of every platform
 *    process, Postgres included, from /proc).
 * A table prints each figure also as a ratio to the bare route at the same concurrency, then which targets are met
 * (bench/targets.ts: issue 19's, at the concurrency the issue measures each scenario at, and issue 16's item read).
 *
 * Options: --duration <s> (default 10), --concurrency <n> (every scenario at n instead of its target's concurrency:
 * 10, or 50 for GET /users/me and the item read), --only <name,...> (me, refresh, sign-in, sign-up, get-item, list),
 * --dev <file> (another platform's dev.json, e.g. the private one `deploy/src/bench/profile-refresh.ts --serve`
 * starts; default .vestibule/dev.json of `npm start`).
 * Everything runs on one machine: the load generator shares the cores with the servers, and so does the bare route.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { cpus } from "node:os";
import autocannon from "autocannon";
import { checkoutRoot, stateDir } from "./paths.ts";
import { argon2Rate, CLK_TCK, cpuTicks, json, processIds, treeCpuTicks } from "./bench/profiling.ts";
import { DEFAULT_CONCURRENCY, LOAD_TARGETS, verdict } from "./bench/targets.ts";

interface Args {
  duration: number;
  /** Every scenario at this concurrency; undefined: each at its target's (bench/targets.ts). */
  concurrency: number | undefined;
  only: string[] | undefined;
  dev: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { duration: 10, concurrency: undefined, only: undefined, dev: join(stateDir, "dev.json") };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--duration") args.duration = Number(argv[++i]);
    else if (a === "--concurrency") args.concurrency = Number(argv[++i]);
    else if (a === "--only") args.only = argv[++i]!.split(",");
    else if (a === "--dev") args.dev = argv[++i]!;
    else throw new Error(`unknown option ${a}`);
  }
  return args;
}

interface DevFile {
  gateway_url: string;
  projects: Record<string, { project_id: string; publishable_client_key: string; secret_server_key: string; super_secret_admin_key: string }>;
}

/** The pid of this checkout's `npm start` (set in main), whose process tree is measured. */
let platformRoot: number | undefined;

/**
 * The `npm start` of this checkout (deploy/src/start.ts run from this folder), whose process tree is the platform:
 * services, gateway, e-mail render processes and the embedded Postgres with its backends.
 */
function startProcess(): number | undefined {
  for (const pid of processIds()) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("deploy/src/start.ts")) continue;
      if (readlinkSync(`/proc/${pid}/cwd`) === checkoutRoot) return pid;
    } catch {
      // The process went away.
    }
  }
  return undefined;
}

/** The database `npm start` uses when DATABASE_URL was set for it (read from its environment), else undefined. */
function externalDatabase(pid: number): string | undefined {
  try {
    const url = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").find((e) => e.startsWith("DATABASE_URL="))?.slice("DATABASE_URL=".length);
    return url ? decodeURIComponent(new URL(url).pathname.slice(1)) || undefined : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by the platform: the process tree of this checkout's `npm start`, plus, when it runs on an
 * external PostgreSQL, that server's backends connected to its database. Other checkouts' platforms, tests and
 * databases on the same machine are not counted. With --dev (a platform this checkout's `npm start` did not start),
 * by command line: every Vestibule process and every Postgres process on the machine.
 */
function platformCpuSeconds(): number {
  const root = platformRoot;
  if (root !== undefined) {
    let ticks = treeCpuTicks(root);
    const database = externalDatabase(root);
    if (database) {
      for (const pid of processIds()) {
        try {
          // A backend's title: "postgres: <user> <database> <client> <state>".
          if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split(" ")[2] === database) ticks += cpuTicks(pid);
        } catch {
          // The process went away.
        }
      }
    }
    return ticks / CLK_TCK;
  }
  let ticks = 0;
  for (const pid of processIds()) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const ours =
        (cmd.includes(checkoutRoot) || cmd.includes("services/") || cmd.includes("gateway/src/main.ts")) && !cmd.includes("bench") ? true : cmd.startsWith("postgres");
      if (!ours) continue;
      ticks += cpuTicks(pid);
    } catch {
      // The process went away.
    }
  }
  return ticks / CLK_TCK;
}

interface Result {
  name: string;
  /** Concurrent connections of the load. */
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  cpuMsPerOp: number | undefined;
  note?: string;
}

const num = (v: number, digits = 0) => v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * Waits until the platform's processes use less than a tenth of a core (what a load left behind, e-mails and events
 * after sign-ups, is done), at most `maxSeconds`; answers the seconds waited. The argon2id yardstick measured while the
 * platform still drains would be the machine's leftover, not its rate.
 */
async function waitIdle(maxSeconds = 60): Promise<number> {
  const started = Date.now();
  let last = platformCpuSeconds();
  while (Date.now() - started < maxSeconds * 1000) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = platformCpuSeconds();
    if (now - last < 0.1) break;
    last = now;
  }
  return (Date.now() - started) / 1000;
}

async function load(
  name: string,
  opts: autocannon.Options,
  measureCpu = true,
): Promise<Result> {
  const cpuBefore = measureCpu ? platformCpuSeconds() : 0;
  const r = await autocannon({ ...opts });
  const cpuAfter = measureCpu ? platformCpuSeconds() : 0;
  const ops = r.requests.total;
  return {
    name,
    concurrency: opts.connections ?? 10,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    cpuMsPerOp: measureCpu && ops > 0 ? ((cpuAfter - cpuBefore) * 1000) / ops : undefined,
  };
}

function startBare(): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(checkoutRoot, "deploy/src/bench/bare-server.ts")], { stdio: ["ignore", "pipe", "inherit"] });
    child.stdout!.once("data", (d: Buffer) => {
      const { port } = JSON.parse(d.toString()) as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, child });
    });
    child.once("error", reject);
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  let dev: DevFile;
  try {
    dev = JSON.parse(readFileSync(args.dev, "utf8")) as DevFile;
  } catch {
    throw new Error(`No ${args.dev}: start the platform first with \`npm start\` (in another terminal).`);
  }
  platformRoot = args.dev === join(stateDir, "dev.json") ? startProcess() : undefined;
  const base = dev.gateway_url.replace(/\/$/, "");
  const demo = dev.projects.demo!;
  const client = {
    "content-type": "application/json",
    "x-stack-project-id": demo.project_id,
    "x-stack-access-type": "client",
    "x-stack-publishable-client-key": demo.publishable_client_key,
  };
  const server = { ...client, "x-stack-access-type": "server", "x-stack-secret-server-key": demo.secret_server_key };
  const want = (name: string) => !args.only || args.only.includes(name);
  const concurrencyOf = (name: string) => args.concurrency ?? LOAD_TARGETS[name]?.concurrency ?? DEFAULT_CONCURRENCY;
  /** Duration and concurrency of a scenario's measured load. */
  const common = (name: string) => ({ duration: args.duration, connections: concurrencyOf(name) });
  const warmUp = (name: string) => ({ duration: 2, connections: concurrencyOf(name) });
  const results: Result[] = [];

  process.stdout.write(
    `Vestibule benchmark: ${cpus().length} cores, ${args.duration} s per scenario, ` +
      `${args.concurrency === undefined ? "each scenario at its target's concurrency" : `concurrency ${args.concurrency}`}, gateway ${base}\n`,
  );
  process.stdout.write(
    platformRoot !== undefined
      ? `CPU ms/op: the process tree of this checkout's npm start (pid ${platformRoot})${externalDatabase(platformRoot) ? ` and the backends of its database ${externalDatabase(platformRoot)}` : ""}\n`
      : "CPU ms/op: every Vestibule and Postgres process on this machine (no npm start of this checkout found)\n",
  );

  // The yardstick at every concurrency a scenario of this run uses.
  const scenarios = ["me", "refresh", "sign-in", "sign-up", "get-item", "list"].filter(want);
  const bareAt = new Map<number, Result>();
  const bare = await startBare();
  try {
    for (const connections of [...new Set(scenarios.map(concurrencyOf))].sort((a, b) => a - b)) {
      await load("warm-up", { url: `${bare.url}/bare`, duration: 2, connections }, false);
      const r = await load("bare fastify route", { url: `${bare.url}/bare`, duration: args.duration, connections }, false);
      bareAt.set(connections, r);
      results.push(r);
    }
  } finally {
    bare.child.kill("SIGTERM");
  }
  /** Scenario key of each measured result (for its target). */
  const keyOf = new Map<Result, string>();
  const measured = (key: string, r: Result) => {
    keyOf.set(r, key);
    results.push(r);
    return r;
  };

  const argonRate = await argon2Rate(Math.min(args.duration, 5));

  // A user to sign in, refresh and read.
  const email = `bench-${randomBytes(4).toString("hex")}@example.com`;
  const password = "bench password 1";
  const signedUp = await json(
    await fetch(`${base}/api/v1/auth/password/sign-up`, {
      method: "POST",
      headers: client,
      body: JSON.stringify({ email, password, verification_callback_url: "http://localhost:3000/handler/email-verification" }),
    }),
  );
  const accessToken = signedUp.access_token as string;
  const refreshToken = signedUp.refresh_token as string;

  if (want("me")) {
    await load("warm-up", { url: `${base}/api/v1/users/me`, headers: { ...client, "x-stack-access-token": accessToken }, ...warmUp("me") }, false);
    measured("me", await load("GET /users/me", { url: `${base}/api/v1/users/me`, headers: { ...client, "x-stack-access-token": accessToken }, ...common("me") }));
  }
  if (want("refresh")) {
    const body = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: demo.project_id, client_secret: demo.publishable_client_key }).toString();
    measured(
      "refresh",
      await load("token refresh (POST /auth/oauth/token)", {
        url: `${base}/api/v1/auth/oauth/token`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
        ...common("refresh"),
      }),
    );
  }
  // The argon2id rate is measured again right after the sign-in load (the machine's speed drifts over a run); the
  // sign-in figure is compared with the mean of the rates measured before and after it.
  const argonRates = [argonRate];
  /** How long the platform kept working after a load (measured before the argon2id rate is taken again). */
  const drained: string[] = [];
  if (want("sign-in")) {
    // Ten accounts in turn: one account's sign-ins are checked at most five at a time (brute-force reservations: the
    // others wait for the outcome of the ones in flight), which would measure that limit rather than the machine.
    const accounts = [email];
    while (accounts.length < 10) {
      const other = `bench-${randomBytes(4).toString("hex")}@example.com`;
      await json(
        await fetch(`${base}/api/v1/auth/password/sign-up`, {
          method: "POST",
          headers: client,
          body: JSON.stringify({ email: other, password, verification_callback_url: "http://localhost:3000/handler/email-verification" }),
        }),
      );
      accounts.push(other);
    }
    let turn = 0;
    const signIn = {
      url: `${base}/api/v1/auth/password/sign-in`,
      method: "POST" as const,
      headers: client,
      requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: JSON.stringify({ email: accounts[turn++ % accounts.length], password }) }) }],
    };
    await load("warm-up", { ...signIn, ...warmUp("sign-in") }, false);
    measured("sign-in", await load("sign-in (password)", { ...signIn, ...common("sign-in") }));
    drained.push(`sign-in ${num(await waitIdle(), 0)} s`);
    argonRates.push(await argon2Rate(Math.min(args.duration, 5)));
  }
  if (want("sign-up")) {
    // Issue 19: sign-up's yardstick is the argon2id rate (each sign-up hashes one password), measured again right after.
    let i = 0;
    const prefix = randomBytes(4).toString("hex");
    measured(
      "sign-up",
      await load("sign-up (password)", {
        url: `${base}/api/v1/auth/password/sign-up`,
        method: "POST",
        headers: client,
        ...common("sign-up"),
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              body: JSON.stringify({ email: `bench-${prefix}-${i++}@example.com`, password, verification_callback_url: "http://localhost:3000/handler/email-verification" }),
            }),
          },
        ],
      }),
    );
    drained.push(`sign-up ${num(await waitIdle(), 0)} s`);
    argonRates.push(await argon2Rate(Math.min(args.duration, 5)));
  }
  if (want("get-item")) {
    // Issue 16: GET /payments/items on a customer with 1,000 ledger rows (target p99 < 10 ms at concurrency 50).
    const admin = { ...client, "x-stack-access-type": "admin", "x-stack-super-secret-admin-key": demo.super_secret_admin_key };
    await fetch(`${base}/api/v1/internal/config/override`, {
      method: "PATCH",
      headers: admin,
      body: JSON.stringify({ config_override_string: JSON.stringify({ "payments.items.bench-credits": { displayName: "Bench credits", customerType: "custom" } }) }),
    });
    const customer = `bench-${randomBytes(4).toString("hex")}`;
    const change = `${base}/api/v1/payments/items/custom/${customer}/bench-credits/update-quantity?allow_negative=true`;
    for (let i = 0; i < 1000; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          fetch(change, { method: "POST", headers: server, body: JSON.stringify({ delta: (i + j) % 3 === 2 ? -1 : 2, description: "bench" }) }).then(json),
        ),
      );
    }
    const url = `${base}/api/v1/payments/items/custom/${customer}/bench-credits`;
    await load("warm-up", { url, headers: server, ...warmUp("get-item") }, false);
    measured("get-item", await load("GET /payments/items (1,000 ledger rows)", { url, headers: server, ...common("get-item") }));
  }
  let listNote = "";
  if (want("list")) {
    const first = await json(await fetch(`${base}/api/v1/users?limit=100`, { headers: server }));
    const cursor = first.pagination?.next_cursor as string | null;
    listNote = cursor ? "second page (cursor)" : "first page";
    const url = cursor ? `${base}/api/v1/users?limit=100&cursor=${cursor}` : `${base}/api/v1/users?limit=100`;
    const r = measured("list", await load("users list, page of 100", { url, headers: server, ...common("list") }));
    r.note = listNote;
  }

  const pad = (s: string, n: number) => s.padEnd(n);
  process.stdout.write("\n");
  process.stdout.write(`${pad("scenario", 40)}${pad("conc", 6)}${pad("ops/s", 10)}${pad("x bare", 10)}${pad("p50 ms", 9)}${pad("p99 ms", 9)}${pad("errors", 8)}${pad("CPU ms/op", 10)}\n`);
  for (const r of results) {
    const bareRps = bareAt.get(r.concurrency)!.rps;
    const ratio = keyOf.has(r) ? `1/${num(bareRps / Math.max(r.rps, 0.001), 1)}` : "1";
    const errors = r.errors + r.non2xx;
    process.stdout.write(
      `${pad(r.name, 40)}${pad(String(r.concurrency), 6)}${pad(num(r.rps), 10)}${pad(ratio, 10)}${pad(num(r.p50, 1), 9)}${pad(num(r.p99, 1), 9)}${pad(String(errors), 8)}${pad(r.cpuMsPerOp === undefined ? "-" : num(r.cpuMsPerOp, 2), 10)}${r.note ? `  ${r.note}` : ""}\n`,
    );
  }
  const meanArgon = argonRates.reduce((a, b) => a + b, 0) / argonRates.length;
  process.stdout.write(
    `\nargon2id hash rate on this machine (m=19456 KiB, t=2, p=1, 4 in flight): ${num(meanArgon, 1)}/s` +
      (argonRates.length > 1 ? ` (${argonRates.map((r) => num(r, 1)).join(", ")}: before the loads, then after the sign-in and sign-up loads, once the platform was idle again: ${drained.join(", ")} after the load)` : ""),
  );
  for (const r of results.filter((r) => ["sign-in", "sign-up"].includes(keyOf.get(r) ?? ""))) {
    process.stdout.write(`; ${keyOf.get(r)} reaches ${num(r.rps / meanArgon, 2)} of it`);
  }
  process.stdout.write("\n\ntargets (bench/targets.ts):\n");
  for (const [r, key] of keyOf) {
    const target = LOAD_TARGETS[key];
    if (!target) continue;
    const met = target.met(r, { bareRps: bareAt.get(r.concurrency)!.rps, argon2Rate: meanArgon });
    const elsewhere = r.concurrency === target.concurrency ? "" : ` (measured at concurrency ${r.concurrency}; the target is at ${target.concurrency})`;
    process.stdout.write(`  ${pad(`${key} (issue ${target.issue})`, 22)}${pad(target.text, 44)}${verdict(met)}${elsewhere}\n`);
  }
  process.stdout.write(
    "  users page at 1,000,000 users: npm run bench:list -- --users 1000000 --embedded; permission check at 10,000 members: " +
      "node --import tsx deploy/src/bench/permission-check.ts (each prints its verdicts)\n",
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).message}\n`);
  process.exit(1);
});
