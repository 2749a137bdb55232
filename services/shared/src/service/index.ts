import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConnectRouter } from "@connectrpc/connect";
import { assertDevelopmentOnLoopback, int, masterKeys, oneOf, optionalStr, readConfig, str, url, type ConfigOf, ConfigError } from "../config/index.ts";
import { createPool, migrate, readMigrations, type Pool } from "../db/index.ts";
import { NatsBus, Outbox, PgBus, startOutboxRelay, type EventBus, type RelayHandle } from "../events/index.ts";
import { createLogger, type Logger } from "../log/index.ts";
import { createRpcServer, serviceSecretProblem, ServingStatus, type RpcServer } from "../rpc/index.ts";
import { SecretBox } from "../secrets/index.ts";
import { createProcessMetrics, serveMetrics, type ProcessMetrics } from "../metrics/index.ts";
import { startTracing, type Tracing } from "../tracing/index.ts";

export { SERVICES, SERVICE_NAMES, peerUrl, type ServiceName } from "./registry.ts";
import { SERVICES, type ServiceName } from "./registry.ts";
import { followDatabase } from "./database-readiness.ts";

/** Settings every service process reads. */
export function commonConfigSpec(defaultPort: number) {
  return {
    databaseUrl: str("DATABASE_URL", "PostgreSQL connection string; each service uses its own schema in it"),
    natsUrl: optionalStr("NATS_URL", "NATS server with JetStream (e.g. nats://127.0.0.1:4222; a cluster's nodes comma-separated); unset = embedded Postgres event bus"),
    masterKeys: masterKeys("VESTIBULE_MASTER_KEYS", "master keys wrapping the data keys of secrets at rest: <id>:<base64 32 bytes>[,...], first is active"),
    serviceSecret: str("VESTIBULE_SERVICE_SECRET", "shared secret for service-to-service authentication (≥ 32 random characters)", { check: serviceSecretProblem }),
    acceptV1ServiceTokens: oneOf("VESTIBULE_ACCEPT_V1_SERVICE_TOKENS", "also accept the previous release's unbound service tokens (only during a rolling upgrade)", ["true", "false"], "false"),
    port: int("PORT", "port of this service's gRPC/Connect server (h2c)", { default: defaultPort, min: 0, max: 65535 }),
    host: str("HOST", "interface to listen on", { default: "127.0.0.1" }),
    logLevel: oneOf("LOG_LEVEL", "log level", ["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info"),
    mode: oneOf("VESTIBULE_MODE", "production (default) or development (dev mailbox and other conveniences; loopback only)", ["development", "production"], "production"),
    publicUrl: url("VESTIBULE_PUBLIC_URL", "public base URL of the API gateway (token issuer)", { default: "http://localhost:8102" }),
    eventPrefix: str("VESTIBULE_EVENT_PREFIX", "prefix for NATS subjects and streams, to share one NATS between deployments", { default: "" }),
    eventRetentionHours: int("VESTIBULE_EVENT_RETENTION_HOURS", "how long the event bus keeps events (consumers must catch up within it)", {
      default: 24 * 7,
      min: 1,
      max: 24 * 365,
    }),
    eventReplicas: int("VESTIBULE_EVENT_REPLICAS", "copies of each JetStream stream: 1 (default) on one NATS server, 3 on a 3-node cluster", {
      default: 1,
      min: 1,
      max: 5,
    }),
    dbPoolSize: int("VESTIBULE_DB_POOL_SIZE", "max Postgres connections of this process", { default: 10, min: 1, max: 200 }),
    metricsPort: int("VESTIBULE_METRICS_PORT", "plain-HTTP port of Prometheus GET /metrics; 0 (default) = not served", { default: 0, min: 0, max: 65535 }),
  };
}

export type CommonConfig = ConfigOf<ReturnType<typeof commonConfigSpec>>;

export interface ServiceContext {
  readonly name: ServiceName;
  readonly schema: string;
  readonly config: CommonConfig;
  readonly log: Logger;
  readonly pool: Pool;
  readonly bus: EventBus;
  readonly outbox: Outbox;
  readonly secrets: SecretBox;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface ServiceDefinition {
  readonly name: ServiceName;
  /** Folder of `NNNN_*.sql` migrations for the service's schema. */
  readonly migrationsDir: string;
  /** Fully-qualified proto service names registered by `routes` (for health checks). */
  readonly serviceNames: readonly string[];
  routes(router: ConnectRouter, ctx: ServiceContext): void;
  /** Runs after migrations, before SERVING: bootstraps, event consumers. May return a stop function. */
  start?(ctx: ServiceContext): Promise<void | (() => Promise<void>)>;
}

export interface RunningService {
  readonly port: number;
  readonly ctx: ServiceContext;
  readonly relay: RelayHandle;
  readonly server: RpcServer;
  readonly metrics: ProcessMetrics;
  /** Port of GET /metrics, when VESTIBULE_METRICS_PORT is set. */
  readonly metricsPort: number | undefined;
  stop(): Promise<void>;
}

const RUNTIME_MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "migrations");

export function createBus(
  config: Pick<CommonConfig, "natsUrl" | "databaseUrl" | "eventPrefix"> & Partial<Pick<CommonConfig, "eventRetentionHours" | "eventReplicas">>,
  log: Logger,
): EventBus {
  return config.natsUrl
    ? new NatsBus(config.natsUrl, log, config.eventPrefix, config.eventRetentionHours, config.eventReplicas)
    : new PgBus(config.databaseUrl, log, config.eventRetentionHours);
}

/**
 * Builds and starts one service: config → logger → pool → migrations (runtime tables, then the service's) →
 * bus + outbox relay → service start hook → gRPC server → SERVING (then NOT_SERVING while the database does not
 * answer: database-readiness.ts). `stop()` drains in this order in reverse.
 */
export async function startService(
  def: ServiceDefinition,
  options: { env?: Readonly<Record<string, string | undefined>>; schema?: string; log?: Logger } = {},
): Promise<RunningService> {
  const env = options.env ?? process.env;
  const config = readConfig(commonConfigSpec(SERVICES[def.name].port), env);
  assertDevelopmentOnLoopback(config);
  const log = options.log ?? createLogger({ service: def.name, level: config.logLevel });
  const schema = options.schema ?? def.name;
  const pool = createPool({ connectionString: config.databaseUrl, schema, max: config.dbPoolSize, log });
  await migrate(pool, schema, [...readMigrations(RUNTIME_MIGRATIONS, "runtime:"), ...readMigrations(def.migrationsDir)], log);
  const bus = createBus(config, log);
  const outbox = new Outbox(def.name, schema);
  const secrets = new SecretBox(pool, config.masterKeys);
  const ctx: ServiceContext = { name: def.name, schema, config, log, pool, bus, outbox, secrets, env };
  const relay = startOutboxRelay({ pool, connectionString: config.databaseUrl, schema, bus, log, channel: outbox.channel });
  const stopHook = await def.start?.(ctx);
  const metrics = createProcessMetrics(def.name);
  metrics.observePool(pool);
  metrics.observeOutbox(pool, schema);
  metrics.observeConsumers(bus);
  const server = createRpcServer({
    interceptors: [metrics.rpcInterceptor],
    name: def.name,
    routes: (router) => def.routes(router, ctx),
    serviceSecret: config.serviceSecret,
    acceptV1ServiceTokens: config.acceptV1ServiceTokens === "true",
    log,
    serviceNames: def.serviceNames,
  });
  const port = await server.listen(config.port, config.host);
  const metricsServer = config.metricsPort > 0 ? await serveMetrics(metrics.registry, config.metricsPort, config.host) : undefined;
  server.health.set(ServingStatus.SERVING);
  const stopFollowingDatabase = followDatabase(pool, server.health, log);
  log.info({ port, bus: bus.kind, schema }, `${def.name} service serving`);
  let stopping: Promise<void> | undefined;
  return {
    port,
    ctx,
    relay,
    server,
    metrics,
    metricsPort: metricsServer?.port,
    stop() {
      stopping ??= (async () => {
        stopFollowingDatabase();
        await server.close();
        await metricsServer?.close();
        if (stopHook) await stopHook().catch((err) => log.warn({ err }, "stop hook failed"));
        await relay.stop();
        await bus.close();
        await pool.end();
        log.info(`${def.name} service stopped`);
      })();
      return stopping;
    },
  };
}

/** Entry point of a service process: start, and stop gracefully on SIGTERM/SIGINT. */
export async function runMain(def: ServiceDefinition): Promise<void> {
  let running: RunningService;
  let tracing: Tracing | undefined;
  try {
    tracing = await startTracing(def.name);
    running = await startService(def);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${def.name}: ${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${def.name}: failed to start: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  }
  const shutdown = (signal: string) => {
    running.ctx.log.info({ signal }, "shutting down");
    running
      .stop()
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (err) => {
          running.ctx.log.error({ err }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}
