/**
 * The e-mail endpoints of the current SDK (2.8.108) through the real platform (six service processes + gateway):
 * scheduled sends that survive a restart of the e-mail service, the outbox (read, pause, resume, reschedule,
 * cancel), delivery info and the capacity boost, DELETE of drafts, templates and themes. Deliveries go to a test SMTP
 * server set as the demo project's own.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import { DEFAULT_TEMPLATE_IDS, defaultNewTemplateSource } from "@stackframe/stack-shared/dist/helpers/emails";
import { standardConfig, startTestSmtp } from "../../services/email/test/smtp-fixtures.ts";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { callDemo, demoHeaders, demoSdkOptions, type Access, type ApiAnswer } from "./platform-api.ts";

let tp: TestPlatform;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
beforeAll(async () => {
  smtp = await startTestSmtp();
  // the project's own SMTP server of this test runs on loopback
  tp = await startTestPlatform({ platform: { env: { VESTIBULE_EGRESS_ALLOW: "127.0.0.0/8" } } });
  expect((await call("PATCH", "/internal/projects/current", "admin", { config: standardConfig(smtp.port) })).status).toBe(200);
});
afterAll(async () => {
  await tp?.stop();
  await smtp?.close();
});

const headers = (access: Access): Record<string, string> => demoHeaders(tp, access);
const call = (method: string, path: string, access: Access, body?: unknown): Promise<ApiAnswer> => callDemo(tp, method, path, access, body);

async function newUser(): Promise<{ id: string; email: string }> {
  const email = `outbox-${randomBytes(5).toString("hex")}@example.com`;
  const r = await call("POST", "/users", "server", { primary_email: email, primary_email_auth_enabled: false });
  expect(r.status).toBe(201);
  return { id: r.json.id, email };
}

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const sdkOptions = () => demoSdkOptions(tp);

describe("scheduled sends", () => {
  it("a send scheduled with the 2.8.108 server SDK waits in the queue, survives an e-mail service restart and is delivered when due", async () => {
    const user = await newUser();
    const server = new latest.StackServerApp(sdkOptions());
    const dueAt = Date.now() + 4_000;
    await server.sendEmail({ userIds: [user.id], subject: "Later", html: "<p>Scheduled hello</p>", scheduledAt: new Date(dueAt) } as never);

    const listed = await call("GET", "/emails/outbox?status=scheduled", "server");
    const scheduled = listed.json.items.find((e: any) => e.to.user_id === user.id);
    expect(scheduled).toMatchObject({ status: "scheduled", simple_status: "in-progress", scheduled_at_millis: dueAt, subject: "Later", is_paused: false, has_delivered: false });

    await tp.platform.killService("email");
    await sleep(Math.max(0, dueAt - Date.now()) + 1_000);
    expect(smtp.received.some((m) => m.to.includes(user.email))).toBe(false);
    await tp.platform.restartService("email");

    const mail = await until("the scheduled e-mail", () => smtp.received.find((m) => m.to.includes(user.email)));
    expect(mail.decoded).toContain("Scheduled hello");
    const sent = await until("the outbox to show it sent", async () => {
      const r = await call("GET", `/emails/outbox/${scheduled.id}`, "server");
      return r.json?.status === "sent" ? r.json : undefined;
    });
    expect(sent).toMatchObject({ id: scheduled.id, simple_status: "ok", has_delivered: true, scheduled_at_millis: dueAt });
    expect(sent.delivered_at_millis).toBeGreaterThanOrEqual(dueAt);
  });

  it("a due or past scheduled_at_millis sends at once; bad values are refused", async () => {
    const user = await newUser();
    const r = await call("POST", "/emails/send-email", "server", { user_ids: [user.id], subject: "Now", html: "<p>Past</p>", scheduled_at_millis: Date.now() - 60_000 });
    expect(r.status).toBe(200);
    await until("the immediate e-mail", () => smtp.received.find((m) => m.to.includes(user.email)));
    for (const bad of [-1, "soon", 1.5]) {
      const refused = await call("POST", "/emails/send-email", "server", { user_ids: [user.id], subject: "x", html: "x", scheduled_at_millis: bad });
      expect(refused.status).toBe(400);
      expect(refused.code).toBe("SCHEMA_ERROR");
    }
  });
});

describe("the outbox", () => {
  it("pause, resume, reschedule and cancel a scheduled e-mail; a delivered one is not editable", async () => {
    const user = await newUser();
    const far = Date.now() + 3_600_000;
    expect((await call("POST", "/emails/send-email", "server", { user_ids: [user.id], subject: "Far", html: "<p>Far</p>", scheduled_at_millis: far })).status).toBe(200);
    const id = (await call("GET", "/emails/outbox?simple_status=in-progress", "server")).json.items.find((e: any) => e.to.user_id === user.id).id;

    const paused = await call("PATCH", `/emails/outbox/${id}`, "admin", { is_paused: true });
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({ id, status: "paused", is_paused: true, simple_status: "in-progress" });
    expect((await call("GET", "/emails/outbox?status=paused", "server")).json.items.map((e: any) => e.id)).toContain(id);

    // resumed and due now: delivered
    const resumed = await call("PATCH", `/emails/outbox/${id}`, "server", { is_paused: false, scheduled_at_millis: Date.now() });
    expect(resumed.status).toBe(200);
    await until("the rescheduled e-mail", () => smtp.received.find((m) => m.to.includes(user.email)));
    const sentView = await until("sent", async () => ((await call("GET", `/emails/outbox/${id}`, "server")).json.status === "sent" ? true : undefined));
    expect(sentView).toBe(true);

    const notEditable = await call("PATCH", `/emails/outbox/${id}`, "server", { is_paused: true });
    expect(notEditable.status).toBe(400);
    expect(notEditable.code).toBe("EMAIL_NOT_EDITABLE");
    expect(notEditable.json.details).toEqual({ email_id: id, status: "sent" });

    // cancel
    const other = await newUser();
    await call("POST", "/emails/send-email", "server", { user_ids: [other.id], subject: "Never", html: "<p>Never</p>", scheduled_at_millis: far });
    const otherId = (await call("GET", "/emails/outbox?status=scheduled", "server")).json.items.find((e: any) => e.to.user_id === other.id).id;
    const cancelled = await call("PATCH", `/emails/outbox/${otherId}`, "server", { cancel: true });
    expect(cancelled.json).toMatchObject({ id: otherId, status: "skipped", simple_status: "ok", skipped_reason: "MANUALLY_CANCELLED" });
    expect((await call("PATCH", `/emails/outbox/${otherId}`, "server", { scheduled_at_millis: Date.now() })).code).toBe("EMAIL_NOT_EDITABLE");
    // content edits are refused with a 400 text
    const content = await call("PATCH", `/emails/outbox/${otherId}`, "server", { tsx_source: "x" });
    expect(content.status).toBe(400);
  });

  it("lists newest first with a cursor; the 2.8.108 admin SDK reads it; bad input is a 400 or 404", async () => {
    const page1 = await call("GET", "/emails/outbox?limit=2", "server");
    expect(page1.status).toBe(200);
    expect(page1.json.items).toHaveLength(2);
    expect(page1.json.is_paginated).toBe(true);
    const next = page1.json.pagination.next_cursor;
    expect(typeof next).toBe("string");
    const page2 = await call("GET", `/emails/outbox?limit=2&cursor=${encodeURIComponent(next)}`, "server");
    expect(page2.json.items.map((e: any) => e.id)).not.toContain(page1.json.items[0].id);
    expect(page1.json.items[0].created_at_millis).toBeGreaterThanOrEqual(page1.json.items[1].created_at_millis);

    const admin = new latest.StackAdminApp(sdkOptions()) as any;
    const { items } = await admin.listOutboxEmails({ limit: 50 });
    expect(items.length).toBeGreaterThan(2);
    expect(items.map((e: any) => e.status)).toEqual(expect.arrayContaining(["sent", "skipped"]));

    expect((await call("GET", "/emails/outbox?cursor=nope", "server")).status).toBe(400);
    expect((await call("GET", "/emails/outbox?status=weird", "server")).code).toBe("SCHEMA_ERROR");
    expect((await call("GET", "/emails/outbox?limit=0", "server")).code).toBe("SCHEMA_ERROR");
    expect((await call("GET", `/emails/outbox/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}`, "server")).status).toBe(404);
    expect((await call("PATCH", `/emails/outbox/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}`, "server", { cancel: false })).code).toBe("SCHEMA_ERROR");
    expect((await call("GET", "/emails/outbox", "client")).code).toBe("INSUFFICIENT_ACCESS_TYPE");
  });
});

describe("delivery info and capacity boost", () => {
  it("counts delivered e-mails and reports the capacity; a boost multiplies it and cannot be activated twice", async () => {
    const before = await call("GET", "/emails/delivery-info", "server");
    expect(before.status).toBe(200);
    expect(before.json.capacity).toEqual({ rate_per_second: 10_000 / 3600, boost_multiplier: 1, penalty_factor: 1, is_boost_active: false, boost_expires_at: null });
    for (const period of ["hour", "day", "week", "month"]) {
      expect(before.json.stats[period]).toEqual({ sent: expect.any(Number), bounced: 0, marked_as_spam: 0 });
      expect(before.json.stats[period].sent).toBeGreaterThanOrEqual(3); // the deliveries of the tests above
    }
    const server = new latest.StackServerApp(sdkOptions()) as any;
    await server.activateEmailCapacityBoost();
    const after = await call("GET", "/emails/delivery-info", "server");
    expect(after.json.capacity.is_boost_active).toBe(true);
    expect(after.json.capacity.rate_per_second).toBe((10_000 / 3600) * 4);
    expect(Date.parse(after.json.capacity.boost_expires_at)).toBeGreaterThan(Date.now());
    const again = await call("POST", "/emails/capacity-boost", "server", {});
    expect(again.status).toBe(409);
    expect(again.code).toBe("EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE");
    expect(again.json.details.expires_at).toBe(after.json.capacity.boost_expires_at);
    expect((await call("POST", "/emails/capacity-boost", "client", {})).code).toBe("INSUFFICIENT_ACCESS_TYPE");
    expect((await call("POST", "/emails/capacity-boost", "server", { extra: 1 })).code).toBe("SCHEMA_ERROR");
  });
});

describe("templates written for the published product", () => {
  it("the SDK's DEFAULT_TEMPLATE_IDS name the project's system templates (render and send)", async () => {
    const ids = DEFAULT_TEMPLATE_IDS as Record<string, string>;
    for (const name of ["email_verification", "password_reset", "magic_link", "team_invitation", "sign_in_invitation"]) {
      const r = await call("POST", "/emails/render-email", "admin", { template_id: ids[name] });
      expect(r.status, name).toBe(200);
      expect(r.json.html.startsWith("<!DOCTYPE html"), name).toBe(true);
      expect(typeof r.json.subject, name).toBe("string");
    }
    const user = await newUser();
    const sent = await call("POST", "/emails/send-email", "server", { user_ids: [user.id], template_id: ids.sign_in_invitation, variables: { link: "https://app.example/join" } });
    expect(sent.status).toBe(200);
    const mail = await until("the invitation", () => smtp.received.find((m) => m.to.includes(user.email)));
    expect(mail.decoded).toContain("https://app.example/join");
  });

  it("a template importing arktype, @react-email/components and @stackframe/emails is saved, rendered and sent; drafts render as a document", async () => {
    const created = await call("POST", "/internal/email-templates", "admin", { display_name: "Counter" });
    const saved = await call("PATCH", `/internal/email-templates/${created.json.id}`, "admin", { tsx_source: defaultNewTemplateSource });
    expect(saved.status).toBe(200);
    expect(saved.json.rendered_html).toContain("count is");
    const user = await newUser();
    const bad = await call("POST", "/emails/send-email", "server", { user_ids: [user.id], template_id: created.json.id, variables: { count: "many" } });
    expect(bad.status).toBe(400);
    expect(bad.code).toBe("EMAIL_RENDERING_ERROR");
    expect((await call("POST", "/emails/send-email", "server", { user_ids: [user.id], template_id: created.json.id, variables: { count: 3 } })).status).toBe(200);
    const mail = await until("the counter e-mail", () => smtp.received.find((m) => m.to.includes(user.email)));
    expect(mail.decoded).toContain("count is 3");

    const draft = await call("POST", "/internal/email-drafts", "admin", { display_name: "Draft", tsx_source: defaultNewTemplateSource.replace('count: "number"', '"count?": "number"') });
    const rendered = await call("POST", "/emails/render-email", "admin", { template_tsx_source: (await call("GET", `/internal/email-drafts/${draft.json.id}`, "admin")).json.tsx_source });
    expect(rendered.status).toBe(200);
    expect(rendered.json.html).toMatch(/^<!DOCTYPE html PUBLIC "-\/\/W3C\/\/DTD XHTML 1.0 Transitional\/\/EN" "http:\/\/www.w3.org\/TR\/xhtml1\/DTD\/xhtml1-transitional.dtd"><html/);
    // the current SDK's render options are accepted
    const editable = await call("POST", "/emails/render-email", "admin", { template_tsx_source: defaultNewTemplateSource, editable_markers: true, editable_source: "template" });
    expect(editable.status).toBe(200);
    expect((await call("POST", "/emails/render-email", "admin", { template_tsx_source: defaultNewTemplateSource, editable_source: "page" })).code).toBe("SCHEMA_ERROR");
  });
});

describe("DELETE of drafts, templates and themes (admin)", () => {
  it("deletes each; a second delete or an unknown id is a 404; the selected theme stays", async () => {
    const draft = await call("POST", "/internal/email-drafts", "admin", { display_name: "Gone soon" });
    const template = await call("POST", "/internal/email-templates", "admin", { display_name: "Gone soon" });
    const theme = await call("POST", "/internal/email-themes", "admin", { display_name: "Gone soon" });
    for (const [kind, id] of [["email-drafts", draft.json.id], ["email-templates", template.json.id], ["email-themes", theme.json.id]] as const) {
      const del = await call("DELETE", `/internal/${kind}/${id}`, "admin");
      expect(del.status, kind).toBe(200);
      expect((await call("DELETE", `/internal/${kind}/${id}`, "admin")).status, kind).toBe(404);
      expect((await call("DELETE", `/internal/${kind}/${id}`, "server")).code, kind).toBe("INSUFFICIENT_ACCESS_TYPE");
      expect((await call("DELETE", `/internal/${kind}/not-a-uuid`, "admin")).status, kind).toBe(400);
    }
    expect((await call("GET", "/internal/email-drafts", "admin")).json.drafts.map((d: any) => d.id)).not.toContain(draft.json.id);
    expect((await call("GET", "/internal/email-templates", "admin")).json.templates.map((t: any) => t.id)).not.toContain(template.json.id);
    const selected = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";
    const refused = await call("DELETE", `/internal/email-themes/${selected}`, "admin");
    expect(refused.status).toBe(400);
    expect((await call("GET", `/internal/email-themes/${selected}`, "admin")).status).toBe(200);
  });

  it("every new route is in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${tp.gatewayUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths["/api/v1/emails/delivery-info"]?.get).toBeDefined();
    expect(doc.paths["/api/v1/emails/capacity-boost"]?.post).toBeDefined();
    expect(doc.paths["/api/v1/emails/outbox"]?.get).toBeDefined();
    expect(Object.keys(doc.paths["/api/v1/emails/outbox/{id}"]!).sort()).toEqual(["get", "patch"]);
    for (const p of ["/api/v1/internal/email-drafts/{id}", "/api/v1/internal/email-templates/{templateId}", "/api/v1/internal/email-themes/{id}"]) {
      expect(doc.paths[p]?.delete, p).toBeDefined();
    }
    const send = doc.paths["/api/v1/emails/send-email"]!.post as any;
    // send-email is a union of its three body forms (html, template, draft); each takes scheduled_at_millis.
    const forms = send.requestBody.content["application/json"].schema.anyOf as { properties: Record<string, unknown> }[];
    expect(forms).toHaveLength(3);
    for (const form of forms) expect(form.properties.scheduled_at_millis).toBeDefined();
  });
});
