/**
 * `npm start`: the whole platform on one machine.
 *
 * - `.vestibule/` in the checkout holds the local state: secrets.json (master key + service secret, unless the
 *   environment gives them), dev.json (project keys) and pg/ (embedded Postgres, used when DATABASE_URL is unset).
 * - Six services and the gateway run as child processes (restarted with backoff if they crash), the frontends
 *   (built first when their sources changed) are served on :8101: the dashboard at /, the hosted pages at /handler.
 * - First start: keys for the `internal` project and a demo project with keys, printed and written to dev.json.
 *   Later starts reuse them while they still exist in the database.
 * - Ctrl-C / SIGTERM stops everything (gateway, services, then embedded Postgres). A second Ctrl-C forces it.
 */
import { join, relative } from "node:path";
import { existsSync } from "node:fs";
import { bootstrapProjects, type DevFile, type ProjectKeys } from "./bootstrap.ts";
import { startEmbeddedPostgres, isPortFree, type EmbeddedPostgres } from "./embedded-postgres.ts";
import { ensureStateDir, loadOrCreateSecrets, readDevFile, writeDevFile } from "./local-state.ts";
import { stopOrphans } from "./orphans.ts";
import { checkoutRoot, stateDir } from "./paths.ts";
import { DEFAULT_PORTS, PROCESS_NAMES, SERVICE_NAMES, entryOf, startPlatform, type Platform } from "./platform.ts";
import type { LogLevelName } from "./logs.ts";
import { withoutCredentials } from "@vestibule/shared/log";
import type { DevIdentityProvider } from "./dev-idp/index.ts";
import { seedDevProviders, startDevIdp } from "./dev-idp/launch.ts";
import { launchLocalStripe, pointWebhooksAt, type LaunchedStripe } from "./stripe-local/launch.ts";

const t0 = Date.now();
const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
const bold = (s: string): string => (color ? `\u001b[1m${s}\u001b[0m` : s);
const dim = (s: string): string => (color ? `\u001b[2m${s}\u001b[0m` : s);
const say = (message: string): void => void process.stdout.write(`${dim("vestibule |")} ${message}\n`);

let platform: Platform | undefined;
let database: EmbeddedPostgres | undefined;
let devIdp: DevIdentityProvider | undefined;
let localStripe: LaunchedStripe | undefined;
let shuttingDown = false;

async function shutdown(reason: string, code: number): Promise<never> {
  if (shuttingDown) {
    say("forced exit");
    process.exit(code || 130);
  }
  shuttingDown = true;
  say(`${reason}: stopping (Ctrl-C again to force)`);
  try {
    await platform?.stop();
    await devIdp?.stop();
    await localStripe?.stripe.stop();
    await database?.stop();
    say("stopped");
  } catch (err) {
    process.stderr.write(`vestibule | error while stopping: ${(err as Error).message}\n`);
    code ||= 1;
  }
  process.exit(code);
}

process.on("SIGINT", () => void shutdown("SIGINT", 0));
process.on("SIGTERM", () => void shutdown("SIGTERM", 0));
process.on("SIGHUP", () => void shutdown("SIGHUP", 0));

function printKeys(label: string, keys: ProjectKeys): string[] {
  return [
    `  ${bold(label)}  project id ${keys.project_id}`,
    `    publishable client key   ${keys.publishable_client_key}`,
    `    secret server key        ${keys.secret_server_key}`,
    `    super secret admin key   ${keys.super_secret_admin_key}`,
  ];
}

async function main(): Promise<void> {
  ensureStateDir();
  const env = process.env;
  const secrets = loadOrCreateSecrets(env);
  if (secrets.source.endsWith("(new)") && !env.DATABASE_URL && existsSync(join(stateDir, "pg", "PG_VERSION"))) {
    say("warning: new secrets.json but an existing .vestibule/pg: secrets stored with the old master key cannot be read");
  }

  const orphans = await stopOrphans(PROCESS_NAMES.map(entryOf));
  if (orphans.length > 0) say(`stopped ${orphans.length} process(es) left running by an earlier run`);

  const host = env.HOST || "127.0.0.1";
  const checkHost = host === "0.0.0.0" ? "127.0.0.1" : host;
  const busy: string[] = [];
  for (const [name, port] of Object.entries(DEFAULT_PORTS)) {
    if (!(await isPortFree(port, checkHost))) busy.push(`${name} :${port}`);
  }
  if (busy.length > 0) {
    throw new Error(`ports already in use: ${busy.join(", ")}. Is another \`npm start\` running?`);
  }

  let databaseUrl = env.DATABASE_URL;
  let databaseLabel = databaseUrl ? withoutCredentials(databaseUrl) : "";
  if (!databaseUrl) {
    say("DATABASE_URL is unset: starting embedded Postgres");
    database = await startEmbeddedPostgres({ onInfo: (m) => say(`postgres: ${m}`) });
    databaseUrl = database.databaseUrl;
    databaseLabel = `embedded Postgres 127.0.0.1:${database.port} (data in ${database.dataDir.startsWith(checkoutRoot) ? relative(checkoutRoot, database.dataDir) : database.dataDir})`;
  }
  if (shuttingDown) return;

  const natsUrl = env.NATS_URL || undefined;
  say(`starting ${SERVICE_NAMES.length} services and the gateway${natsUrl ? ` (events on NATS ${withoutCredentials(natsUrl)})` : ""}`);
  const mode = env.VESTIBULE_MODE === "production" ? "production" : "development";
  // Development: a local OpenID provider stands in for Google, GitHub, ... (shared keys), unless keys are configured.
  if (mode === "development" && !env.VESTIBULE_OAUTH_SHARED_KEYS) {
    devIdp = await startDevIdp(env, checkHost);
    say(`development identity provider on ${devIdp.issuer} (the shared OAuth keys of every provider point at it)`);
  }
  // Development: a local Stripe-compatible server stands in for Stripe (unreachable here), unless STRIPE_API_URL is set.
  if (mode === "development" && !env.STRIPE_API_URL) {
    localStripe = await launchLocalStripe(env, checkHost);
    say(`local Stripe-compatible server on ${localStripe.stripe.url} (test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined)`);
  }
  if (shuttingDown) return;
  platform = await startPlatform({
    env: {
      ...(devIdp ? { VESTIBULE_OAUTH_SHARED_KEYS: devIdp.sharedKeysEnv } : {}),
      ...(localStripe?.env ?? {}),
    },
    databaseUrl,
    natsUrl,
    masterKeys: secrets.master_keys,
    serviceSecret: secrets.service_secret,
    mode,
    logLevel: (env.LOG_LEVEL as LogLevelName | undefined) ?? "info",
    host,
    publicUrl: env.VESTIBULE_PUBLIC_URL || undefined,
    eventPrefix: env.VESTIBULE_EVENT_PREFIX || undefined,
    restartOnExit: true,
  });
  if (shuttingDown) return;
  if (localStripe) pointWebhooksAt(localStripe, env, platform.publicUrl);

  const previous = readDevFile();
  const { projects, created } = await bootstrapProjects({
    identityUrl: platform.serviceUrls.identity,
    serviceSecret: secrets.service_secret,
    existing: previous?.projects,
  });
  if (devIdp) {
    const seeded = await seedDevProviders({
      identityUrl: platform.serviceUrls.identity,
      serviceSecret: secrets.service_secret,
      projectIds: [projects.internal.project_id, projects.demo.project_id],
    });
    if (seeded.length > 0) say(`enabled Google, GitHub, Microsoft and Spotify sign-in (shared keys) on ${seeded.join(", ")}`);
  }
  const dev: DevFile = { gateway_url: platform.publicUrl, projects };
  platform.configureFrontends({ internal: projects.internal, handler: projects.demo });
  const devPath = writeDevFile(dev);

  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  const serviceList = SERVICE_NAMES.map((n) => `${n} ${new URL(platform!.serviceUrls[n]).port}`).join(", ");
  const demo = projects.demo;
  const lines = [
    "",
    bold(`Vestibule is running (ready in ${seconds} s)`),
    `  API gateway   ${platform.publicUrl}/api/v1`,
    `  Frontends     ${platform.frontendsUrl ? `http://localhost:${new URL(platform.frontendsUrl).port} (dashboard), /handler/sign-in (hosted pages of the demo project)` : "(not served)"}`,
    ...(platform.frontendsUrl && platform.env.VESTIBULE_MODE === "development"
      ? [`  Dev mailbox   http://localhost:${new URL(platform.frontendsUrl).port}/dev/mailbox/view ${dim("(every e-mail the platform sends; JSON at /dev/mailbox)")}`]
      : []),
    ...(devIdp ? [`  Dev sign-in   ${devIdp.issuer} ${dim("(development identity provider behind every OAuth button)")}`] : []),
    ...(localStripe ? [`  Dev Stripe    ${localStripe.stripe.url} ${dim("(local Stripe-compatible API, Stripe.js at /v3; webhooks to the gateway)")}`] : []),
    `  Services      ${serviceList} ${dim("(gRPC/Connect, h2c)")}`,
    `  Database      ${databaseLabel}`,
    `  Events        ${natsUrl ? `NATS JetStream ${withoutCredentials(natsUrl)}` : "Postgres-backed bus (set NATS_URL for NATS JetStream)"}`,
    "",
    ...printKeys("internal", projects.internal),
    ...printKeys("demo", demo),
    `  ${created.length > 0 ? `created: ${created.join(", ")}` : "reused the projects and keys of the last run"}; saved in ${relative(checkoutRoot, devPath)}`,
    "",
    `  Try:  curl -H 'x-stack-project-id: ${demo.project_id}' -H 'x-stack-access-type: client' \\`,
    `          -H 'x-stack-publishable-client-key: ${demo.publishable_client_key}' ${platform.publicUrl}/api/v1/projects/current`,
    `  Health: npm run health    Stop: Ctrl-C`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`vestibule | failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  if (!shuttingDown) {
    shuttingDown = true;
    await platform?.stop().catch(() => undefined);
    await devIdp?.stop().catch(() => undefined);
    await localStripe?.stripe.stop().catch(() => undefined);
    await database?.stop().catch(() => undefined);
  }
  process.exit(1);
});
