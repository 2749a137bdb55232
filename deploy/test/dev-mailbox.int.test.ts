/**
 * Acceptance on the real platform (seven service processes + gateway, as `npm start` runs them): sign-up verification,
 * password reset and magic-link sign-in through the REST API, each e-mail delivered over SMTP to the dev mailbox
 * (the e-mail service's own SMTP server in development mode), and the dev tooling's HTTP listing of it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractCode, waitForMail } from "../src/dev-mailbox.ts";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";

let tp: TestPlatform;
beforeAll(async () => {
  tp = await startTestPlatform({ platform: { frontends: true } });
});
afterAll(async () => {
  await tp?.stop();
});

const handler = "http://localhost:3000/handler";
const address = () => `dev-${randomBytes(5).toString("hex")}@example.com`;

async function api(method: string, path: string, body?: unknown, accessToken?: string): Promise<{ status: number; json: any }> {
  const demo = tp.projects.demo;
  const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, {
    method,
    headers: {
      "x-stack-project-id": demo.project_id,
      "x-stack-access-type": "client",
      "x-stack-publishable-client-key": demo.publishable_client_key,
      ...(accessToken ? { "x-stack-access-token": accessToken } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const mailbox = () => ({ baseUrl: tp.platform.serviceUrls.email, secret: tp.serviceSecret, timeoutMs: 20_000 });

describe("e-mail flows on the real platform, through the dev mailbox", () => {
  it("sign-up: the verification e-mail arrives and its code verifies the address", async () => {
    const email = address();
    const signUp = await api("POST", "/auth/password/sign-up", { email, password: "a fine password", verification_callback_url: `${handler}/email-verification` });
    expect(signUp.status).toBe(200);
    const mail = await waitForMail({ ...mailbox(), to: email });
    expect(mail.subject).toBe("Verify your email at Demo Project");
    expect(mail.from).toContain("Demo Project");
    expect((await api("POST", "/contact-channels/verify", { code: extractCode(mail) })).json).toEqual({ success: true });
    const me = await api("GET", "/users/me", undefined, signUp.json.access_token);
    expect(me.json.primary_email_verified).toBe(true);
  });

  it("password reset: the reset e-mail's code sets a new password", async () => {
    const email = address();
    await api("POST", "/auth/password/sign-up", { email, password: "the old password", verification_callback_url: `${handler}/email-verification` });
    expect((await api("POST", "/auth/password/send-reset-code", { email, callback_url: `${handler}/password-reset` })).status).toBe(200);
    const mail = await waitForMail({ ...mailbox(), to: email, predicate: (m) => m.template === "password_reset" });
    expect(mail.subject).toBe("Reset your password at Demo Project");
    expect((await api("POST", "/auth/password/reset", { code: extractCode(mail), password: "the new password" })).json).toEqual({ success: true });
    expect((await api("POST", "/auth/password/sign-in", { email, password: "the new password" })).status).toBe(200);
  });

  it("magic link: the e-mailed code signs a new user up", async () => {
    const email = address();
    const sent = await api("POST", "/auth/otp/send-sign-in-code", { email, callback_url: `${handler}/magic-link-callback` });
    expect(sent.status).toBe(200);
    const mail = await waitForMail({ ...mailbox(), to: email });
    expect(mail.subject).toMatch(/^Sign in to Demo Project: Your code is [0-9A-Z]{6}$/);
    const code = extractCode(mail);
    expect(code.slice(6)).toBe(sent.json.nonce);
    const signIn = await api("POST", "/auth/otp/sign-in", { code });
    expect(signIn.json.is_new_user).toBe(true);
  });

  it("the dev tooling lists the mailbox over HTTP, as JSON and as a page with clickable links", async () => {
    const email = address();
    await api("POST", "/auth/password/sign-up", { email, password: "a fine password", verification_callback_url: `${handler}/email-verification` });
    await waitForMail({ ...mailbox(), to: email });
    const json = await fetch(`${tp.platform.frontendsUrl}/dev/mailbox?to=${encodeURIComponent(email)}`);
    expect(json.status).toBe(200);
    const { items } = (await json.json()) as { items: { subject: string; to: string[]; text: string; project_id: string }[] };
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ subject: "Verify your email at Demo Project", to: [email], project_id: tp.projects.demo.project_id });
    const page = await fetch(`${tp.platform.frontendsUrl}/dev/mailbox/view?to=${encodeURIComponent(email)}`);
    const html = await page.text();
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(html).toContain("Verify your email at Demo Project");
    expect(html).toMatch(/<a href="http:\/\/localhost:3000\/handler\/email-verification\?code=[0-9a-z]{45}">/);
  });
});
