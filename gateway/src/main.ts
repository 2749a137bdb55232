import { assertDevelopmentOnLoopback, ConfigError, readConfig } from "@vestibule/shared/config";
import { createLogger } from "@vestibule/shared/log";
import { createBus } from "@vestibule/shared/service";
import { buildGateway } from "./app.ts";
import { createServiceClients } from "./clients.ts";
import { gatewayConfigSpec } from "./config.ts";

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
  if (!config.natsUrl && !config.databaseUrl) {
    log.warn("neither NATS_URL nor DATABASE_URL is set: caches are invalidated by time only");
  }
  const bus = config.natsUrl || config.databaseUrl
    ? createBus({ natsUrl: config.natsUrl, databaseUrl: config.databaseUrl ?? "", eventPrefix: config.eventPrefix }, log)
    : undefined;
  const gateway = await buildGateway({ config, clients: createServiceClients(config), log, bus });
  await gateway.app.listen({ port: config.port, host: config.host });
  log.info({ port: config.port }, "gateway listening");
  const shutdown = (signal: string) => {
    log.info({ signal }, "shutting down");
    void gateway
      .close()
      .then(() => bus?.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

await main();
