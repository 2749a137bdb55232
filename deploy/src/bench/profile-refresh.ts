/**
 * Where does a token refresh spend its CPU? Starts a private platform (fresh database on DATABASE_URL's server, free
 * ports, its own NATS subject prefix: it does not touch a running `npm start`), signs up one user, loads a refresh
 * endpoint with autocannon and prints CPU ms per refresh for each process (gateway, auth, identity, the other
 * services, the Postgres backends of this platform's database, and the load generator itself), read from /proc.
 * With --cpu-prof, the gateway and auth are profiled during the measured run only (V8 sampling profiler started and
 * stopped by SIGUSR2 through cpu-profile-hook.mjs; `--cpu-prof` itself is not allowed in NODE_OPTIONS), the
 * profiles are kept in --out and the hottest functions (self time) of both are printed.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx deploy/src/bench/profile-refresh.ts \
 *     [--duration 10] [--concurrency 50] [--endpoint oauth|session] [--cpu-prof] [--out <dir>] [--bus nats|postgres] [--serve]
 *
 * With --serve it only starts the private platform, writes <out>/dev.json and waits for Ctrl-C, so that
 * `npm run bench -- --dev <out>/dev.json` can measure this checkout's code while another `npm start` keeps its ports.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import type { TestPlatform } from "../test-platform.ts";
import { measureLoad, parseProfilerArgs, startProfiledPlatform } from "./profiled-platform.ts";
import { json } from "./profiling.ts";

function parseArgs(argv: string[]) {
  let endpoint: "oauth" | "session" = "oauth";
  let serve = false;
  const args = parseProfilerArgs(argv, (option, next) => {
    if (option === "--endpoint") endpoint = next() === "session" ? "session" : "oauth";
    else if (option === "--serve") serve = true;
    else return false;
    return true;
  });
  return { ...args, endpoint, serve };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const say = (s: string) => void process.stdout.write(`${s}\n`);

  let tp: TestPlatform | undefined;
  try {
    tp = await startProfiledPlatform(args);
    if (args.serve) {
      const file = join(args.out, "dev.json");
      writeFileSync(file, `${JSON.stringify({ gateway_url: tp.gatewayUrl, projects: tp.projects }, null, 2)}\n`);
      say(`platform up (gateway ${tp.gatewayUrl}, pids ${JSON.stringify(tp.platform.pids())}); keys in ${file}`);
      say(`measure with: npm run bench -- --dev ${file} --only refresh   (Ctrl-C / SIGTERM here stops the platform)`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      return;
    }
    const demo = tp.projects.demo;
    const base = tp.gatewayUrl;
    const client = {
      "content-type": "application/json",
      "x-stack-project-id": demo.project_id,
      "x-stack-access-type": "client",
      "x-stack-publishable-client-key": demo.publishable_client_key,
    };
    const email = `profile-${randomBytes(4).toString("hex")}@example.com`;
    const password = "profile password 1";
    const signedUp = await json(
      await fetch(`${base}/api/v1/auth/password/sign-up`, {
        method: "POST",
        headers: client,
        body: JSON.stringify({ email, password, verification_callback_url: "http://localhost:3000/handler/email-verification" }),
      }),
    );
    const refreshToken = signedUp.refresh_token as string;
    const opts: autocannon.Options =
      args.endpoint === "oauth"
        ? {
            url: `${base}/api/v1/auth/oauth/token`,
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: demo.project_id, client_secret: demo.publishable_client_key }).toString(),
          }
        : { url: `${base}/api/v1/auth/sessions/current/refresh`, method: "POST", headers: { ...client, "x-stack-refresh-token": refreshToken }, body: "{}" };

    await measureLoad(tp, { unit: "refresh", request: opts, duration: args.duration, concurrency: args.concurrency, profiled: ["gateway", "auth"], cpuProf: args.cpuProf, out: args.out }, say);
  } finally {
    await tp?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`profile-refresh: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
