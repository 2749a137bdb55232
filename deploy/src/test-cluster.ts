/**
 * The cluster (cluster.ts) for integration tests, as `startTestPlatform` gives the single platform: a fresh database,
 * free ports, its own NATS cluster, the demo project and keys. `gatewayUrl` is the balancer, so the helpers of
 * deploy/test/platform-api.ts work unchanged.
 */
import { createTestDatabase } from "@vestibule/shared/testing";
import { bootstrapProjects } from "./bootstrap.ts";
import { startCluster, type Cluster, type ClusterOptions } from "./cluster.ts";
import { generateSecrets } from "./local-state.ts";
import type { LogLevelName } from "./logs.ts";
import type { TestPlatform } from "./test-platform.ts";

export interface TestCluster extends TestPlatform {
  readonly cluster: Cluster;
}

export async function startTestCluster(
  options: Partial<Omit<ClusterOptions, "masterKeys" | "serviceSecret">> = {},
): Promise<TestCluster> {
  const secrets = generateSecrets();
  // A given database (e.g. a private PostgreSQL to restart) is used as it is and not dropped.
  const db = options.databaseUrl ? { url: options.databaseUrl, drop: async () => undefined } : await createTestDatabase();
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster({
      randomPorts: true,
      frontends: false,
      restartOnExit: false,
      logLevel: "info",
      readyTimeoutMs: 90_000,
      ...options,
      // Small pools: 12 service processes on a PostgreSQL that may allow only 100 connections.
      env: { VESTIBULE_DB_POOL_SIZE: "3", ...options.env },
      databaseUrl: db.url,
      masterKeys: secrets.master_keys,
      serviceSecret: secrets.service_secret,
      log: {
        minLevel: (process.env.VESTIBULE_TEST_LOG as LogLevelName | undefined) ?? "error",
        color: false,
        ...options.log,
      },
    });
    const { projects } = await bootstrapProjects({
      identityUrl: cluster.platform.serviceUrls.identity,
      serviceSecret: secrets.service_secret,
      keyDescription: "Test keys",
    });
    const started = cluster;
    let stopping: Promise<void> | undefined;
    return {
      cluster: started,
      gatewayUrl: started.url,
      projects,
      platform: started.platform,
      databaseUrl: db.url,
      natsUrl: started.nats.url,
      serviceSecret: secrets.service_secret,
      masterKeys: secrets.master_keys,
      stripe: undefined,
      stop: () =>
        (stopping ??= (async () => {
          try {
            await started.stop();
          } finally {
            await db.drop();
          }
        })()),
    };
  } catch (err) {
    await cluster?.stop().catch(() => undefined);
    await db.drop().catch(() => undefined);
    throw err;
  }
}
