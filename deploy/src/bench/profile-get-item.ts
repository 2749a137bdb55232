/**
 * Where does an item quantity read spend its CPU (issue 16)? Starts a private platform (as profile-refresh.ts does:
 * fresh database, free ports, its own NATS subject prefix), configures a custom-customer item, gives one customer
 * --rows ledger rows (default 1,000, as `npm run bench`'s get-item scenario), loads
 * GET /payments/items/custom/<customer>/<item> with the server key and prints CPU ms per read for each process
 * (measureLoad). With --cpu-prof the gateway and billing are profiled during the measured run and their hottest
 * functions (self time) printed.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx deploy/src/bench/profile-get-item.ts \
 *     [--duration 10] [--concurrency 50] [--rows 1000] [--cpu-prof] [--out <dir>]
 */
import { randomBytes } from "node:crypto";
import type { TestPlatform } from "../test-platform.ts";
import { measureLoad, parseProfilerArgs, startProfiledPlatform } from "./profiled-platform.ts";
import { json } from "./profiling.ts";

function parseArgs(argv: string[]) {
  let rows = 1000;
  const args = parseProfilerArgs(argv, (option, next) => {
    if (option !== "--rows") return false;
    rows = Number(next());
    return true;
  });
  return { ...args, rows };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const say = (s: string) => void process.stdout.write(`${s}\n`);
  let tp: TestPlatform | undefined;
  try {
    tp = await startProfiledPlatform(args);
    const demo = tp.projects.demo;
    const base = tp.gatewayUrl;
    const common = { "content-type": "application/json", "x-stack-project-id": demo.project_id };
    const server = { ...common, "x-stack-access-type": "server", "x-stack-secret-server-key": demo.secret_server_key };
    const admin = { ...common, "x-stack-access-type": "admin", "x-stack-super-secret-admin-key": demo.super_secret_admin_key };
    await json(
      await fetch(`${base}/api/v1/internal/config/override`, {
        method: "PATCH",
        headers: admin,
        body: JSON.stringify({ config_override_string: JSON.stringify({ "payments.items.profile-credits": { displayName: "Profile credits", customerType: "custom" } }) }),
      }),
    );
    const customer = `profile-${randomBytes(4).toString("hex")}`;
    const item = `${base}/api/v1/payments/items/custom/${customer}/profile-credits`;
    for (let i = 0; i < args.rows; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, args.rows - i) }, (_, j) =>
          fetch(`${item}/update-quantity?allow_negative=true`, { method: "POST", headers: server, body: JSON.stringify({ delta: (i + j) % 3 === 2 ? -1 : 2, description: "profile" }) }).then(json),
        ),
      );
    }
    say(`${args.rows} ledger rows; quantity ${(await json(await fetch(item, { headers: server }))).quantity}`);
    await measureLoad(tp, { unit: "item read", request: { url: item, headers: server }, duration: args.duration, concurrency: args.concurrency, profiled: ["gateway", "billing"], cpuProf: args.cpuProf, out: args.out }, say);
  } finally {
    await tp?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`profile-get-item: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
