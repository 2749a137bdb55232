import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { waitFor } from "@vestibule/shared/testing";
import { closedPort, standardConfig, startTestSmtp } from "../../../../../services/email/test/smtp-fixtures.ts";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { waitForMail } from "../../../teams-support.ts";

let stack: Stack;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
beforeAll(async () => {
  smtp = await startTestSmtp();
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
  await smtp?.close();
});

const admin = () => headersFor(stack.demo, "admin");
const server = () => headersFor(stack.demo, "server");
const client = () => headersFor(stack.demo, "client");
const newEmail = (p = "em") => `${p}-${randomBytes(5).toString("hex")}@example.com`;
const MARKETING = "4f6f8873-3d04-46bd-8bef-18338b1a1b4c";
const TRANSACTIONAL = "7bb82d33-2f54-4a3d-9d23-82739e0d66ef";

const mailFor = (to: string, predicate?: (m: MailboxMessage) => boolean) => waitForMail(stack, to, predicate, 15_000);

/** Polls until `fn` gives a value (e-mail delivery and configuration events get 15 s). */
const until = <T>(fn: () => Promise<T | undefined>): Promise<T> => waitFor(fn, 15_000, 100);

async function createUser(displayName = "Ada") {
  const email = newEmail("user");
  const res = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { primary_email: email, display_name: displayName, primary_email_verified: true } });
  expect(res.status).toBe(201);
  return { id: res.json.id as string, email };
}

async function signedInClient(): Promise<{ headers: Record<string, string>; userId: string }> {
  const email = newEmail("client");
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
    headers: client(),
    body: { email, password: "a good password", verification_callback_url: "http://localhost:3000/handler/email-verification" },
  });
  return { headers: { ...client(), "x-stack-access-token": res.json.access_token }, userId: res.json.user_id };
}

const HOSTILE_LOOP = "export function EmailTemplate() { while (true) {} }";
const TEMPLATE = `import { Subject, NotificationCategory, Text } from "@vestibule/emails";
export function EmailTemplate({ user, variables }) {
  return <><Subject value={"Hello " + (user.displayName ?? "you")} /><NotificationCategory value="Marketing" /><Text>Offer: {variables.offer}</Text></>;
}
EmailTemplate.PreviewVariables = { offer: "preview offer" };`;

describe("e-mail templates, themes and drafts", () => {
  it("lists the seeded system templates; creates and updates templates; refuses hostile code and keeps serving", async () => {
    const list = await call(stack, "GET", "/api/v1/internal/email-templates", { headers: admin() });
    expect(list.status).toBe(200);
    const names = list.json.templates.map((t: { display_name: string }) => t.display_name);
    expect(names).toEqual(["Email Verification", "Password Reset", "Magic Link / OTP", "Team Invitation", "Sign In Invitation"]);
    expect(list.json.templates[0].tsx_source).toContain("export function EmailTemplate");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/email-templates", { headers: server() }), 401, "INSUFFICIENT_ACCESS_TYPE");

    const created = await call(stack, "POST", "/api/v1/internal/email-templates", { headers: admin(), body: { display_name: "Newsletter" } });
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    const patched = await call(stack, "PATCH", `/api/v1/internal/email-templates/${id}`, { headers: admin(), body: { tsx_source: TEMPLATE, theme_id: false } });
    expect(patched.status).toBe(200);
    expect(patched.json.rendered_html).toBe('<p style="font-size:14px;line-height:24px;margin:16px 0">Offer: preview offer</p>');

    const started = Date.now();
    const loop = await call(stack, "PATCH", `/api/v1/internal/email-templates/${id}`, { headers: admin(), body: { tsx_source: HOSTILE_LOOP } });
    expectKnownError(loop, 400, "EMAIL_RENDERING_ERROR");
    expect(loop.json.details.error).toMatch(/^Rendering took longer than \d+ ms\.$/);
    expect(Date.now() - started).toBeLessThan(6_000);
    const escape = await call(stack, "PATCH", `/api/v1/internal/email-templates/${id}`, {
      headers: admin(),
      body: { tsx_source: "export function EmailTemplate() { return process.env.VESTIBULE_SERVICE_SECRET; }" },
    });
    expectKnownError(escape, 400, "EMAIL_RENDERING_ERROR");
    expect(escape.json.error).toBe("Failed to render email with theme: ReferenceError: process is not defined");
    const memory = await call(stack, "PATCH", `/api/v1/internal/email-templates/${id}`, {
      headers: admin(),
      body: { tsx_source: "export function EmailTemplate() { const a = []; for (;;) a.push(new Array(1e5).fill(1)); }" },
    });
    expectKnownError(memory, 400, "EMAIL_RENDERING_ERROR");
    // The refused sources were not saved, and the service answers normally.
    const again = await call(stack, "GET", "/api/v1/internal/email-templates", { headers: admin() });
    const saved = again.json.templates.find((t: { id: string }) => t.id === id);
    expect(saved).toEqual({ id, display_name: "Newsletter", tsx_source: TEMPLATE, theme_id: false });
    expect((await call(stack, "PATCH", `/api/v1/internal/email-templates/${id}`, { headers: admin(), body: { tsx_source: TEMPLATE, theme_id: null } })).status).toBe(200);
    expect((await call(stack, "GET", "/api/v1/internal/email-templates", { headers: admin() })).json.templates.find((t: { id: string }) => t.id === id).theme_id).toBeUndefined();
    expect((await call(stack, "PATCH", `/api/v1/internal/email-templates/${randomUuid()}`, { headers: admin(), body: { tsx_source: TEMPLATE } })).status).toBe(404);
  });

  it("themes: two defaults, create, read, update; a broken theme is refused", async () => {
    const list = await call(stack, "GET", "/api/v1/internal/email-themes", { headers: admin() });
    expect(list.json.themes).toEqual([
      { id: "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac", display_name: "Default Light" },
      { id: "a0172b5d-cff0-463b-83bb-85124697373a", display_name: "Default Dark" },
    ]);
    const { id } = (await call(stack, "POST", "/api/v1/internal/email-themes", { headers: admin(), body: { display_name: "Brand" } })).json;
    const got = await call(stack, "GET", `/api/v1/internal/email-themes/${id}`, { headers: admin() });
    expect(got.json.display_name).toBe("Brand");
    const source = `export function EmailTheme({ children, unsubscribeLink }) { return <html><body><main>{children}</main>{unsubscribeLink && <a href={unsubscribeLink}>unsub</a>}</body></html>; }`;
    expect((await call(stack, "PATCH", `/api/v1/internal/email-themes/${id}`, { headers: admin(), body: { tsx_source: source } })).json).toEqual({ display_name: "Brand" });
    expectKnownError(await call(stack, "PATCH", `/api/v1/internal/email-themes/${id}`, { headers: admin(), body: { tsx_source: "export const x = <div" } }), 400, "EMAIL_RENDERING_ERROR");
    expect((await call(stack, "GET", `/api/v1/internal/email-themes/${id}`, { headers: admin() })).json.tsx_source).toBe(source);
    expect((await call(stack, "GET", `/api/v1/internal/email-themes/${randomUuid()}`, { headers: admin() })).status).toBe(404);
  });

  it("drafts: create, read, list, update", async () => {
    const { id } = (await call(stack, "POST", "/api/v1/internal/email-drafts", { headers: admin(), body: { display_name: "Launch" } })).json;
    const got = await call(stack, "GET", `/api/v1/internal/email-drafts/${id}`, { headers: admin() });
    expect(got.json).toMatchObject({ id, display_name: "Launch", sent_at_millis: null });
    expect(got.json.tsx_source).toContain("EmailTemplate");
    expect((await call(stack, "PATCH", `/api/v1/internal/email-drafts/${id}`, { headers: admin(), body: { display_name: "Launch!", theme_id: false } })).json).toEqual({ ok: "ok" });
    const list = await call(stack, "GET", "/api/v1/internal/email-drafts", { headers: admin() });
    expect(list.json.drafts.find((d: { id: string }) => d.id === id)).toMatchObject({ display_name: "Launch!", theme_id: false, sent_at_millis: null });
  });

  it("render-email: given sources, stored template in no theme, schema errors", async () => {
    const given = await call(stack, "POST", "/api/v1/emails/render-email", {
      headers: admin(),
      body: { template_tsx_source: TEMPLATE, theme_tsx_source: "export function EmailTheme({ children }) { return <section>{children}</section>; }" },
    });
    expect(given.json).toEqual({
      html: '<section><p style="font-size:14px;line-height:24px;margin:16px 0">Offer: preview offer</p></section>',
      subject: "Hello Jane Doe",
      notification_category: "Marketing",
    });
    const templates = (await call(stack, "GET", "/api/v1/internal/email-templates", { headers: admin() })).json.templates;
    const magic = templates.find((t: { display_name: string }) => t.display_name === "Magic Link / OTP");
    const stored = await call(stack, "POST", "/api/v1/emails/render-email", { headers: admin(), body: { template_id: magic.id, theme_id: false } });
    expect(stored.json.subject).toBe("Sign in to Demo Project: Your code is 3A7K9Q");
    expect(stored.json.html).not.toContain("<html");
    expectKnownError(await call(stack, "POST", "/api/v1/emails/render-email", { headers: admin(), body: {} }), 400, "SCHEMA_ERROR");
    expectKnownError(
      await call(stack, "POST", "/api/v1/emails/render-email", { headers: admin(), body: { template_tsx_source: "export function EmailTemplate() { return <b>; }" } }),
      400,
      "EMAIL_RENDERING_ERROR",
    );
  });
});

describe("sending e-mail", () => {
  it("send-email needs the project's own SMTP server; then sends HTML, templates and drafts with per-user results", async () => {
    const user = await createUser("Grace");
    const html = await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [user.id], html: "<p>hi</p>", subject: "Hi" } });
    expectKnownError(html, 400, "REQUIRES_CUSTOM_EMAIL_SERVER");

    const projects = createServiceClient(ProjectService, { baseUrl: stack.env.VESTIBULE_IDENTITY_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify(standardConfig(smtp.port)) });
    const noEmailUser = (await call(stack, "POST", "/api/v1/users", { headers: server(), body: { display_name: "No mail" } })).json.id as string;

    const sent = await until(async () => {
      const r = await call(stack, "POST", "/api/v1/emails/send-email", {
        headers: server(),
        body: { user_ids: [user.id, noEmailUser], html: "<p>Hello <b>there</b></p>", subject: "Plain hello" },
      });
      return r.status === 200 ? r : undefined;
    });
    expect(sent.json).toEqual({ results: [{ user_id: user.id, user_email: user.email }, { user_id: noEmailUser }] });
    const received = await until(async () => smtp.received.find((m) => m.to.includes(user.email) && m.raw.includes("Plain hello")));
    expect(received.decoded).toContain("Hello <b>there</b>");
    expect(received.decoded).toContain("Sent by Demo Project");

    expectKnownError(
      await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [randomUuid()], html: "x", subject: "x" } }),
      400,
      "USER_ID_DOES_NOT_EXIST",
    );
    expectKnownError(await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [user.id], all_users: true, html: "x" } }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [user.id], html: "x", draft_id: randomUuid() } }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "POST", "/api/v1/emails/send-email", { headers: client(), body: { user_ids: [user.id], html: "x" } }), 401, "INSUFFICIENT_ACCESS_TYPE");

    // A draft: sent, then marked sent.
    const { id: draftId } = (
      await call(stack, "POST", "/api/v1/internal/email-drafts", {
        headers: admin(),
        body: { display_name: "Note", tsx_source: `import { Subject } from "@vestibule/emails"; export function EmailTemplate({ user }) { return <><Subject value="A note" /><p>Dear {user.displayName}</p></>; }` },
      })
    ).json;
    const viaDraft = await call(stack, "POST", "/api/v1/emails/send-email", { headers: admin(), body: { user_ids: [user.id], draft_id: draftId } });
    expect(viaDraft.status).toBe(200);
    await until(async () => smtp.received.find((m) => m.to.includes(user.email) && m.decoded.includes("Dear Grace")));
    expect((await call(stack, "GET", `/api/v1/internal/email-drafts/${draftId}`, { headers: admin() })).json.sent_at_millis).toBeGreaterThan(Date.now() - 60_000);

    // The log: newest first, with the outcome and the sender (no password).
    const log = await until(async () => {
      const r = await call(stack, "GET", "/api/v1/internal/emails", { headers: admin() });
      const e = r.json.items.find((x: { subject: string }) => x.subject === "A note");
      return e?.status === "sent" ? r : undefined;
    });
    expect(log.json.is_paginated).toBe(false);
    const note = log.json.items.find((x: { subject: string }) => x.subject === "A note");
    expect(note).toMatchObject({ to: [user.email], status: "sent", sender_config: { type: "standard", host: "127.0.0.1", port: smtp.port, username: "user", sender_email: "noreply@acme.example" } });
    expect(note.sender_config.password).toBeUndefined();
    expect(note.error).toBeUndefined();
  });

  it("notification categories: a user who turned Marketing off gets none; Marketing mail carries a working unsubscribe link", async () => {
    const projects = createServiceClient(ProjectService, { baseUrl: stack.env.VESTIBULE_IDENTITY_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify(standardConfig(smtp.port)) });
    const [optedIn, optedOut] = [await createUser("In"), await createUser("Out")];
    const off = await call(stack, "PATCH", `/api/v1/emails/notification-preference/${optedOut.id}/${MARKETING}`, { headers: server(), body: { enabled: false } });
    expect(off.json).toEqual({ notification_category_id: MARKETING, notification_category_name: "Marketing", enabled: false, can_disable: true });
    const res = await until(async () => {
      const r = await call(stack, "POST", "/api/v1/emails/send-email", {
        headers: server(),
        body: { user_ids: [optedIn.id, optedOut.id], html: "<p>Big sale</p>", subject: "Sale", notification_category_name: "Marketing" },
      });
      return r.status === 200 ? r : undefined;
    });
    expect(res.json.results).toHaveLength(2);
    const mail = await until(async () => smtp.received.find((m) => m.to.includes(optedIn.email) && m.decoded.includes("Big sale")));
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.received.some((m) => m.to.includes(optedOut.email))).toBe(false);
    const unsubscribe = /\/api\/v1\/emails\/unsubscribe-link\?code=([0-9a-z]{45})/.exec(mail.decoded);
    expect(unsubscribe).not.toBeNull();
    const page = await call(stack, "GET", `/api/v1/emails/unsubscribe-link?code=${unsubscribe![1]}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Marketing");
    const prefs = await call(stack, "GET", `/api/v1/emails/notification-preference/${optedIn.id}`, { headers: server() });
    expect(prefs.json.items.find((p: { notification_category_id: string }) => p.notification_category_id === MARKETING).enabled).toBe(false);
    expect((await call(stack, "GET", "/api/v1/emails/unsubscribe-link?code=nope")).status).toBe(404);
  });

  it("send-test-email reports the SMTP error text; send-sign-in-invitation mails the link", async () => {
    const body = (port: number) => ({
      recipient_email: "someone@example.com",
      email_config: { host: "127.0.0.1", port, username: "user", password: "right", sender_name: "Acme", sender_email: "noreply@acme.example" },
    });
    smtp.mode = "accept";
    expect((await call(stack, "POST", "/api/v1/internal/send-test-email", { headers: admin(), body: body(smtp.port) })).json).toEqual({ success: true });
    const refused = await call(stack, "POST", "/api/v1/internal/send-test-email", { headers: admin(), body: body(await closedPort()) });
    expect(refused.json.success).toBe(false);
    expect(refused.json.error_message).toMatch(/ECONNREFUSED/);

    const projects = createServiceClient(ProjectService, { baseUrl: stack.env.VESTIBULE_IDENTITY_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify({ email_config: { type: "shared" } }) });
    // The e-mail service learns the change from identity's event: wait until it refuses a send for want of a server.
    const anyone = await createUser();
    await until(async () => {
      const r = await call(stack, "POST", "/api/v1/emails/send-email", { headers: server(), body: { user_ids: [anyone.id], html: "x", subject: "x" } });
      return r.json?.code === "REQUIRES_CUSTOM_EMAIL_SERVER" ? r : undefined;
    });
    const to = newEmail("invite");
    const sent = await until(async () => {
      const r = await call(stack, "POST", "/api/v1/internal/send-sign-in-invitation", { headers: server(), body: { email: to, callback_url: "http://localhost:3000/handler/sign-in" } });
      return r.status === 200 ? r : undefined;
    });
    expect(sent.json).toEqual({ success: true });
    const mail = await mailFor(to);
    expect(mail.subject).toBe("You have been invited to sign in to Demo Project");
    expect(mail.text).toContain("http://localhost:3000/handler/sign-in");
    expectKnownError(
      await call(stack, "POST", "/api/v1/internal/send-sign-in-invitation", { headers: server(), body: { email: to, callback_url: "https://evil.example/x" } }),
      400,
      "REDIRECT_URL_NOT_WHITELISTED",
    );
  });

  it("send-sign-in-invitation has a quota per recipient: the 6th within an hour is a 429 with Retry-After (issue 18)", async () => {
    const to = newEmail("quota");
    const invite = (email: string) =>
      call(stack, "POST", "/api/v1/internal/send-sign-in-invitation", { headers: server(), body: { email, callback_url: "http://localhost:3000/handler/sign-in" } });
    // The project's shared e-mail config (the test above) may still be on its way to the e-mail service.
    await until(async () => ((await invite(to)).status === 200 ? true : undefined));
    for (let i = 1; i < 5; i++) expect((await invite(to)).status).toBe(200);
    const refused = await invite(to.toUpperCase());
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    expect(refused.text).toMatch(/^Too many sign-in invitations to this address\. Please wait \d+ seconds and try again\.$/);
    expect((await invite(newEmail("quota-other"))).status).toBe(200);
  });
});

describe("notification preferences", () => {
  it("clients read and change their own; Transactional cannot be turned off; others are refused", async () => {
    const me = await signedInClient();
    const list = await call(stack, "GET", "/api/v1/emails/notification-preference/me", { headers: me.headers });
    expect(list.json).toEqual({
      items: [
        { notification_category_id: TRANSACTIONAL, notification_category_name: "Transactional", enabled: true, can_disable: false },
        { notification_category_id: MARKETING, notification_category_name: "Marketing", enabled: true, can_disable: true },
      ],
      is_paginated: false,
    });
    expect((await call(stack, "PATCH", `/api/v1/emails/notification-preference/me/${MARKETING}`, { headers: me.headers, body: { enabled: false } })).json.enabled).toBe(false);
    expect((await call(stack, "GET", `/api/v1/emails/notification-preference/${me.userId}`, { headers: me.headers })).json.items[1].enabled).toBe(false);
    const transactional = await call(stack, "PATCH", `/api/v1/emails/notification-preference/me/${TRANSACTIONAL}`, { headers: me.headers, body: { enabled: false } });
    expect(transactional.status).toBe(400);
    expect(transactional.text).toBe("The Transactional notification category cannot be disabled.");
    const other = await createUser();
    expect((await call(stack, "GET", `/api/v1/emails/notification-preference/${other.id}`, { headers: me.headers })).status).toBe(403);
    expectKnownError(await call(stack, "GET", `/api/v1/emails/notification-preference/${randomUuid()}`, { headers: server() }), 404, "USER_NOT_FOUND");
    expect((await call(stack, "PATCH", `/api/v1/emails/notification-preference/me/${randomUuid()}`, { headers: me.headers, body: { enabled: false } })).status).toBe(404);
    expectKnownError(await call(stack, "PATCH", `/api/v1/emails/notification-preference/me/${MARKETING}`, { headers: me.headers, body: { enabled: "no" } }), 400, "SCHEMA_ERROR");
  });
});

function randomUuid(): string {
  return crypto.randomUUID();
}
