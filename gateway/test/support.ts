import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { readConfig } from "@vestibule/shared/config";
import { PgBus } from "@vestibule/shared/events";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, type TestDatabase } from "@vestibule/shared/testing";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ApiKeySetService } from "@vestibule/proto/identity/v1/api_key_service";
import { identityService } from "@vestibule/identity";
import { authService } from "@vestibule/auth";
import { emailService } from "@vestibule/email";
import { teamsPermissionsService } from "@vestibule/teams-permissions";
import { vaultService } from "@vestibule/vault";
import { billingService } from "@vestibule/billing";
import { buildGateway, type Gateway } from "../src/app.ts";
import { createServiceClients } from "../src/clients.ts";
import { gatewayConfigSpec } from "../src/config.ts";
import { noTeamAccess, type TeamAccess } from "../src/auth/team-access.ts";

export interface ProjectKeys {
  readonly projectId: string;
  readonly publishableClientKey: string;
  readonly secretServerKey: string;
  readonly superSecretAdminKey: string;
}

export interface Stack {
  readonly url: string;
  readonly demo: ProjectKeys;
  readonly internal: ProjectKeys;
  readonly db: TestDatabase;
  readonly identity: RunningService;
  /** Present when started with `auth: true`. */
  readonly auth?: RunningService;
  readonly email?: RunningService;
  /** Present when started with `teams: true`. */
  readonly teams?: RunningService;
  /** Present when started with `vault: true`. */
  readonly vault?: RunningService;
  /** Present when started with `billing: true`. */
  readonly billing?: RunningService;
  readonly gateway: Gateway;
  readonly env: Record<string, string>;
  /** A second gateway replica on the same services and bus (for cache-invalidation tests). */
  startGatewayReplica(): Promise<{ url: string; close(): Promise<void> }>;
  stop(): Promise<void>;
}

const log = createLogger({ service: "test", level: (process.env.TEST_LOG_LEVEL as "silent" | undefined) ?? "silent" });

/**
 * A real stack for gateway contract tests: a fresh database, the identity service in this process (real gRPC over
 * h2c, real Postgres, embedded Postgres event bus), the gateway listening on a free port, and a demo project with
 * keys minted through the identity RPCs, the way `npm start` does it.
 */
export interface StackOptions {
  /** Also run the auth and e-mail services (sign-in, sessions, codes). */
  readonly auth?: boolean;
  /** Also run the vault service (data vault). */
  readonly vault?: boolean;
  /** Also run the billing service (payments). */
  readonly billing?: boolean;
  /**
   * Teams and team permissions. `true` runs the teams-permissions service (teams, memberships, invitations,
   * permissions, project ownership, and the gateway's TeamAccess backed by it); a TeamAccess object is a stand-in
   * directory for the gateway's team checks without that service. Default: none (`noTeamAccess`), with the gateway's
   * teams-permissions client pointed at a closed port, so nothing reaches a teams service running elsewhere.
   */
  readonly teams?: boolean | TeamAccess;
  /**
   * Whether the gateway listens to events (default true). Without them its caches change only through its own
   * requests: tests of read-your-writes use that to tell the gateway's own invalidation from an event's.
   */
  readonly gatewayEvents?: boolean;
  /** More environment for every service and the gateway (e.g. `{ VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT: "off" }`). */
  readonly env?: Record<string, string>;
  /**
   * More environment for the billing service only: for example its own NATS bus, where identity's events never reach
   * it, so that its cached configuration changes only through what callers tell it (read-your-writes tests).
   */
  readonly billingEnv?: Record<string, string>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const db = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    VESTIBULE_MODE: "development", // the contract tests use the development conveniences (dev mailbox, override key)
    VESTIBULE_EGRESS_ALLOW: "127.0.0.0/8", // the projects' own SMTP servers of the tests run on loopback
    LOG_LEVEL: "silent",
    PORT: "0",
    // A stack runs up to five processes' worth of pools in one test process, and test files run two at a time on
    // one Postgres (max_connections 100 by default): small pools keep a stack near 40 connections instead of 60.
    VESTIBULE_DB_POOL_SIZE: "4",
    ...options.env,
  };
  const identity = await startService(identityService, { env, log });
  const identityUrl = `http://127.0.0.1:${identity.port}`;
  env.VESTIBULE_IDENTITY_URL = identityUrl;
  // Before auth, which asks it who manages a team's API keys: the URL must be known when auth starts.
  let teams: RunningService | undefined;
  if (options.teams === true) {
    teams = await startService(teamsPermissionsService, { env, log });
    env.VESTIBULE_TEAMS_PERMISSIONS_URL = `http://127.0.0.1:${teams.port}`;
  } else {
    env.VESTIBULE_TEAMS_PERMISSIONS_URL = "http://127.0.0.1:1";
  }
  let auth: RunningService | undefined;
  let email: RunningService | undefined;
  if (options.auth) {
    auth = await startService(authService, { env, log });
    env.VESTIBULE_AUTH_URL = `http://127.0.0.1:${auth.port}`;
    email = await startService(emailService, { env, log });
    env.VESTIBULE_EMAIL_URL = `http://127.0.0.1:${email.port}`;
  }
  let vault: RunningService | undefined;
  if (options.vault) {
    vault = await startService(vaultService, { env, log });
    env.VESTIBULE_VAULT_URL = `http://127.0.0.1:${vault.port}`;
  }
  let billing: RunningService | undefined;
  if (options.billing) {
    billing = await startService(billingService, { env: { ...env, ...options.billingEnv }, log });
    env.VESTIBULE_BILLING_URL = `http://127.0.0.1:${billing.port}`;
  }
  const gatewayEnv = { ...env };

  async function launchGateway() {
    const config = readConfig(gatewayConfigSpec, gatewayEnv);
    const bus = new PgBus(db.url, log);
    // With the service running the gateway uses its own TeamAccess backed by it; otherwise the given stand-in or none.
    const teamAccess = options.teams === true ? undefined : options.teams || noTeamAccess;
    const gateway = await buildGateway({ config, clients: createServiceClients(config), log, bus: options.gatewayEvents === false ? undefined : bus, teams: teamAccess });
    await gateway.app.listen({ port: 0, host: "127.0.0.1" });
    const url = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
    return { gateway, url, close: async () => { await gateway.close(); await bus.close(); } };
  }

  const main = await launchGateway();
  const rpc = { baseUrl: identityUrl, caller: "test", secret: env.VESTIBULE_SERVICE_SECRET! };
  const projects = createServiceClient(ProjectService, rpc);
  const keySets = createServiceClient(ApiKeySetService, rpc);
  const { project } = await projects.createProject({
    displayName: "Demo Project",
    configUpdateJson: JSON.stringify({ allow_localhost: true, magic_link_enabled: true, client_team_creation_enabled: true }),
  });
  async function keysFor(projectId: string): Promise<ProjectKeys> {
    const { apiKeySet } = await keySets.createApiKeySet({
      projectId,
      description: "test keys",
      hasPublishableClientKey: true,
      hasSecretServerKey: true,
      hasSuperSecretAdminKey: true,
    });
    return {
      projectId,
      publishableClientKey: apiKeySet!.publishableClientKey,
      secretServerKey: apiKeySet!.secretServerKey,
      superSecretAdminKey: apiKeySet!.superSecretAdminKey,
    };
  }
  const demo = await keysFor(project!.id);
  const internal = await keysFor("internal");
  const replicas: { close(): Promise<void> }[] = [];

  return {
    url: main.url,
    demo,
    internal,
    db,
    identity,
    auth,
    email,
    teams,
    vault,
    billing,
    gateway: main.gateway,
    env,
    async startGatewayReplica() {
      const r = await launchGateway();
      replicas.push(r);
      return { url: r.url, close: r.close };
    },
    async stop() {
      await Promise.all(replicas.map((r) => r.close()));
      await main.close();
      await teams?.stop();
      await vault?.stop();
      await billing?.stop();
      await email?.stop();
      await auth?.stop();
      await identity.stop();
      await db.drop();
    },
  };
}

export type AccessType = "client" | "server" | "admin";

/** Contract headers for a project's key of the given access type. */
export function headersFor(keys: ProjectKeys, type: AccessType, prefix = "x-stack-"): Record<string, string> {
  const h: Record<string, string> = { [`${prefix}project-id`]: keys.projectId, [`${prefix}access-type`]: type };
  if (type === "client") h[`${prefix}publishable-client-key`] = keys.publishableClientKey;
  if (type === "server") h[`${prefix}secret-server-key`] = keys.secretServerKey;
  if (type === "admin") h[`${prefix}super-secret-admin-key`] = keys.superSecretAdminKey;
  return h;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

export async function call(stackOrUrl: Stack | string, method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown; rawBody?: string; contentType?: string } = {}): Promise<ApiResponse> {
  const base = typeof stackOrUrl === "string" ? stackOrUrl : stackOrUrl.url;
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.rawBody !== undefined) {
    body = opts.rawBody;
    headers["content-type"] = opts.contentType ?? "application/json";
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = opts.contentType ?? "application/json";
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Asserts the shape of a known-error response: status, body code and the known-error header under both prefixes. */
export function expectKnownError(res: ApiResponse, status: number, code: string): void {
  if (res.status !== status || res.json?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text.slice(0, 500)}`);
  }
  if (res.headers.get("x-stack-known-error") !== code) throw new Error(`x-stack-known-error header is ${res.headers.get("x-stack-known-error")}`);
  if (res.headers.get("x-hexclave-known-error") !== code) throw new Error(`x-hexclave-known-error header is ${res.headers.get("x-hexclave-known-error")}`);
}
