import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { EmailRequestedSchema } from "@vestibule/proto/auth/v1/events";
import { MailboxService } from "@vestibule/proto/email/v1/mailbox_service";
import { withTransaction } from "@vestibule/shared/db";
import { newId } from "@vestibule/shared/ids";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry, randomCode } from "@vestibule/shared/secrets";
import { startService, type RunningService, type ServiceDefinition } from "@vestibule/shared/service";
import { createTestDatabase, deleteNatsStreams, shouldRunNatsTests, testNatsUrl, uniqueEventPrefix, type TestDatabase } from "@vestibule/shared/testing";
import { extractCode, listMailbox, waitForMail, type MailboxMessage } from "../../../deploy/src/dev-mailbox.ts";
import { ConsumedEvents } from "../src/events.ts";
import { emailService } from "../src/server.ts";

const log = createLogger({ service: "test", level: "silent" });
const runNats = await shouldRunNatsTests();

type EmailRequestedInit = MessageInitShape<typeof EmailRequestedSchema>;

/**
 * A stand-in for the auth service as a producer: the shared runtime (outbox table, relay, the same bus settings) in a
 * scratch schema, with no migrations or routes of its own. Events leave it exactly the way the real producer's do.
 */
const authProducer: ServiceDefinition = {
  name: "auth",
  migrationsDir: join(import.meta.dirname, "no-migrations"),
  serviceNames: [],
  routes() {},
};

interface Stack {
  readonly email: RunningService;
  readonly producer: RunningService;
  readonly mailbox: { readonly baseUrl: string; readonly secret: string };
  /** Commits an EmailRequested into the producer's outbox and lets the relay publish it; returns the event id. */
  request(payload: EmailRequestedInit): Promise<string>;
  /** Publishes an already published event again: same envelope, under `transportId` (default: the event id). */
  republish(eventId: string, transportId?: string): Promise<void>;
  stop(): Promise<void>;
}

async function startStack(extraEnv: Record<string, string>): Promise<Stack> {
  const db: TestDatabase = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    PORT: "0",
    LOG_LEVEL: "silent",
    ...extraEnv,
  };
  const email = await startService(emailService, { env, log });
  const producer = await startService(authProducer, { env, log, schema: "auth_producer" });
  return {
    email,
    producer,
    mailbox: { baseUrl: `http://127.0.0.1:${email.port}`, secret: env.VESTIBULE_SERVICE_SECRET! },
    async request(payload) {
      const { pool, outbox } = producer.ctx;
      const id = await withTransaction(pool, (tx) => outbox.enqueue(tx, ConsumedEvents.emailRequested, payload, { projectId: payload.projectId }));
      await producer.relay.flush();
      return id;
    },
    async republish(eventId, transportId = eventId) {
      const { rows } = await producer.ctx.pool.query<{ subject: string; envelope: Buffer }>(`SELECT subject, envelope FROM outbox WHERE id = $1`, [eventId]);
      expect(rows).toHaveLength(1);
      await producer.ctx.bus.publish({ id: transportId, subject: rows[0]!.subject, data: new Uint8Array(rows[0]!.envelope) });
    },
    async stop() {
      await email.stop();
      await producer.stop();
      await db.drop();
      if (env.NATS_URL && env.VESTIBULE_EVENT_PREFIX) await deleteNatsStreams(env.VESTIBULE_EVENT_PREFIX, env.NATS_URL);
    },
  };
}

const unique = () => randomBytes(4).toString("hex");
const subjects = (messages: readonly MailboxMessage[]) => messages.map((m) => m.subject);

/** The same scenario on each bus. */
function mailboxScenario(bus: string, extraEnv: () => Record<string, string>) {
  describe(`e-mail service on the ${bus} bus`, () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack(extraEnv());
    });
    afterAll(async () => {
      await stack?.stop();
    });

    const waitFor = (to: string, predicate?: (m: MailboxMessage) => boolean) =>
      waitForMail({ ...stack.mailbox, to, predicate, timeoutMs: 20_000 });

    it("records a requested e-mail with its fields; in development it is sent at once", async () => {
      const projectId = newId();
      const userId = newId();
      const code = randomCode(45);
      const to = `Alice.${unique()}@Example.COM`;
      const html = `<p><a href="https://app.example/handler/email-verification?after_auth_return_to=%2F&amp;code=${code}">Verify</a></p>`;
      const text = `Verify your e-mail: https://app.example/handler/email-verification?code=${code}\n`;
      const eventId = await stack.request({
        projectId,
        to: ` ${to} `,
        subject: "Verify your e-mail",
        html,
        text,
        template: "email_verification",
        notificationCategory: "Transactional",
        userId,
      });

      const before = Date.now();
      const mail = await waitFor(to);
      expect(mail).toMatchObject({
        projectId,
        to: [to.toLowerCase()],
        subject: "Verify your e-mail",
        html,
        text,
        template: "email_verification",
        status: "sent",
        error: "",
        userId,
      });
      expect(Number(mail.createdAtMillis)).toBeGreaterThan(before - 60_000);
      expect(Number(mail.createdAtMillis)).toBeLessThanOrEqual(Date.now());
      expect(extractCode(mail)).toBe(code);
      expect(extractCode({ text: "", html })).toBe(code);

      const { rows } = await stack.email.ctx.pool.query(
        `SELECT event_id, notification_category, attempts, sent_at, created_at FROM emails WHERE id = $1`,
        [mail.id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ event_id: eventId, notification_category: "Transactional", attempts: 1 });
      expect(rows[0].sent_at).toBeInstanceOf(Date);
      expect(rows[0].sent_at.getTime()).toBeGreaterThanOrEqual(rows[0].created_at.getTime());
    });

    it("records one message per event, however often the event is delivered", async () => {
      const projectId = newId();
      const to = `bob.${unique()}@example.com`;
      const eventId = await stack.request({ projectId, to, subject: "first", text: "hello" });
      await waitFor(to);

      // The relay publishing again (de-duplicated by the bus on the event id) ...
      await stack.republish(eventId);
      // ... a redelivery the bus does not recognise (e.g. after JetStream's duplicate window): processed_events ...
      await stack.republish(eventId, newId());
      // ... and even without its processed_events row (a renamed consumer replaying the stream): the unique event_id.
      await stack.email.ctx.pool.query(`DELETE FROM processed_events WHERE event_id = $1`, [eventId]);
      await stack.republish(eventId, newId());

      // Consumption is in order, so once a later event is recorded, the redeliveries were handled.
      await stack.request({ projectId, to, subject: "sentinel", text: "after the redeliveries" });
      await waitFor(to, (m) => m.subject === "sentinel");
      expect(subjects(await listMailbox({ ...stack.mailbox, to }))).toEqual(["sentinel", "first"]);
      const { rows } = await stack.email.ctx.pool.query(`SELECT count(*)::int AS n FROM emails WHERE event_id = $1`, [eventId]);
      expect(rows[0].n).toBe(1);
    });

    it("lists newest first, filtered by project and by recipient, with a default and a maximum limit", async () => {
      const [pA, pB] = [newId(), newId()];
      const carol = `carol.${unique()}@example.com`;
      const dave = `dave.${unique()}@example.com`;
      await stack.request({ projectId: pA, to: carol, subject: "m1", text: "1" });
      await stack.request({ projectId: pA, to: dave, subject: "m2", text: "2" });
      await stack.request({ projectId: pB, to: carol, subject: "m3", text: "3" });
      await stack.request({ projectId: pA, to: carol, subject: "m4", text: "4" });
      await waitFor(carol, (m) => m.subject === "m4");

      expect(subjects(await listMailbox({ ...stack.mailbox, projectId: pA }))).toEqual(["m4", "m2", "m1"]);
      expect(subjects(await listMailbox({ ...stack.mailbox, to: ` ${carol.toUpperCase()}` }))).toEqual(["m4", "m3", "m1"]);
      expect(subjects(await listMailbox({ ...stack.mailbox, projectId: pA, to: carol }))).toEqual(["m4", "m1"]);
      expect(subjects(await listMailbox({ ...stack.mailbox, projectId: pB, to: dave }))).toEqual([]);
      expect(subjects(await listMailbox({ ...stack.mailbox, projectId: pA, limit: 2 }))).toEqual(["m4", "m2"]);
      expect(subjects(await listMailbox({ ...stack.mailbox, limit: 1 }))).toEqual(["m4"]);

      const client = createServiceClient(MailboxService, { baseUrl: stack.mailbox.baseUrl, caller: "test", secret: stack.mailbox.secret });
      const negative = await client.listMailboxMessages({ limit: -1 }).catch((e: unknown) => e);
      expect(negative).toBeInstanceOf(ConnectError);
      expect((negative as ConnectError).code).toBe(Code.InvalidArgument);

      // Enough messages to see the default (50) and the maximum (500), written straight into the table.
      const pBulk = newId();
      await stack.email.ctx.pool.query(
        `INSERT INTO emails (id, project_id, recipients, subject, text, notification_category, status, attempts, sent_at, created_at)
         SELECT gen_random_uuid(), $1, ARRAY['bulk@example.com'], 'bulk ' || i, 'x', 'Transactional', 'sent', 1, now(),
                now() - make_interval(secs => 1000 - i)
         FROM generate_series(1, 520) AS i`,
        [pBulk],
      );
      const byDefault = await listMailbox({ ...stack.mailbox, projectId: pBulk });
      expect(byDefault).toHaveLength(50);
      expect(byDefault[0]!.subject).toBe("bulk 520");
      expect(byDefault[49]!.subject).toBe("bulk 471");
      expect(await listMailbox({ ...stack.mailbox, projectId: pBulk, limit: 10_000 })).toHaveLength(500);
    });

    it("records a request that cannot be sent as failed, and keeps consuming after it", async () => {
      const projectId = newId();
      const erin = `erin.${unique()}@example.com`;
      await stack.request({ projectId, to: "", subject: "to no one", text: "x" });
      await stack.request({ projectId, to: "not-an-address", subject: "to nowhere", text: "x" });
      await stack.request({ projectId, to: erin, subject: "fine", text: "x" });
      expect((await waitFor(erin)).status).toBe("sent");

      const [fine, nowhere, noOne] = await listMailbox({ ...stack.mailbox, projectId });
      expect(fine).toMatchObject({ subject: "fine", status: "sent" });
      expect(nowhere).toMatchObject({ subject: "to nowhere", status: "failed", to: ["not-an-address"] });
      expect(nowhere!.error).toContain('invalid recipient address "not-an-address"');
      expect(noOne).toMatchObject({ subject: "to no one", status: "failed", to: [] });
      expect(noOne!.error).toContain("no recipient address");
    });
  });
}

mailboxScenario("embedded Postgres", () => ({}));

describe.skipIf(!runNats)("NATS JetStream", () => {
  mailboxScenario("NATS JetStream", () => ({ NATS_URL: testNatsUrl(), VESTIBULE_EVENT_PREFIX: uniqueEventPrefix() }));
});

describe("e-mail service in production mode", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ VESTIBULE_MODE: "production" });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("records a requested e-mail as queued for the SMTP sender", async () => {
    const to = `frank.${unique()}@example.com`;
    await stack.request({ projectId: "internal", to, subject: "Reset your password", text: "…", template: "password_reset" });
    const mail = await waitForMail({ ...stack.mailbox, to, timeoutMs: 20_000 });
    expect(mail).toMatchObject({ projectId: "internal", status: "queued", error: "", template: "password_reset" });
    const { rows } = await stack.email.ctx.pool.query(`SELECT attempts, sent_at FROM emails WHERE id = $1`, [mail.id]);
    expect(rows[0]).toEqual({ attempts: 0, sent_at: null });
  });
});
