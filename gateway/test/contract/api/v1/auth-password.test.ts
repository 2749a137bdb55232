import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceClient } from "@vestibule/shared/rpc";
import { asCurrentSdkHeaders } from "@vestibule/shared/testing";
import { MailboxService } from "@vestibule/proto/email/v1/mailbox_service";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { codeOf, waitForMail } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const callback = "http://localhost:3000/handler/email-verification";
const newEmail = () => `pw-${randomBytes(5).toString("hex")}@example.com`;

async function signUp(email = newEmail(), password = "a good password") {
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: { email, password, verification_callback_url: callback } });
  return { res, email, password };
}

/** The newest message for `to` in the dev mailbox whose subject matches, waiting for its delivery. */
const mailFor = (to: string, subject: RegExp) => waitForMail(stack, to, (m) => subject.test(m.subject));

describe("password sign-up and sign-in over REST", () => {
  it("answers many concurrent sign-ins, right and wrong, each with its own contract answer (batched to auth)", async () => {
    const users = await Promise.all([0, 1, 2].map(async () => (await signUp()).email));
    const attempts = Array.from({ length: 24 }, (_, i) => {
      const email = i % 4 === 3 ? newEmail() : users[i % 3]!;
      return { email, password: i % 2 === 0 ? "a good password" : "a wrong password", known: i % 4 !== 3 };
    });
    const answers = await Promise.all(
      attempts.map((a) => call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email: a.email, password: a.password } })),
    );
    answers.forEach((res, i) => {
      const a = attempts[i]!;
      if (a.known && a.password === "a good password") {
        expect(res.status).toBe(200);
        expect(Object.keys(res.json).sort()).toEqual(["access_token", "refresh_token", "user_id"]);
      } else {
        expectKnownError(res, 400, "EMAIL_PASSWORD_MISMATCH");
      }
    });
    const ids = new Set(answers.filter((r) => r.status === 200).map((r) => r.json.refresh_token));
    expect(ids.size).toBe(answers.filter((r) => r.status === 200).length);
  });

  it("signs up, returns tokens, and mails a verification link that verifies the e-mail", async () => {
    const { res, email } = await signUp();
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["access_token", "refresh_token", "user_id"]);
    expect(res.json.refresh_token).toMatch(/^[0-9a-z]{45}$/);
    const mail = await mailFor(email, /^Verify your email at /);
    expect(mail.text + mail.html).toContain(callback);
    const code = codeOf(mail);
    const check = await call(stack, "POST", "/api/v1/contact-channels/verify/check-code", { headers: client(), body: { code } });
    expect(check.json).toEqual({ is_code_valid: true });
    expect((await call(stack, "POST", "/api/v1/contact-channels/verify", { headers: client(), body: { code } })).json).toEqual({ success: true });
    expectKnownError(await call(stack, "POST", "/api/v1/contact-channels/verify", { headers: client(), body: { code } }), 409, "VERIFICATION_CODE_ALREADY_USED");
    const me = await call(stack, "GET", "/api/v1/users/me", { headers: { ...client(), "x-stack-access-token": res.json.access_token } });
    expect(me.json.primary_email_verified).toBe(true);
  });

  it("signs up without a verification callback (issue 13): unverified, no e-mail, x-hexclave- headers", async () => {
    const email = newEmail();
    const hexclave = asCurrentSdkHeaders(client());
    const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: hexclave, body: { email, password: "a good password" } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["access_token", "refresh_token", "user_id"]);
    const me = await call(stack, "GET", "/api/v1/users/me", { headers: { ...hexclave, "x-hexclave-access-token": res.json.access_token } });
    expect(me.json).toMatchObject({ primary_email: email, primary_email_verified: false, has_password: true });
    // A sign-up with a callback to another address mails that one; none was queued for this address.
    const other = await signUp();
    await mailFor(other.email, /^Verify your email at /);
    const mailbox = createServiceClient(MailboxService, { baseUrl: `http://127.0.0.1:${stack.email!.port}`, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    expect((await mailbox.listMailboxMessages({ to: email })).messages).toEqual([]);
    // An empty string is still not a URL.
    const empty = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: { email: newEmail(), password: "a good password", verification_callback_url: "" } });
    expectKnownError(empty, 400, "SCHEMA_ERROR");
  });

  it("answers the contract's errors for bad sign-ups and sign-ins", async () => {
    const short = await signUp(newEmail(), "short");
    expectKnownError(short.res, 400, "PASSWORD_TOO_SHORT");
    expect(short.res.json.details).toEqual({ min_length: 8 });
    const long = await signUp(newEmail(), "x".repeat(71));
    expectKnownError(long.res, 400, "PASSWORD_TOO_LONG");
    expect(long.res.json.details).toEqual({ maxLength: 70 });
    const { email } = await signUp();
    const dup = await signUp(email);
    expectKnownError(dup.res, 409, "USER_EMAIL_ALREADY_EXISTS");
    expect(dup.res.json.details).toMatchObject({ email });
    const untrusted = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: { email: newEmail(), password: "a good password", verification_callback_url: "https://evil.example.net/x" } });
    expectKnownError(untrusted, 400, "REDIRECT_URL_NOT_WHITELISTED");
    const wrong = await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email, password: "not the password" } });
    expectKnownError(wrong, 400, "EMAIL_PASSWORD_MISMATCH");
    const unknown = await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email: newEmail(), password: "whatever it is" } });
    expectKnownError(unknown, 400, "EMAIL_PASSWORD_MISMATCH");
    const badEmail = await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email: "not-an-email", password: "x" } });
    expectKnownError(badEmail, 400, "SCHEMA_ERROR");
  });

  it("resets a forgotten password with the mailed code; every session is signed out", async () => {
    const { res, email } = await signUp();
    const sent = await call(stack, "POST", "/api/v1/auth/password/send-reset-code", { headers: client(), body: { email, callback_url: "http://localhost:3000/handler/password-reset" } });
    expect(sent.json).toEqual({ success: "maybe, only if user with e-mail exists" });
    const code = codeOf(await mailFor(email, /reset/i));
    expect((await call(stack, "POST", "/api/v1/auth/password/reset", { headers: client(), body: { code, password: "brand new password" } })).json).toEqual({ success: true });
    // The old refresh token no longer works.
    const refresh = await call(stack, "POST", "/api/v1/auth/sessions/current/refresh", { headers: { ...client(), "x-stack-refresh-token": res.json.refresh_token } });
    expectKnownError(refresh, 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect((await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email, password: "brand new password" } })).status).toBe(200);
    expectKnownError(await call(stack, "POST", "/api/v1/auth/password/reset", { headers: client(), body: { code, password: "another new one" } }), 409, "VERIFICATION_CODE_ALREADY_USED");
    expectKnownError(await call(stack, "POST", "/api/v1/auth/password/reset/check-code", { headers: client(), body: { code: "0".repeat(45) } }), 404, "VERIFICATION_CODE_NOT_FOUND");
    // Unknown e-mails get the same answer.
    const unknown = await call(stack, "POST", "/api/v1/auth/password/send-reset-code", { headers: client(), body: { email: newEmail(), callback_url: "http://localhost:3000/handler/password-reset" } });
    expect(unknown.json).toEqual(sent.json);
  });

  it("refreshes through the OAuth token endpoint and the sessions endpoint; signs out", async () => {
    const { res } = await signUp();
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: res.json.refresh_token, client_id: stack.demo.projectId, client_secret: stack.demo.publishableClientKey });
    const token = await call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: form.toString(), contentType: "application/x-www-form-urlencoded" });
    expect(token.status).toBe(200);
    expect(token.json).toMatchObject({ token_type: "Bearer", scope: "legacy" });
    expect(token.json.expires_in).toBeGreaterThan(0);
    const badClient = new URLSearchParams({ grant_type: "refresh_token", refresh_token: res.json.refresh_token, client_id: stack.demo.projectId, client_secret: "pck_wrong" });
    const bad = await call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: badClient.toString(), contentType: "application/x-www-form-urlencoded" });
    expectKnownError(bad, 400, "INVALID_OAUTH_CLIENT_ID_OR_SECRET");
    const viaSessions = await call(stack, "POST", "/api/v1/auth/sessions/current/refresh", { headers: { ...client(), "x-stack-refresh-token": res.json.refresh_token } });
    expect(typeof viaSessions.json.access_token).toBe("string");
    const auth = { ...client(), "x-stack-access-token": token.json.access_token };
    expect((await call(stack, "DELETE", "/api/v1/auth/sessions/current", { headers: auth, body: {} })).json).toEqual({ success: true });
    const after = await call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: form.toString(), contentType: "application/x-www-form-urlencoded" });
    expectKnownError(after, 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  });

  it("protects sign-in against brute force with 429 and Retry-After, without locking other accounts", async () => {
    const { email } = await signUp();
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 30 && !limited; i++) {
      const r = await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email, password: `wrong ${i}` } });
      if (r.status === 429) limited = r;
      else expectKnownError(r, 400, "EMAIL_PASSWORD_MISMATCH");
    }
    expect(limited, "no 429 after 30 wrong passwords").toBeDefined();
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await signUp();
    expect((await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email: other.email, password: other.password } })).status).toBe(200);
  });

  it("lists sessions for self only, refuses deleting the current one", async () => {
    const { res } = await signUp();
    const auth = { ...client(), "x-stack-access-token": res.json.access_token };
    const list = await call(stack, "GET", "/api/v1/auth/sessions?user_id=me", { headers: auth });
    expect(list.json.is_paginated).toBe(false);
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({ user_id: res.json.user_id, is_current_session: true, is_impersonation: false });
    const other = await signUp();
    const foreign = await call(stack, "GET", `/api/v1/auth/sessions?user_id=${other.res.json.user_id}`, { headers: auth });
    expect(foreign.status).toBe(403);
    expectKnownError(await call(stack, "DELETE", `/api/v1/auth/sessions/${list.json.items[0].id}?user_id=me`, { headers: auth }), 400, "CANNOT_DELETE_CURRENT_SESSION");
  });

  it("publishes the JWKS with its cache header", async () => {
    const jwks = await call(stack, "GET", `/api/v1/projects/${stack.demo.projectId}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(jwks.json.keys.length).toBeGreaterThanOrEqual(1);
    expect(jwks.json.keys[0]).toMatchObject({ kty: "EC", alg: "ES256", crv: "P-256" });
    expect(jwks.json.keys[0].d).toBeUndefined();
    const withAnon = await call(stack, "GET", `/api/v1/projects/${stack.demo.projectId}/.well-known/jwks.json?include_anonymous=true`);
    expect(withAnon.json.keys.length).toBeGreaterThan(jwks.json.keys.length);
    expect((await call(stack, "GET", "/api/v1/projects/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f/.well-known/jwks.json")).status).toBe(404);
  });
});
