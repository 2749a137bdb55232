import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { createLocalJWKSet, jwtVerify, type JWTPayload, type ProtectedHeaderParameters } from "jose";
import { PasswordService } from "@vestibule/proto/auth/v1/password_service";
import { SessionService } from "@vestibule/proto/auth/v1/session_service";
import { VerificationService } from "@vestibule/proto/auth/v1/verification_service";
import { MailboxService, type MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { ContactChannelService } from "@vestibule/proto/identity/v1/contact_channel_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { emailService } from "@vestibule/email";
import { teamsPermissionsService } from "@vestibule/teams-permissions";
import { identityService } from "@vestibule/identity";
import { createPool, type Pool } from "@vestibule/shared/db";
import { fromConnectError } from "@vestibule/shared/errors";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, extractCode, uniqueEventPrefix, waitForMail, type TestDatabase } from "@vestibule/shared/testing";
import { authService } from "../src/server.ts";

export { failure, rpcError, waitFor } from "@vestibule/shared/testing";

const log = createLogger({ service: "test", level: (process.env.TEST_LOG_LEVEL as "silent" | undefined) ?? "silent" });

export const PUBLIC_URL = "http://localhost:8102";

export interface AuthStack {
  readonly db: TestDatabase;
  readonly env: Record<string, string>;
  readonly identity: RunningService;
  readonly auth: RunningService;
  readonly email: RunningService;
  /** Present when started with `teams: true`. */
  readonly teams?: RunningService;
  /** A pool on the auth schema, for asserting rows. */
  readonly authDb: Pool;
  readonly sessions: Client<typeof SessionService>;
  readonly passwords: Client<typeof PasswordService>;
  readonly verification: Client<typeof VerificationService>;
  readonly users: Client<typeof UserService>;
  readonly channels: Client<typeof ContactChannelService>;
  readonly projects: Client<typeof ProjectService>;
  readonly mailbox: Client<typeof MailboxService>;
  /** A new project; `config` is the contract's admin config update (e.g. `{sign_up_enabled: false}`). */
  newProject(config?: Record<string, unknown>, override?: Record<string, unknown>): Promise<string>;
  /** Waits for an e-mail to `to` recorded by the e-mail service (newest first) matching `predicate`. */
  waitForMail(to: string, predicate?: (m: MailboxMessage) => boolean, timeoutMs?: number): Promise<MailboxMessage>;
  stop(): Promise<void>;
}

/**
 * The real identity, auth and e-mail services in this process on a fresh database (real gRPC over h2c, real
 * Postgres; the embedded Postgres event bus, or NATS JetStream with `natsUrl`). `authEnv` adds settings for the auth
 * service only. With `teams` the teams-permissions service runs too (`teams` on the stack); without it the auth
 * service's teams-permissions client points at a closed port, so nothing reaches a teams service running elsewhere.
 */
export async function startAuthStack(authEnv: Record<string, string> = {}, opts: { natsUrl?: string; teams?: boolean } = {}): Promise<AuthStack> {
  const db = await createTestDatabase();
  const env: Record<string, string> = {
    ...(opts.natsUrl ? { NATS_URL: opts.natsUrl, VESTIBULE_EVENT_PREFIX: uniqueEventPrefix() } : {}),
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    VESTIBULE_MODE: "development", // tests and benchmarks use the development conveniences (dev mailbox)
    VESTIBULE_PUBLIC_URL: PUBLIC_URL,
    LOG_LEVEL: "silent",
    // Small pools: two test files run at once on a PostgreSQL that may allow only 100 connections.
    VESTIBULE_DB_POOL_SIZE: "4",
    PORT: "0",
  };
  const identity = await startService(identityService, { env, log });
  env.VESTIBULE_IDENTITY_URL = `http://127.0.0.1:${identity.port}`;
  const email = await startService(emailService, { env, log });
  env.VESTIBULE_EMAIL_URL = `http://127.0.0.1:${email.port}`;
  let teams: RunningService | undefined;
  if (opts.teams) {
    teams = await startService(teamsPermissionsService, { env, log });
    env.VESTIBULE_TEAMS_PERMISSIONS_URL = `http://127.0.0.1:${teams.port}`;
  } else {
    env.VESTIBULE_TEAMS_PERMISSIONS_URL = "http://127.0.0.1:1";
  }
  const auth = await startService(authService, { env: { ...env, ...authEnv }, log });
  env.VESTIBULE_AUTH_URL = `http://127.0.0.1:${auth.port}`;
  const rpc = (baseUrl: string) => ({ baseUrl, caller: "test", secret: env.VESTIBULE_SERVICE_SECRET!, timeoutMs: 60_000 });
  const authRpc = rpc(env.VESTIBULE_AUTH_URL);
  const identityRpc = rpc(env.VESTIBULE_IDENTITY_URL);
  const projects = createServiceClient(ProjectService, identityRpc);
  const mailbox = createServiceClient(MailboxService, rpc(env.VESTIBULE_EMAIL_URL));
  const authDb = createPool({ connectionString: db.url, schema: "auth", max: 4 });
  return {
    db,
    env,
    identity,
    auth,
    email,
    teams,
    authDb,
    sessions: createServiceClient(SessionService, authRpc),
    passwords: createServiceClient(PasswordService, authRpc),
    verification: createServiceClient(VerificationService, authRpc),
    users: createServiceClient(UserService, identityRpc),
    channels: createServiceClient(ContactChannelService, identityRpc),
    projects,
    mailbox,
    async newProject(config = {}, override) {
      const { project } = await projects.createProject({ displayName: "Test Project", configUpdateJson: JSON.stringify(config) });
      if (override) await projects.updateConfigOverride({ projectId: project!.id, configOverrideJson: JSON.stringify(override) });
      return project!.id;
    },
    waitForMail(to, predicate, timeoutMs) {
      return waitForMail(mailbox, { to, predicate, timeoutMs });
    },
    async stop() {
      await authDb.end();
      await auth.stop();
      await teams?.stop();
      await email.stop();
      await identity.stop();
      await db.drop();
    },
  };
}

/** The code in an e-mail's link (`?code=<45>`). */
export const codeFromMail = (mail: MailboxMessage): string => extractCode(mail);

/** Verifies an access token with the project's published JWKS (both audiences) the way a verifier would. */
export async function verifyAccessToken(
  stack: AuthStack,
  projectId: string,
  token: string,
  opts: { anonymous?: boolean } = {},
): Promise<{ payload: JWTPayload & Record<string, unknown>; protectedHeader: ProtectedHeaderParameters }> {
  const res = await stack.sessions.getVerificationKeys({ projectId, includeAnonymous: true });
  const jwks = JSON.parse(opts.anonymous ? res.anonymousJwksJson : res.jwksJson);
  const issuer = opts.anonymous ? `${PUBLIC_URL}/api/v1/projects-anonymous-users/${projectId}` : `${PUBLIC_URL}/api/v1/projects/${projectId}`;
  const audience = opts.anonymous ? `${projectId}:anon` : projectId;
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), { algorithms: ["ES256"], issuer, audience });
  return { payload: payload as JWTPayload & Record<string, unknown>, protectedHeader };
}

export const CALLBACK = "http://localhost:3000/handler/email-verification";

/** "ok" when the call succeeds, else what `failure` gives (for polling until a call starts failing). */
export async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    const e = fromConnectError(err);
    if (!e) throw err;
    return "code" in e ? e.code : `${e.httpStatus} ${e.message}`;
  }
}
