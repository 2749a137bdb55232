/**
 * Helpers for integration tests that run the real platform (six service processes + gateway).
 *
 * ```ts
 * const tp = await startTestPlatform();           // fresh database, free ports, demo project + keys
 * await fetch(`${tp.gatewayUrl}/api/v1/projects/current`, { headers: { "x-stack-project-id": tp.projects.demo.project_id, ... } });
 * await tp.stop();                                 // stops the processes and drops the database
 * ```
 * Databases and NATS checks come from "@vestibule/shared/testing" (createTestDatabase, shouldRunNatsTests).
 *
 * Postgres: `DATABASE_URL` names the server (its database is only used to connect; every platform gets its own
 * `vestibule_t_<random>` database). Without it, an embedded Postgres with data under `.vestibule/test-pg` is used,
 * started once for the whole run by deploy/src/vitest-global-setup.ts (which sets DATABASE_URL for the workers).
 */
import { join } from "node:path";
import { createTestDatabase, deleteNatsStreams, testNatsUrl } from "@vestibule/shared/testing";
import { bootstrapProjects, type DevProjects } from "./bootstrap.ts";
import { generateSecrets } from "./local-state.ts";
import { stateDir } from "./paths.ts";
import { startPlatform, type Platform, type PlatformOptions } from "./platform.ts";
import type { LogLevelName } from "./logs.ts";
import { startLocalStripe, type LocalStripe } from "./stripe-local/index.ts";
import { STRIPE_WEBHOOK_PATH } from "./stripe-local/launch.ts";

export const TEST_PG_DIR = join(stateDir, "test-pg");
export const TEST_PG_PORT = 54339;

export interface TestPlatformOptions {
  /**
   * Event bus. "env" (default): NATS_URL when set, else the Postgres-backed bus. "nats": NATS at NATS_URL or
   * nats://127.0.0.1:4222 (check with requireOrSkip("nats") first). "postgres": the Postgres-backed bus.
   */
  bus?: "env" | "nats" | "postgres";
  /** Children's log lines at or above this level are printed. Default VESTIBULE_TEST_LOG or "warn". */
  printLevel?: LogLevelName;
  /**
   * Run a local Stripe-compatible server (free port) for billing, the gateway and the frontends: STRIPE_API_URL,
   * STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_JS_URL; webhooks go to the gateway.
   */
  stripe?: boolean;
  /** Passed through to startPlatform (ports, env, readyTimeoutMs, ...). */
  platform?: Partial<Omit<PlatformOptions, "databaseUrl" | "masterKeys" | "serviceSecret" | "natsUrl">>;
}

export interface TestPlatform {
  readonly gatewayUrl: string;
  readonly projects: DevProjects;
  readonly platform: Platform;
  /** URL of this platform's own database. */
  readonly databaseUrl: string;
  readonly natsUrl: string | undefined;
  /** For authenticated direct calls: createServiceClient(Desc, { baseUrl, caller: "test", secret }). */
  readonly serviceSecret: string;
  readonly masterKeys: string;
  /** The local Stripe server, when started with `stripe: true`. */
  readonly stripe: LocalStripe | undefined;
  /** Stops every process and drops the database. Idempotent. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// The platform

/**
 * Fresh database, all processes on free ports, a demo project and keys for `internal` and demo (as `npm start`
 * makes them). Events go over NATS when NATS_URL is set (see `bus`), each platform with its own subject prefix.
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const bus = options.bus ?? "env";
  const nats = bus === "nats" ? testNatsUrl() : bus === "env" ? process.env.NATS_URL || undefined : undefined;
  const secrets = generateSecrets();
  const db = await createTestDatabase();
  const eventPrefix = options.platform?.eventPrefix ?? `t_${db.name.slice("vestibule_t_".length)}`;
  let platform: Platform | undefined;
  let stripe: LocalStripe | undefined;
  try {
    if (options.stripe) stripe = await startLocalStripe({ webhookSecret: `whsec_test_${db.name}`, retryDelaysMs: [200, 1_000, 3_000] });
    platform = await startPlatform({
      randomPorts: true,
      frontends: false,
      restartOnExit: false,
      logLevel: "info",
      readyTimeoutMs: 60_000,
      ...options.platform,
      // Small pools: two test files run at once on a PostgreSQL that may allow only 100 connections.
      env: {
        VESTIBULE_DB_POOL_SIZE: "4",
        ...(stripe
          ? { STRIPE_API_URL: stripe.url, STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_PUBLISHABLE_KEY: stripe.publishableKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret, STRIPE_JS_URL: stripe.stripeJsUrl }
          : {}),
        ...options.platform?.env,
      },
      databaseUrl: db.url,
      natsUrl: nats,
      eventPrefix,
      masterKeys: secrets.master_keys,
      serviceSecret: secrets.service_secret,
      log: {
        minLevel: options.printLevel ?? (process.env.VESTIBULE_TEST_LOG as LogLevelName | undefined) ?? "warn",
        color: false,
        ...options.platform?.log,
      },
    });
    const { projects } = await bootstrapProjects({
      identityUrl: platform.serviceUrls.identity,
      serviceSecret: secrets.service_secret,
      keyDescription: "Test keys",
    });
    platform.configureFrontends({ internal: projects.internal, handler: projects.demo });
    stripe?.setWebhookUrl(`${platform.gatewayUrl}${STRIPE_WEBHOOK_PATH}`);
    const started = platform;
    let stopping: Promise<void> | undefined;
    return {
      gatewayUrl: started.gatewayUrl,
      projects,
      platform: started,
      databaseUrl: db.url,
      natsUrl: nats,
      serviceSecret: secrets.service_secret,
      masterKeys: secrets.master_keys,
      stripe,
      stop: () => {
        stopping ??= (async () => {
          try {
            await started.stop();
            await stripe?.stop();
          } finally {
            await db.drop();
            if (nats) await deleteNatsStreams(eventPrefix, nats);
          }
        })();
        return stopping;
      },
    };
  } catch (err) {
    await platform?.stop().catch(() => undefined);
    await stripe?.stop().catch(() => undefined);
    await db.drop().catch(() => undefined);
    throw err;
  }
}
