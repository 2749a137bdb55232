import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const server = () => headersFor(stack.demo, "server");
const callback = "http://localhost:3000/handler/email-verification";
const password = "a good password";
const newEmail = () => `mfa-${randomBytes(5).toString("hex")}@example.com`;

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;
}

/** A code for the current step, taken early enough in the step that it is still current when the server checks. */
async function currentTotp(secret: Uint8Array): Promise<string> {
  const into = Date.now() % 30_000;
  if (into > 28_000) await new Promise((r) => setTimeout(r, 30_000 - into + 50));
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) });
}

async function signIn(email: string) {
  return call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client(), body: { email, password } });
}

describe("TOTP multi-factor authentication over REST", () => {
  it("a user enables TOTP on themselves; sign-in then takes the password step and the TOTP step", async () => {
    const email = newEmail();
    const up = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: { email, password, verification_callback_url: callback } });
    const me = { ...client(), "x-stack-access-token": up.json.access_token };
    const secret = randomBytes(20);

    const bad = await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { totp_secret_base64: "not base64!" } });
    expectKnownError(bad, 400, "SCHEMA_ERROR");
    expect(bad.json.error).toContain("body.totp_secret_base64 is not valid base64");
    const short = await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { totp_secret_base64: randomBytes(8).toString("base64") } });
    expect(short.status).toBe(400);
    expect(short.text).toBe("totp_secret_base64 must decode to 16 to 64 bytes; got 8.");

    const enabled = await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { totp_secret_base64: secret.toString("base64") } });
    expect(enabled.status).toBe(200);
    expect(enabled.json.requires_totp_mfa).toBe(true);
    expect((await call(stack, "GET", "/api/v1/users/me", { headers: me })).json.requires_totp_mfa).toBe(true);

    const first = await signIn(email);
    expectKnownError(first, 400, "MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    const attempt = first.json.details.attempt_code as string;
    expect(attempt).toMatch(/^[0-9a-z]{45}$/);
    expect(first.json.access_token).toBeUndefined();

    const wrongType = await call(stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "sms", totp: "123456", code: attempt } });
    expectKnownError(wrongType, 400, "SCHEMA_ERROR");
    const totp = await currentTotp(secret);
    const wrong = totp === "000000" ? "000001" : "000000";
    expectKnownError(await call(stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "totp", totp: wrong, code: attempt } }), 400, "INVALID_TOTP_CODE");
    const ok = await call(stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "totp", totp, code: attempt } });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.json).sort()).toEqual(["access_token", "is_new_user", "refresh_token", "user_id"]);
    expect(ok.json).toMatchObject({ user_id: up.json.user_id, is_new_user: false });
    expect(claims(ok.json.access_token)).toMatchObject({ sub: up.json.user_id, requires_totp_mfa: true });
    // The same code again (with a new attempt) is a replay.
    const second = (await signIn(email)).json.details.attempt_code;
    expectKnownError(await call(stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "totp", totp, code: second } }), 400, "INVALID_TOTP_CODE");
    expectKnownError(await call(stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "totp", totp, code: attempt } }), 409, "VERIFICATION_CODE_ALREADY_USED");

    // Disabling: null.
    const off = await call(stack, "PATCH", "/api/v1/users/me", { headers: { ...client(), "x-stack-access-token": ok.json.access_token }, body: { totp_secret_base64: null } });
    expect(off.json.requires_totp_mfa).toBe(false);
    expect((await signIn(email)).status).toBe(200);
  });

  it("servers create users with TOTP and switch it off; an unusable secret creates no user", async () => {
    const email = newEmail();
    const secret = randomBytes(32);
    const created = await call(stack, "POST", "/api/v1/users", {
      headers: server(),
      body: { primary_email: email, primary_email_auth_enabled: true, password, totp_secret_base64: secret.toString("base64") },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ requires_totp_mfa: true, has_password: true });
    expectKnownError(await signIn(email), 400, "MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    const attempt = (await signIn(email)).json.details.attempt_code;
    const ok = await call(stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "totp", totp: await currentTotp(secret), code: attempt } });
    expect(ok.json.user_id).toBe(created.json.id);

    const off = await call(stack, "PATCH", `/api/v1/users/${created.json.id}`, { headers: server(), body: { totp_secret_base64: null } });
    expect(off.json.requires_totp_mfa).toBe(false);
    expect((await signIn(email)).status).toBe(200);

    const refused = newEmail();
    const bad = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { primary_email: refused, totp_secret_base64: "AAAA" } });
    expect(bad.status).toBe(400);
    const listed = await call(stack, "GET", `/api/v1/users?query=${encodeURIComponent(refused)}`, { headers: server() });
    expect(listed.json.items).toEqual([]);
  });
});
