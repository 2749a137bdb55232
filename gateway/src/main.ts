import { assertDevelopmentOnLoopback, ConfigError, readConfig } from "@vestibule/shared/config";
import { createLogger } from "@vestibule/shared/log";
import { createBus } from "@vestibule/shared/service";
import { buildGateway } from "./app.ts";
import { createServiceClients } from "./clients.ts";
import { gatewayConfigSpec } from "./config.ts";
import { createReadiness } from "./readiness.ts";
import { createHttpMetrics, createRegistry, serveMetrics } from "@vestibule/shared/metrics";
import { startTracing } from "@vestibule/shared/tracing";

/** Entry point of a gateway process (`npm start -w @vestibule/gateway`). Stateless: run as many as you like. */
async function main(): Promise<void> {
  let config;
  try {
    config = readConfig(gatewayConfigSpec);
    assertDevelopmentOnLoopback(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`gateway: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger({ service: "gateway", level: config.logLevel });
  const tracing = await startTracing("gateway");
  if (config.trustProxy === "true") {
    log.warn("VESTIBULE_TRUST_PROXY=true believes every X-Forwarded-For hop: clients can choose their IP; set a hop count or the balancers' addresses");
  }
  if (!config.natsUrl && !config.databaseUrl) {
    log.warn("neither NATS_URL nor DATABASE_URL is set: caches are invalidated by time only");
  }
  const bus = config.natsUrl || config.databaseUrl
    ? createBus({ natsUrl: config.natsUrl, databaseUrl: config.databaseUrl ?? "", eventPrefix: config.eventPrefix }, log)
    : undefined;
  const readiness = createReadiness({
    auth: config.authUrl,
    identity: config.identityUrl,
    teams_permissions: config.teamsPermissionsUrl,
    billing: config.billingUrl,
    email: config.emailUrl,
    vault: config.vaultUrl,
  });
  const registry = createRegistry("gateway");
  const gateway = await buildGateway({ config, clients: createServiceClients(config), log, bus, readiness, httpMetrics: createHttpMetrics(registry) });
  await gateway.app.listen({ port: config.port, host: config.host });
  const metricsServer = config.metricsPort > 0 ? await serveMetrics(registry, config.metricsPort, config.host) : undefined;
  log.info({ port: config.port }, "gateway listening");
  const shutdown = (signal: string) => {
    log.info({ signal, drainDelayMs: config.drainDelayMs }, "shutting down");
    // Readiness fails first (the balancer stops sending), requests keep being served for the drain delay, then
    // the server stops accepting and finishes what is in flight.
    readiness.drain();
    void new Promise((r) => setTimeout(r, config.drainDelayMs))
      .then(() => gateway.close())
      .then(() => metricsServer?.close())
      .then(() => bus?.close())
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

await main();
