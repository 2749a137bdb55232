import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort, standardConfig, startSilentServer, startTestSmtp } from "./smtp-fixtures.ts";
import { startEmailStack, unique, waitFor, type EmailStack } from "./support.ts";

/**
 * Delivery against SMTP servers that fail on purpose (all local): a server that answers 421 then recovers, one that
 * rejects permanently (550), one that never answers (timeouts), a closed port. Short timeouts and backoff so the
 * retries happen within the test.
 */
let stack: EmailStack;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let silent: Awaited<ReturnType<typeof startSilentServer>>;

beforeAll(async () => {
  smtp = await startTestSmtp();
  silent = await startSilentServer();
  stack = await startEmailStack(
    {},
    {
      VESTIBULE_EMAIL_SMTP_TIMEOUT_MS: "700",
      VESTIBULE_EMAIL_RETRY_BASE_MS: "150",
      VESTIBULE_EMAIL_RETRY_MAX_MS: "300",
      VESTIBULE_EMAIL_MAX_ATTEMPTS: "3",
      VESTIBULE_EMAIL_POLL_MS: "50",
      VESTIBULE_EMAIL_SEND_CONCURRENCY: "4",
      VESTIBULE_EMAIL_PROJECT_CONCURRENCY: "2",
    },
  );
});
afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
  await silent?.close();
});

const sent = async (projectId: string, to: string) => (await stack.emails.listSentEmails({ projectId })).emails.find((e) => e.to[0] === to);

describe("SMTP delivery", () => {
  it("sends through the project's own SMTP server with its login and sender, and records the sender", async () => {
    smtp.mode = "accept";
    const projectId = await stack.newProject(standardConfig(smtp.port));
    const to = `own.${unique()}@example.com`;
    const { emailId } = await stack.emails.requestEmail({ projectId, to, subject: "Via our server", html: "<p>Hi</p>" });
    const mail = await waitFor(async () => ((await sent(projectId, to))?.status === "sent" ? sent(projectId, to) : undefined));
    expect(mail).toMatchObject({
      id: emailId,
      attempts: 1,
      error: "",
      senderConfig: { type: "standard", host: "127.0.0.1", port: smtp.port, username: "user", senderName: "Acme Mail", senderEmail: "noreply@acme.example" },
    });
    expect(Number(mail!.sentAtMillis)).toBeGreaterThan(0);
    const received = smtp.received.find((r) => r.to.includes(to))!;
    expect(received.from).toBe("noreply@acme.example");
    expect(received.raw).toContain("From: Acme Mail <noreply@acme.example>");
    expect(received.raw.toLowerCase()).toContain(`x-vestibule-email-id: ${emailId}`);
    // The password never leaves the e-mail service.
    expect(Object.values(mail!.senderConfig!)).not.toContain("right");
    const { rows } = await stack.email.ctx.pool.query(`SELECT sender_config::text AS c FROM emails WHERE id = $1`, [emailId]);
    expect(rows[0].c).not.toContain("right");
  });

  it("retries a temporary failure with backoff, recording each error, and sends once the server recovers", async () => {
    smtp.mode = "temporary";
    const projectId = await stack.newProject(standardConfig(smtp.port));
    const to = `flaky.${unique()}@example.com`;
    await stack.emails.requestEmail({ projectId, to, subject: "Eventually", text: "body" });
    const retrying = await waitFor(async () => {
      const m = await sent(projectId, to);
      return m && m.attempts >= 2 && m.error ? m : undefined;
    });
    expect(retrying.status).toBe("queued");
    expect(retrying.error).toMatch(/421 Try again later, we are busy/);
    // While queued, the body is stored encrypted; once sent, it is gone.
    const stored = async () => (await stack.email.ctx.pool.query(`SELECT html, text FROM emails WHERE id = $1`, [retrying.id])).rows[0];
    expect((await stored()).text).toMatch(/^vsb1\./);
    smtp.mode = "accept";
    const done = await waitFor(async () => ((await sent(projectId, to))?.status === "sent" ? sent(projectId, to) : undefined));
    expect(done!.error).toBe("");
    expect(done!.attempts).toBeGreaterThanOrEqual(2);
    expect(smtp.received.find((r) => r.to.includes(to))!.raw).toContain("body");
    expect(await stored()).toEqual({ html: null, text: null });
  });

  it("fails a permanent rejection at once and gives up on temporary ones after the last attempt", async () => {
    smtp.mode = "permanent";
    const projectId = await stack.newProject(standardConfig(smtp.port));
    const to = `rejected.${unique()}@example.com`;
    await stack.emails.requestEmail({ projectId, to, subject: "Nope", text: "body" });
    const rejected = await waitFor(async () => ((await sent(projectId, to))?.status === "failed" ? sent(projectId, to) : undefined));
    expect(rejected).toMatchObject({ attempts: 1, sentAtMillis: 0n });
    expect(rejected!.error).toMatch(/550 Mailbox unavailable/);

    const refusedProject = await stack.newProject(standardConfig(await closedPort()));
    const to2 = `refused.${unique()}@example.com`;
    await stack.emails.requestEmail({ projectId: refusedProject, to: to2, subject: "Nobody home", text: "body" });
    const gaveUp = await waitFor(async () => ((await sent(refusedProject, to2))?.status === "failed" ? sent(refusedProject, to2) : undefined));
    expect(gaveUp!.attempts).toBe(3);
    expect(gaveUp!.error).toMatch(/ECONNREFUSED.*\(gave up after 3 attempts\)$/);
    // Wrong credentials are permanent too.
    smtp.mode = "accept";
    const badLogin = await stack.newProject(standardConfig(smtp.port, { password: "wrong" }));
    const to3 = `login.${unique()}@example.com`;
    await stack.emails.requestEmail({ projectId: badLogin, to: to3, subject: "Login", text: "body" });
    const denied = await waitFor(async () => ((await sent(badLogin, to3))?.status === "failed" ? sent(badLogin, to3) : undefined));
    expect(denied!.attempts).toBe(1);
    expect(denied!.error).toMatch(/535/);
  });

  it("a server that never answers holds up only its own project's mail", async () => {
    const slowProject = await stack.newProject(standardConfig(silent.port));
    const fastProject = await stack.newProject({}, "Fast");
    const slowTo = Array.from({ length: 5 }, (_, i) => `slow${i}.${unique()}@example.com`);
    for (const to of slowTo) await stack.emails.requestEmail({ projectId: slowProject, to, subject: "Slow", text: "body" });
    await waitFor(async () => silent.connections() >= 2);
    // Now the slow project's deliveries hang; another project's e-mails still go out at once.
    const started = Date.now();
    const fastTo = Array.from({ length: 4 }, (_, i) => `fast${i}.${unique()}@example.com`);
    for (const to of fastTo) await stack.emails.requestEmail({ projectId: fastProject, to, subject: "Fast", text: "body" });
    for (const to of fastTo) await stack.waitForMail(to, undefined, 5_000);
    expect(Date.now() - started).toBeLessThan(2_500);
    // At most 2 of the slow project's deliveries were in flight at once (the per-project limit).
    const { rows } = await stack.email.ctx.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM emails WHERE project_id = $1 AND lease_until > now()`,
      [slowProject],
    );
    expect(rows[0]!.n).toBeLessThanOrEqual(2);
    // Each slow e-mail times out, is retried, and is finally given up with the timeout as its error.
    const all = await waitFor(
      async () => {
        const { emails } = await stack.emails.listSentEmails({ projectId: slowProject });
        return emails.length === 5 && emails.every((e) => e.status === "failed") ? emails : undefined;
      },
      60_000,
      200,
    );
    for (const e of all) {
      expect(e.attempts).toBe(3);
      expect(e.error).toMatch(/(Greeting never received|Timeout|timed out).*\(gave up after 3 attempts\)$/i);
    }
  }, 90_000);

  it("send-test-email reports the SMTP server's reply, a class for network failures (no addresses), and success", async () => {
    const projectId = await stack.newProject();
    const base = { host: "127.0.0.1", username: "user", password: "right", senderName: "T", senderEmail: "t@acme.example" };
    smtp.mode = "accept";
    expect(await stack.emails.sendTestEmail({ projectId, recipientEmail: "x@example.com", config: { ...base, port: smtp.port } })).toMatchObject({
      success: true,
      errorMessage: "",
    });
    const refused = await stack.emails.sendTestEmail({ projectId, recipientEmail: "x@example.com", config: { ...base, port: await closedPort() } });
    expect(refused.success).toBe(false);
    // Issue 18: the raw socket error ("connect ECONNREFUSED 127.0.0.1:41234") told an owner which internal ports
    // answered; now it is a sentence for the class of failure.
    expect(refused.errorMessage).toBe("The e-mail server refused the connection (ECONNREFUSED).");
    const badLogin = await stack.emails.sendTestEmail({ projectId, recipientEmail: "x@example.com", config: { ...base, port: smtp.port, password: "nope" } });
    expect(badLogin.success).toBe(false);
    expect(badLogin.errorMessage).toMatch(/535 Authentication credentials invalid/);
    smtp.mode = "permanent";
    const rejected = await stack.emails.sendTestEmail({ projectId, recipientEmail: "x@example.com", config: { ...base, port: smtp.port } });
    expect(rejected.errorMessage).toMatch(/550 Mailbox unavailable/);
    smtp.mode = "accept";
  });
});

describe("owner-chosen SMTP hosts on private networks (issue 18)", () => {
  let strict: EmailStack;
  let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
  beforeAll(async () => {
    // No allow-list: loopback is as private as any internal network.
    strict = await startEmailStack({}, { VESTIBULE_EGRESS_ALLOW: "" });
    smtp = await startTestSmtp();
  }, 120_000);
  afterAll(async () => {
    await smtp?.close();
    await strict?.stop();
  });

  it("send-test-email refuses before connecting, and the listening server receives nothing", async () => {
    const projectId = await strict.newProject();
    const res = await strict.emails.sendTestEmail({
      projectId,
      recipientEmail: "x@example.com",
      config: { host: "127.0.0.1", port: smtp.port, username: "user", password: "right", senderName: "T", senderEmail: "t@acme.example" },
    });
    expect(res.success).toBe(false);
    expect(res.errorMessage).toMatch(/^The e-mail server's address is not allowed: 127\.0\.0\.1 resolves to an address on a private or internal network/);
    const viaName = await strict.emails.sendTestEmail({
      projectId,
      recipientEmail: "x@example.com",
      config: { host: "localhost", port: smtp.port, username: "user", password: "right", senderName: "T", senderEmail: "t@acme.example" },
    });
    expect(viaName.errorMessage).toMatch(/not allowed: localhost resolves/);
    expect(smtp.received).toHaveLength(0);
  });
});
