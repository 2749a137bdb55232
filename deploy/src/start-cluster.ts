/**
 * `npm run start:cluster`: the platform with two replicas of every service and of the gateway, a 3-node NATS
 * JetStream cluster (streams at 3 replicas) and a small balancer in front of the gateways, all on loopback (see
 * cluster.ts). For trying failover by hand (kill a replica, a NATS node); `npm start` stays the everyday launcher.
 *
 * Postgres: DATABASE_URL, else the embedded one of `npm start` (.vestibule/pg). Secrets and project keys as for
 * `npm start` (.vestibule/secrets.json; dev.json is not rewritten). The balancer listens on VESTIBULE_CLUSTER_PORT
 * (default 8102, the gateway's usual port: stop `npm start` first); everything else on free ports. No frontends,
 * no development identity provider or local Stripe. Ctrl-C stops everything.
 */
import { bootstrapProjects } from "./bootstrap.ts";
import { startCluster, type Cluster } from "./cluster.ts";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "./embedded-postgres.ts";
import { ensureStateDir, loadOrCreateSecrets, readDevFile } from "./local-state.ts";
import { SERVICE_NAMES } from "./platform.ts";
import type { LogLevelName } from "./logs.ts";

const say = (message: string): void => void process.stdout.write(`cluster | ${message}\n`);
let cluster: Cluster | undefined;
let database: EmbeddedPostgres | undefined;
let shuttingDown = false;

async function shutdown(reason: string, code: number): Promise<never> {
  if (shuttingDown) process.exit(code || 130);
  shuttingDown = true;
  say(`${reason}: stopping (Ctrl-C again to force)`);
  try {
    await cluster?.stop();
    await database?.stop();
  } catch (err) {
    process.stderr.write(`cluster | error while stopping: ${(err as Error).message}\n`);
    code ||= 1;
  }
  process.exit(code);
}
// A closed terminal (SIGHUP) stops it like Ctrl-C; any exit, even mid-stop, still ends the NATS nodes and removes
// their temporary storage (nats-cluster.ts), the processes (platform.ts) and the embedded Postgres.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(signal, 0));

async function main(): Promise<void> {
  ensureStateDir();
  const env = process.env;
  const secrets = loadOrCreateSecrets(env);
  let databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    database = await startEmbeddedPostgres({ onInfo: (m) => say(`postgres: ${m}`) });
    databaseUrl = database.databaseUrl;
  }
  const replicas = Number(env.VESTIBULE_REPLICAS || 2);
  say(`starting ${replicas} replicas of ${SERVICE_NAMES.length} services and of the gateway, 3 NATS nodes, a balancer`);
  cluster = await startCluster({
    databaseUrl,
    masterKeys: secrets.master_keys,
    serviceSecret: secrets.service_secret,
    mode: env.VESTIBULE_MODE === "production" ? "production" : "development",
    logLevel: (env.LOG_LEVEL as LogLevelName | undefined) ?? "info",
    replicas,
    balancerPort: Number(env.VESTIBULE_CLUSTER_PORT || 8102),
    randomPorts: true,
    frontends: false,
    restartOnExit: env.VESTIBULE_CLUSTER_RESTART !== "false",
  });
  const { projects } = await bootstrapProjects({
    identityUrl: cluster.platform.serviceUrls.identity,
    serviceSecret: secrets.service_secret,
    existing: readDevFile()?.projects,
  });
  const p = cluster.platform;
  const lines = [
    "",
    `Vestibule cluster is running`,
    `  API (balancer)  ${p.publicUrl}/api/v1  → gateways ${p.gatewayUrls.join(", ")}`,
    ...SERVICE_NAMES.map((n) => `  ${n.padEnd(17)} ${p.serviceUrls[n].split(",").join(", ")}`),
    `  NATS            ${cluster.nats.urls.join(", ")} (JetStream, streams at ${Math.min(3, cluster.nats.urls.length)} replicas)`,
    `  demo project    ${projects.demo.project_id}, publishable client key ${projects.demo.publishable_client_key}`,
    `  pids            ${JSON.stringify(p.pids())}`,
    "  Stop: Ctrl-C",
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`cluster | failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  shuttingDown = true;
  await cluster?.stop().catch(() => undefined);
  await database?.stop().catch(() => undefined);
  process.exit(1);
});
