import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { MailboxService, type MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { TeamInvitationService } from "@vestibule/proto/teams_permissions/v1/invitation_service";
import { PermissionDefinitionService } from "@vestibule/proto/teams_permissions/v1/permission_definition_service";
import { PermissionService } from "@vestibule/proto/teams_permissions/v1/permission_service";
import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import { TeamMembershipService } from "@vestibule/proto/teams_permissions/v1/team_membership_service";
import { TeamService } from "@vestibule/proto/teams_permissions/v1/team_service";
import { emailService } from "@vestibule/email";
import { identityService } from "@vestibule/identity";
import { createPool, type Pool } from "@vestibule/shared/db";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, deleteNatsStreams, extractCode, uniqueEventPrefix, waitForMail, type TestDatabase } from "@vestibule/shared/testing";
import { teamsPermissionsService } from "../src/server.ts";

export { failure, rpcError, waitFor } from "@vestibule/shared/testing";

const log = createLogger({ service: "test", level: "silent" });

export interface TeamsStack {
  readonly db: TestDatabase;
  readonly env: Record<string, string>;
  readonly identity: RunningService;
  readonly email: RunningService;
  readonly teamsService: RunningService;
  /** A pool on the teams_permissions schema, for asserting rows. */
  readonly teamsDb: Pool;
  /** A pool on the identity schema. */
  readonly identityDb: Pool;
  readonly teams: Client<typeof TeamService>;
  readonly members: Client<typeof TeamMembershipService>;
  readonly permissions: Client<typeof PermissionService>;
  readonly definitions: Client<typeof PermissionDefinitionService>;
  readonly invitations: Client<typeof TeamInvitationService>;
  readonly users: Client<typeof UserService>;
  readonly projects: Client<typeof ProjectService>;
  readonly mailbox: Client<typeof MailboxService>;
  /** A new project; `config` is the contract's admin config update. */
  newProject(config?: Record<string, unknown>): Promise<string>;
  /** A new user of the project (by server), with an e-mail. */
  newUser(projectId: string, displayName?: string): Promise<string>;
  waitForMail(to: string, predicate?: (m: MailboxMessage) => boolean, timeoutMs?: number): Promise<MailboxMessage>;
  stop(): Promise<void>;
}

/**
 * The real identity, e-mail and teams-permissions services in this process on a fresh database (real gRPC over h2c,
 * real Postgres; the embedded Postgres event bus, or NATS JetStream with `natsUrl` and a unique prefix). `teamsEnv`
 * adds settings for the teams-permissions service only (e.g. VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT).
 */
export async function startTeamsStack(opts: { natsUrl?: string; teamsEnv?: Record<string, string> } = {}): Promise<TeamsStack> {
  const db = await createTestDatabase();
  const prefix = opts.natsUrl ? uniqueEventPrefix() : "";
  const env: Record<string, string> = {
    ...(opts.natsUrl ? { NATS_URL: opts.natsUrl, VESTIBULE_EVENT_PREFIX: prefix } : {}),
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    VESTIBULE_MODE: "development", // tests and benchmarks use the development conveniences (dev mailbox)
    LOG_LEVEL: "silent",
    PORT: "0",
  };
  const identity = await startService(identityService, { env, log });
  env.VESTIBULE_IDENTITY_URL = `http://127.0.0.1:${identity.port}`;
  const email = await startService(emailService, { env, log });
  env.VESTIBULE_EMAIL_URL = `http://127.0.0.1:${email.port}`;
  const teamsService = await startService(teamsPermissionsService, { env: { ...env, ...opts.teamsEnv }, log });
  env.VESTIBULE_TEAMS_PERMISSIONS_URL = `http://127.0.0.1:${teamsService.port}`;
  const rpc = (baseUrl: string) => ({ baseUrl, caller: "test", secret: env.VESTIBULE_SERVICE_SECRET!, timeoutMs: 60_000 });
  const teamsRpc = rpc(env.VESTIBULE_TEAMS_PERMISSIONS_URL);
  const identityRpc = rpc(env.VESTIBULE_IDENTITY_URL);
  const projects = createServiceClient(ProjectService, identityRpc);
  const users = createServiceClient(UserService, identityRpc);
  const mailbox = createServiceClient(MailboxService, rpc(env.VESTIBULE_EMAIL_URL));
  const teamsDb = createPool({ connectionString: db.url, schema: "teams_permissions", max: 4 });
  const identityDb = createPool({ connectionString: db.url, schema: "identity", max: 2 });
  let n = 0;
  return {
    db,
    env,
    identity,
    email,
    teamsService,
    teamsDb,
    identityDb,
    teams: createServiceClient(TeamService, teamsRpc),
    members: createServiceClient(TeamMembershipService, teamsRpc),
    permissions: createServiceClient(PermissionService, teamsRpc),
    definitions: createServiceClient(PermissionDefinitionService, teamsRpc),
    invitations: createServiceClient(TeamInvitationService, teamsRpc),
    users,
    projects,
    mailbox,
    async newProject(config = {}) {
      const { project } = await projects.createProject({ displayName: "Test Project", configUpdateJson: JSON.stringify(config) });
      return project!.id;
    },
    async newUser(projectId, displayName) {
      const { user } = await users.createUser({
        projectId,
        displayName,
        primaryEmail: `u${++n}-${randomBytes(3).toString("hex")}@example.com`,
        primaryEmailAuthEnabled: true,
        signUpMethod: "server",
      });
      return user!.id;
    },
    waitForMail(to, predicate, timeoutMs) {
      return waitForMail(mailbox, { to, predicate, timeoutMs });
    },
    async stop() {
      await teamsDb.end();
      await identityDb.end();
      await teamsService.stop();
      await email.stop();
      await identity.stop();
      await db.drop();
      if (prefix) await deleteNatsStreams(prefix);
    },
  };
}

export const client = (userId: string) => ({ accessType: AccessType.CLIENT, userId });
export const server = { accessType: AccessType.SERVER, userId: "" };

/** The code in an e-mail's link (`?code=<45>`). */
export const codeFromMail = (mail: MailboxMessage): string => extractCode(mail);

