import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { EmailRequestedSchema } from "@vestibule/proto/email/v1/email_requested";
import { EmailService } from "@vestibule/proto/email/v1/email_service";
import { MailboxService, type MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { NotificationPreferenceService } from "@vestibule/proto/email/v1/notification_preference_service";
import { EmailTemplateService } from "@vestibule/proto/email/v1/template_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { identityService } from "@vestibule/identity";
import { withTransaction } from "@vestibule/shared/db";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService, type ServiceDefinition } from "@vestibule/shared/service";
import { createTestDatabase, deleteNatsStreams, waitFor as sharedWaitFor, type TestDatabase } from "@vestibule/shared/testing";
import { EMAIL_REQUEST_SOURCES } from "../src/events.ts";
import { emailService } from "../src/server.ts";

export { failure } from "@vestibule/shared/testing";

/** Polls until `fn` gives a value (e-mail delivery gets 15 s). */
export const waitFor = <T>(fn: () => Promise<T | undefined | false>, timeoutMs = 15_000, intervalMs = 50): Promise<T> =>
  sharedWaitFor(fn, timeoutMs, intervalMs);

const log = createLogger({ service: "test", level: "silent" });

export type EmailRequestedInit = MessageInitShape<typeof EmailRequestedSchema>;

/**
 * A stand-in for a producer of e-mail requests (the auth or teams service): the shared runtime (outbox table, relay,
 * the same bus settings) in a scratch schema, with no migrations or routes of its own. Events leave it exactly the way
 * the real producer's do.
 */
function producer(name: "auth" | "teams_permissions"): ServiceDefinition {
  return { name, migrationsDir: join(import.meta.dirname, "no-migrations"), serviceNames: [], routes() {} };
}

export interface EmailStack {
  readonly db: TestDatabase;
  readonly env: Record<string, string>;
  readonly identity: RunningService;
  readonly email: RunningService;
  readonly producers: Record<"auth" | "teams_permissions", RunningService>;
  readonly mailboxRpc: { readonly baseUrl: string; readonly secret: string };
  readonly projects: Client<typeof ProjectService>;
  readonly users: Client<typeof UserService>;
  readonly emails: Client<typeof EmailService>;
  readonly templates: Client<typeof EmailTemplateService>;
  readonly preferences: Client<typeof NotificationPreferenceService>;
  readonly mailbox: Client<typeof MailboxService>;
  /** A new project; `config` is the contract's admin config update (e.g. `{email_config: {...}}`). */
  newProject(config?: Record<string, unknown>, displayName?: string): Promise<string>;
  /** Commits an e-mail request into the producer's outbox and lets the relay publish it; returns the event id. */
  request(payload: EmailRequestedInit, from?: "auth" | "teams_permissions"): Promise<string>;
  /** Publishes an already published event again: same envelope, under `transportId` (default: the event id). */
  republish(eventId: string, transportId?: string, from?: "auth" | "teams_permissions"): Promise<void>;
  /** Waits for a message to `to` in the dev mailbox (newest first) matching `predicate`. */
  waitForMail(to: string, predicate?: (m: MailboxMessage) => boolean, timeoutMs?: number): Promise<MailboxMessage>;
  stop(): Promise<void>;
}

/** Identity and e-mail services in this process on a fresh database (real gRPC, real Postgres, the given bus). */
export async function startEmailStack(extraEnv: Record<string, string> = {}, emailEnv: Record<string, string> = {}): Promise<EmailStack> {
  const db = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    VESTIBULE_MODE: "development", // tests and benchmarks use the development conveniences (dev mailbox)
    VESTIBULE_EGRESS_ALLOW: "127.0.0.0/8", // the projects' own SMTP servers of the tests run on loopback
    PORT: "0",
    LOG_LEVEL: "silent",
    ...extraEnv,
  };
  const identity = await startService(identityService, { env, log });
  env.VESTIBULE_IDENTITY_URL = `http://127.0.0.1:${identity.port}`;
  const email = await startService(emailService, { env: { ...env, VESTIBULE_EMAIL_RENDER_WORKERS: "1", ...emailEnv }, log });
  env.VESTIBULE_EMAIL_URL = `http://127.0.0.1:${email.port}`;
  const producers = {
    auth: await startService(producer("auth"), { env, log, schema: "auth_producer" }),
    teams_permissions: await startService(producer("teams_permissions"), { env, log, schema: "teams_producer" }),
  };
  const rpc = (baseUrl: string) => ({ baseUrl, caller: "test", secret: env.VESTIBULE_SERVICE_SECRET!, timeoutMs: 60_000 });
  const projects = createServiceClient(ProjectService, rpc(env.VESTIBULE_IDENTITY_URL));
  const mailbox = createServiceClient(MailboxService, rpc(env.VESTIBULE_EMAIL_URL));
  const sourceOf = (from: "auth" | "teams_permissions") => EMAIL_REQUEST_SOURCES.find((s) => s.event.type.startsWith(`${from}.`))!;
  return {
    db,
    env,
    identity,
    email,
    producers,
    mailboxRpc: { baseUrl: env.VESTIBULE_EMAIL_URL, secret: env.VESTIBULE_SERVICE_SECRET! },
    projects,
    users: createServiceClient(UserService, rpc(env.VESTIBULE_IDENTITY_URL)),
    emails: createServiceClient(EmailService, rpc(env.VESTIBULE_EMAIL_URL)),
    templates: createServiceClient(EmailTemplateService, rpc(env.VESTIBULE_EMAIL_URL)),
    preferences: createServiceClient(NotificationPreferenceService, rpc(env.VESTIBULE_EMAIL_URL)),
    mailbox,
    async newProject(config = {}, displayName = "Test Project") {
      const { project } = await projects.createProject({ displayName, configUpdateJson: JSON.stringify(config) });
      return project!.id;
    },
    async request(payload, from = "auth") {
      const p = producers[from];
      const id = await withTransaction(p.ctx.pool, (tx) => p.ctx.outbox.enqueue(tx, sourceOf(from).event, payload, { projectId: payload.projectId }));
      await p.relay.flush();
      return id;
    },
    async republish(eventId, transportId = eventId, from = "auth") {
      const p = producers[from];
      const { rows } = await p.ctx.pool.query<{ subject: string; envelope: Buffer }>(`SELECT subject, envelope FROM outbox WHERE id = $1`, [eventId]);
      if (rows.length !== 1) throw new Error(`event ${eventId} is not in the outbox`);
      await p.ctx.bus.publish({ id: transportId, subject: rows[0]!.subject, data: new Uint8Array(rows[0]!.envelope) });
    },
    async waitForMail(to, predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { messages } = await mailbox.listMailboxMessages({ to, projectId: "", limit: 50 });
        const found = messages.find((m) => !predicate || predicate(m));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no e-mail to ${to} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      await email.stop();
      await producers.auth.stop();
      await producers.teams_permissions.stop();
      await identity.stop();
      await db.drop();
      if (env.NATS_URL && env.VESTIBULE_EVENT_PREFIX) await deleteNatsStreams(env.VESTIBULE_EVENT_PREFIX, env.NATS_URL);
    },
  };
}

export const unique = (): string => randomBytes(4).toString("hex");
