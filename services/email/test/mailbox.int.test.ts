import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { newId } from "@vestibule/shared/ids";
import { randomCode } from "@vestibule/shared/secrets";
import { shouldRunNatsTests, testNatsUrl, uniqueEventPrefix } from "@vestibule/shared/testing";
import { extractCode, listMailbox, waitForMail, type MailboxMessage } from "../../../deploy/src/dev-mailbox.ts";
import { startEmailStack, unique, waitFor, type EmailStack } from "./support.ts";

const runNats = await shouldRunNatsTests();
const subjects = (messages: readonly MailboxMessage[]) => messages.map((m) => m.subject);

/** The same scenario on each bus. */
function mailboxScenario(bus: string, extraEnv: () => Record<string, string>) {
  describe(`e-mail requests on the ${bus} bus, delivered to the dev mailbox`, () => {
    let stack: EmailStack;
    let projectId: string;
    beforeAll(async () => {
      stack = await startEmailStack(extraEnv());
      projectId = await stack.newProject({}, "Acme");
    });
    afterAll(async () => {
      await stack?.stop();
    });

    const waitFor_ = (to: string, predicate?: (m: MailboxMessage) => boolean) => waitForMail({ ...stack.mailboxRpc, to, predicate, timeoutMs: 20_000 });

    it("renders a system e-mail with the project's template, sends it over SMTP and the dev mailbox receives it", async () => {
      const userId = newId();
      const code = randomCode(45);
      const link = `https://app.example/handler/email-verification?after_auth_return_to=%2F&code=${code}`;
      const to = `Alice.${unique()}@Example.COM`;
      const eventId = await stack.request({
        projectId,
        to: ` ${to} `,
        subject: "fallback subject",
        html: "<p>fallback</p>",
        text: "fallback",
        template: "email_verification",
        notificationCategory: "Transactional",
        userId,
        variablesJson: JSON.stringify({ link }),
      });

      const before = Date.now();
      // The mailbox has the message as soon as its SMTP server accepted it; the record says "sent" right after.
      const mail = await waitFor_(to, (m) => m.status === "sent");
      // The project's (seeded) template, not the producer's fallback body.
      expect(mail).toMatchObject({ projectId, to: [to.toLowerCase()], subject: "Verify your email at Acme", template: "email_verification", status: "sent", error: "", userId });
      expect(mail.from).toBe('"Acme" <noreply@vestibule.localhost>');
      expect(mail.html).toContain("<html");
      expect(mail.html).toContain("Verify my e-mail");
      expect(mail.html).toContain(`href="${link.replace(/&/g, "&amp;")}"`);
      expect(mail.text).toContain(link);
      expect(Number(mail.createdAtMillis)).toBeGreaterThan(before - 60_000);
      expect(extractCode(mail)).toBe(code);

      const { rows } = await stack.email.ctx.pool.query(`SELECT event_id, notification_category, attempts, sent_at, status, sender_config FROM emails WHERE id = $1`, [
        mail.emailId,
      ]);
      expect(rows[0]).toMatchObject({ event_id: eventId, notification_category: "Transactional", attempts: 1, status: "sent", sender_config: { type: "shared" } });
      expect(rows[0].sent_at).toBeInstanceOf(Date);
      const { emails } = await stack.emails.listSentEmails({ projectId });
      expect(emails.find((e) => e.id === mail.emailId)).toMatchObject({ status: "sent", subject: "Verify your email at Acme", attempts: 1, senderConfig: { type: "shared" } });
    });

    it("also takes requests from the teams service (the same wire shape) and from the RequestEmail RPC", async () => {
      const to = `invitee.${unique()}@example.com`;
      await stack.request(
        { projectId, to, template: "team_invitation", variablesJson: JSON.stringify({ team_display_name: "Rocket", link: "https://app.example/join?code=x" }) },
        "teams_permissions",
      );
      const mail = await waitFor_(to);
      expect(mail.subject).toBe("You have been invited to join Rocket");
      expect(mail.text).toContain("https://app.example/join?code=x");
      const rpcTo = `rpc.${unique()}@example.com`;
      const { emailId } = await stack.emails.requestEmail({ projectId, to: rpcTo, subject: "Hello", text: "plain text body" });
      const viaRpc = await waitFor_(rpcTo);
      expect(viaRpc).toMatchObject({ emailId, subject: "Hello", text: "plain text body\n" });
    });

    it("a new project's first e-mails, requested at once, all find its seeded templates", async () => {
      const fresh = await stack.newProject({}, "Fresh");
      const tos = Array.from({ length: 10 }, (_, i) => `burst${i}.${unique()}@example.com`);
      await Promise.all(tos.map((to) => stack.emails.requestEmail({ projectId: fresh, to, template: "password_reset", variablesJson: '{"link":"https://x.example/?code=1"}' })));
      for (const to of tos) expect((await waitFor_(to)).subject).toBe("Reset your password at Fresh");
    });

    it("records one message per event, however often the event is delivered", async () => {
      const to = `bob.${unique()}@example.com`;
      const eventId = await stack.request({ projectId, to, subject: "first", text: "hello" });
      await waitFor_(to);
      await stack.republish(eventId);
      await stack.republish(eventId, newId());
      await stack.email.ctx.pool.query(`DELETE FROM processed_events WHERE event_id = $1`, [eventId]);
      await stack.republish(eventId, newId());
      // Consumption is in order, so once a later event is delivered, the redeliveries were handled.
      await stack.request({ projectId, to, subject: "sentinel", text: "after the redeliveries" });
      await waitFor_(to, (m) => m.subject === "sentinel");
      expect(subjects(await listMailbox({ ...stack.mailboxRpc, to }))).toEqual(["sentinel", "first"]);
      const { rows } = await stack.email.ctx.pool.query(`SELECT count(*)::int AS n FROM emails WHERE event_id = $1`, [eventId]);
      expect(rows[0].n).toBe(1);
    });

    it("lists newest first, filtered by project and by recipient", async () => {
      const pB = await stack.newProject({}, "Beta");
      const carol = `carol.${unique()}@example.com`;
      const dave = `dave.${unique()}@example.com`;
      for (const [p, to, subject] of [
        [projectId, carol, "m1"],
        [projectId, dave, "m2"],
        [pB, carol, "m3"],
        [projectId, carol, "m4"],
      ] as const) {
        await stack.request({ projectId: p, to, subject, text: subject });
        await waitFor_(to, (m) => m.subject === subject);
      }
      expect(subjects(await listMailbox({ ...stack.mailboxRpc, to: ` ${carol.toUpperCase()}` }))).toEqual(["m4", "m3", "m1"]);
      expect(subjects(await listMailbox({ ...stack.mailboxRpc, projectId, to: carol }))).toEqual(["m4", "m1"]);
      expect(subjects(await listMailbox({ ...stack.mailboxRpc, projectId: pB, to: dave }))).toEqual([]);
      expect(subjects(await listMailbox({ ...stack.mailboxRpc, projectId: pB }))).toEqual(["m3"]);
      expect(subjects(await listMailbox({ ...stack.mailboxRpc, limit: 1 }))).toEqual(["m4"]);
      const negative = await stack.mailbox.listMailboxMessages({ limit: -1 }).catch((e: unknown) => e);
      expect((negative as ConnectError).code).toBe(Code.InvalidArgument);
    });

    it("records a request that cannot be sent as failed, and keeps consuming after it", async () => {
      const erin = `erin.${unique()}@example.com`;
      await stack.request({ projectId, to: "", subject: "to no one", text: "x" });
      await stack.request({ projectId, to: "not-an-address", subject: "to nowhere", text: "x" });
      await stack.request({ projectId: newId(), to: erin, subject: "unknown project", text: "x", template: "password_reset" });
      await stack.request({ projectId, to: erin, subject: "fine", text: "x" });
      expect((await waitFor_(erin)).subject).toBe("fine");
      const { emails } = await stack.emails.listSentEmails({ projectId });
      const nowhere = emails.find((e) => e.subject === "to nowhere")!;
      expect(nowhere).toMatchObject({ status: "failed", to: ["not-an-address"], sentAtMillis: 0n });
      expect(nowhere.error).toContain('invalid recipient address "not-an-address"');
      expect(emails.find((e) => e.subject === "to no one")!.error).toContain("no recipient address");
      // The unknown project's e-mail failed too (permanently), and nothing reached the mailbox for it.
      const { rows } = await stack.email.ctx.pool.query(`SELECT status, error FROM emails WHERE subject = 'unknown project'`);
      expect(rows[0].status).toBe("failed");
      expect(rows[0].error).toMatch(/project does not exist/);
      expect(subjects(await listMailbox({ ...stack.mailboxRpc, to: erin }))).toEqual(["fine"]);
    });

    it("falls back to the producer's body when the project's template does not render", async () => {
      const p = await stack.newProject({}, "Broken");
      const { templates } = await stack.templates.listEmailTemplates({ projectId: p });
      const reset = templates.find((t) => t.type === "password_reset")!;
      // Saved straight into the table: the API refuses templates that do not render.
      await stack.email.ctx.pool.query(`UPDATE email_templates SET tsx_source = $1 WHERE project_id = $2 AND id = $3`, [
        "export function EmailTemplate() { throw new Error('boom'); }",
        p,
        reset.id,
      ]);
      const to = `frank.${unique()}@example.com`;
      await stack.request({ projectId: p, to, subject: "Reset (fallback)", text: "fallback https://x.example/?code=1", template: "password_reset", variablesJson: '{"link":"x"}' });
      const mail = await waitFor_(to);
      expect(mail.subject).toBe("Reset (fallback)");
      expect(mail.text).toContain("fallback https://x.example/?code=1");
      // Without a fallback body, the e-mail fails with the rendering error.
      const to2 = `gina.${unique()}@example.com`;
      await stack.request({ projectId: p, to: to2, template: "password_reset", variablesJson: '{"link":"x"}' });
      const failed = await waitFor(async () => (await stack.emails.listSentEmails({ projectId: p })).emails.find((e) => e.to[0] === to2));
      expect(failed.status).toBe("failed");
      expect(failed.error).toBe("Cannot send this e-mail: the project's password_reset template failed to render: boom.");
    });
  });
}

mailboxScenario("embedded Postgres", () => ({}));

describe.skipIf(!runNats)("NATS JetStream", () => {
  mailboxScenario("NATS JetStream", () => ({ NATS_URL: testNatsUrl(), VESTIBULE_EVENT_PREFIX: uniqueEventPrefix() }));
});

describe("e-mail service in production mode", () => {
  let stack: EmailStack;
  beforeAll(async () => {
    stack = await startEmailStack({ VESTIBULE_MODE: "production" });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("runs no dev mailbox; shared-sender mail fails without a configured shared server", async () => {
    const projectId = await stack.newProject();
    const err = await stack.mailbox.listMailboxMessages({}).catch((e: unknown) => e);
    expect((err as ConnectError).code).toBe(Code.FailedPrecondition);
    const to = `henry.${unique()}@example.com`;
    await stack.request({ projectId, to, subject: "Reset your password", text: "…", template: "password_reset", variablesJson: '{"link":"https://x.example"}' });
    const mail = await waitFor(async () => (await stack.emails.listSentEmails({ projectId })).emails.find((e) => e.to[0] === to && e.status !== "queued"));
    expect(mail).toMatchObject({ status: "failed", subject: "Reset your password at Test Project", senderConfig: { type: "shared" } });
    expect(mail.error).toMatch(/No shared e-mail server is configured/);
  });
});
