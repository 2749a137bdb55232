/**
 * A gateway serves the current user from a cache that identity's events invalidate. Its own writes must not wait for
 * those events: here the gateway gets no events at all, so every fresh answer below comes from the gateway dropping
 * what a request changed (an anonymous user upgraded by sign-up, an e-mail verified by a code opened signed out, a
 * password set, a contact channel added).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, headersFor, startStack, type Stack } from "../../../support.ts";
import { codeOf, waitForMail } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, gatewayEvents: false });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const withToken = (accessToken: string) => ({ ...client(), "x-stack-access-token": accessToken });
const callback = "http://localhost:3000/handler/email-verification";

const verificationCode = async (to: string): Promise<string> => codeOf(await waitForMail(stack, to));

describe("read-your-writes on one gateway", () => {
  it("shows an anonymous user upgraded by sign-up, and its e-mail verified through a link opened signed out", async () => {
    const anon = await call(stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: { ...client(), "x-stack-allow-anonymous-user": "true" } });
    expect(anon.status).toBe(200);
    const anonHeaders = { ...withToken(anon.json.access_token), "x-stack-allow-anonymous-user": "true" };
    expect((await call(stack, "GET", "/api/v1/users/me", { headers: anonHeaders })).json.is_anonymous).toBe(true);

    const email = `ryw-${randomBytes(4).toString("hex")}@example.com`;
    const signUp = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: anonHeaders,
      body: { email, password: "a good password", verification_callback_url: callback },
    });
    expect(signUp.status).toBe(200);
    expect(signUp.json.user_id).toBe(anon.json.user_id);
    const me = await call(stack, "GET", "/api/v1/users/me", { headers: withToken(signUp.json.access_token) });
    expect(me.json).toMatchObject({ id: anon.json.user_id, is_anonymous: false, primary_email: email, primary_email_verified: false, has_password: true });

    // The link is opened in another browser, signed out.
    const verified = await call(stack, "POST", "/api/v1/contact-channels/verify", { headers: client(), body: { code: await verificationCode(email) } });
    expect(verified.status).toBe(200);
    const after = await call(stack, "GET", "/api/v1/users/me", { headers: withToken(signUp.json.access_token) });
    expect(after.json.primary_email_verified).toBe(true);
  });

  it("shows a password set and a contact channel added by the user", async () => {
    const created = await call(stack, "POST", "/api/v1/users", {
      headers: headersFor(stack.demo, "server"),
      body: { primary_email: `ryw-${randomBytes(4).toString("hex")}@example.com`, primary_email_auth_enabled: true },
    });
    const session = await call(stack, "POST", "/api/v1/auth/sessions", { headers: headersFor(stack.demo, "server"), body: { user_id: created.json.id } });
    const headers = withToken(session.json.access_token);
    expect((await call(stack, "GET", "/api/v1/users/me", { headers })).json.has_password).toBe(false);
    expect((await call(stack, "POST", "/api/v1/auth/password/set", { headers, body: { password: "a good password" } })).status).toBe(200);
    expect((await call(stack, "GET", "/api/v1/users/me", { headers })).json.has_password).toBe(true);
  });
});
