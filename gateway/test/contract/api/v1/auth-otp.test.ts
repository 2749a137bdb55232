import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
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
const callback = "http://localhost:3000/handler/magic-link-callback";
const newEmail = () => `otp-${randomBytes(5).toString("hex")}@example.com`;

const otpMail = (to: string) => waitForMail(stack, to, (m) => m.template === "magic_link", 15_000);

describe("magic link / OTP over REST", () => {
  it("send-sign-in-code → the e-mail's OTP + nonce signs up a new user; the link's code signs in again", async () => {
    const email = newEmail();
    const sent = await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", { headers: client(), body: { email, callback_url: callback } });
    expect(sent.status).toBe(200);
    expect(Object.keys(sent.json)).toEqual(["nonce"]);
    expect(sent.json.nonce).toMatch(/^[0-9a-z]{39}$/);
    const mail = await otpMail(email);
    const otp = /Your code is ([0-9A-Z]{6})$/.exec(mail.subject)![1]!;
    expect(mail.subject).toBe(`Sign in to Demo Project: Your code is ${otp}`);
    const code = otp.toLowerCase() + sent.json.nonce;
    expect(mail.text).toContain(`${callback}?code=${code}`);

    expect((await call(stack, "POST", "/api/v1/auth/otp/sign-in/check-code", { headers: client(), body: { code } })).json).toEqual({ is_code_valid: true });
    const signIn = await call(stack, "POST", "/api/v1/auth/otp/sign-in", { headers: client(), body: { code } });
    expect(signIn.status).toBe(200);
    expect(Object.keys(signIn.json).sort()).toEqual(["access_token", "is_new_user", "refresh_token", "user_id"]);
    expect(signIn.json.is_new_user).toBe(true);
    const me = await call(stack, "GET", "/api/v1/users/me", { headers: { ...client(), "x-stack-access-token": signIn.json.access_token } });
    expect(me.json).toMatchObject({ primary_email: email, primary_email_verified: true, otp_auth_enabled: true, auth_with_email: true, has_password: false });
    expectKnownError(await call(stack, "POST", "/api/v1/auth/otp/sign-in", { headers: client(), body: { code } }), 409, "VERIFICATION_CODE_ALREADY_USED");
  });

  it("a user with TOTP gets MULTI_FACTOR_AUTHENTICATION_REQUIRED from the magic link, then signs in with the TOTP", async () => {
    const email = newEmail();
    const first = await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", { headers: client(), body: { email, callback_url: callback } });
    const code = codeOf(await otpMail(email));
    const up = await call(stack, "POST", "/api/v1/auth/otp/sign-in", { headers: client(), body: { code } });
    expect(first.status).toBe(200);
    const secret = randomBytes(20);
    const me = { ...client(), "x-stack-access-token": up.json.access_token };
    expect((await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { totp_secret_base64: secret.toString("base64") } })).json.requires_totp_mfa).toBe(true);

    await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", { headers: client(), body: { email, callback_url: callback } });
    const second = codeOf(await waitForMail(stack, email, (m) => m.template === "magic_link" && !m.text.includes(code), 15_000));
    const mfa = await call(stack, "POST", "/api/v1/auth/otp/sign-in", { headers: client(), body: { code: second } });
    expectKnownError(mfa, 400, "MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    const into = Date.now() % 30_000;
    if (into > 28_000) await new Promise((r) => setTimeout(r, 30_000 - into + 50));
    const totp = await generate({ secret, epoch: Math.floor(Date.now() / 1000) });
    const ok = await call(stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "totp", totp, code: mfa.json.details.attempt_code } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ user_id: up.json.user_id, is_new_user: false });
  });

  it("answers the contract's errors", async () => {
    expectKnownError(await call(stack, "POST", "/api/v1/auth/otp/sign-in", { headers: client(), body: { code: "short" } }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "POST", "/api/v1/auth/otp/sign-in", { headers: client(), body: { code: "z".repeat(45) } }), 404, "VERIFICATION_CODE_NOT_FOUND");
    expectKnownError(
      await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", { headers: client(), body: { email: newEmail(), callback_url: "https://evil.example/cb" } }),
      400,
      "REDIRECT_URL_NOT_WHITELISTED",
    );
    expectKnownError(await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", { headers: client(), body: { email: "nope", callback_url: callback } }), 400, "SCHEMA_ERROR");
    const projects = createServiceClient(ProjectService, { baseUrl: stack.env.VESTIBULE_IDENTITY_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify({ magic_link_enabled: false }) });
    try {
      // The auth service learns the change from identity's event.
      let res;
      for (let i = 0; i < 100; i++) {
        res = await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", { headers: client(), body: { email: newEmail(), callback_url: callback } });
        if (res.status === 403) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(res!.status).toBe(403);
      expect(res!.text).toBe("OTP sign-in is not enabled for this project");
      expect(res!.headers.get("x-stack-known-error")).toBeNull();
    } finally {
      await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify({ magic_link_enabled: true }) });
    }
  });
});
