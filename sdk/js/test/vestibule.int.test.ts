/**
 * @vestibule/js against the real gateway (identity, auth and e-mail services in this process, real PostgreSQL), for
 * the flows beyond the shared compat app: e-mail verification and password reset through the dev mailbox, the
 * server reading the user of an incoming request, impersonation sessions and tickets, partial users, sign-out revoking the
 * session on the server, and the known errors the SDK surfaces as typed classes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnownErrors, StackAdminApp, StackClientApp, StackServerApp } from "@vestibule/js";
import { extractCode, waitForMail } from "../../../deploy/src/dev-mailbox.ts";
import { startStack, type Stack } from "../../../gateway/test/support.ts";
import { callbackUrl, randomEmail } from "./compat-suite.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const client = (tokenStore: ConstructorParameters<typeof StackClientApp>[0]["tokenStore"] = "memory") =>
  new StackClientApp({ baseUrl: stack.url, projectId: stack.demo.projectId, publishableClientKey: stack.demo.publishableClientKey, tokenStore, noAutomaticPrefetch: true });
const server = (tokenStore: ConstructorParameters<typeof StackServerApp>[0]["tokenStore"] = null) =>
  new StackServerApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    secretServerKey: stack.demo.secretServerKey,
    tokenStore,
  });
/** The newest delivered e-mail of a system template (e.g. "password_reset") to `to`. */
const mailFor = (to: string, template: string) =>
  waitForMail({ baseUrl: `http://127.0.0.1:${stack.email!.port}`, secret: stack.env.VESTIBULE_SERVICE_SECRET!, to, predicate: (m) => m.template === template });

async function signedUp(app = client()) {
  const email = randomEmail("ves");
  const r = await app.signUpWithCredential({ email, password: "vestibule pw 1", verificationCallbackUrl: callbackUrl, noRedirect: true });
  expect(r.status).toBe("ok");
  return { app, email, user: await app.getUser({ or: "throw" }) };
}

describe("@vestibule/js on the real gateway", () => {
  it("verifies the e-mail with the code from the verification mail", async () => {
    const { app, email, user } = await signedUp();
    expect(user.primaryEmailVerified).toBe(false);
    const code = extractCode(await mailFor(email, "email_verification"));
    expect((await app.verifyEmail(code)).status).toBe("ok");
    // The gateway's user cache learns of the verification from an event: read again until it has.
    const tokens = await user.getAuthJson();
    await expect.poll(async () => (await client(tokens).getUser({ or: "throw" })).primaryEmailVerified, { timeout: 5_000 }).toBe(true);
    const again = await app.verifyEmail(code);
    expect(again.status === "error" && again.error).toBeInstanceOf(KnownErrors.VerificationCodeError);
    expect(again.status === "error" && again.error.errorCode).toBe("VERIFICATION_CODE_ALREADY_USED");
  });

  it("resets a forgotten password with the code from the reset mail", async () => {
    const { email } = await signedUp();
    const app = client();
    expect((await app.sendForgotPasswordEmail(email, { callbackUrl: "http://localhost:3000/handler/password-reset" })).status).toBe("ok");
    const mail = await mailFor(email, "password_reset");
    const code = extractCode(mail);
    expect((await app.verifyPasswordResetCode(code)).status).toBe("ok");
    expect((await app.resetPassword({ code, password: "brand new pw 2" })).status).toBe("ok");
    expect((await app.signInWithCredential({ email, password: "vestibule pw 1", noRedirect: true })).status).toBe("error");
    expect((await app.signInWithCredential({ email, password: "brand new pw 2", noRedirect: true })).status).toBe("ok");
    const bad = await app.resetPassword({ code: "x".repeat(45), password: "whatever 123" });
    expect(bad.status === "error" && bad.error.errorCode).toBe("VERIFICATION_CODE_NOT_FOUND");
  });

  it("lets a server app read the user of an incoming request (x-stack-auth header from getAuthHeaders)", async () => {
    const { user } = await signedUp();
    const headers = await user.getAuthHeaders();
    const request = new Request("http://app.example.com/api/profile", { headers });
    const me = await server().getUser({ tokenStore: request, or: "throw" });
    expect(me.id).toBe(user.id);
    expect(me.serverMetadata).toBeNull();
    const partial = await client(await user.getAuthJson()).getPartialUser({ from: "token" });
    expect(partial).toMatchObject({ id: user.id, primaryEmail: user.primaryEmail, isAnonymous: false });
  });

  it("creates an impersonation session whose tokens sign a client in as that user", async () => {
    const created = await server().createUser({ primaryEmail: randomEmail("imp"), displayName: "Impersonated" });
    const session = await created.createSession({ isImpersonation: true, expiresInMillis: 60_000 });
    const tokens = await session.getTokens();
    const asUser = await client({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }).getUser({ or: "throw" });
    expect(asUser.displayName).toBe("Impersonated");
  });

  it("opens the app as a user with an admin's impersonation ticket, once; server apps cannot make one", async () => {
    const created = await server().createUser({ primaryEmail: randomEmail("ticket"), displayName: "Ticketed" });
    const admin = new StackAdminApp({ baseUrl: stack.url, projectId: stack.demo.projectId, secretServerKey: stack.demo.secretServerKey, superSecretAdminKey: stack.demo.superSecretAdminKey, tokenStore: null });
    const asAdmin = (await admin.getUser(created.id))!;
    const { ticket, expiresAt } = await asAdmin.createImpersonationTicket({ expiresInMillis: 120_000 });
    expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(50_000);
    const app = client();
    await app.signInWithImpersonationTicket(ticket, { noRedirect: true });
    expect((await app.getUser({ or: "throw" })).displayName).toBe("Ticketed");
    const again = await client().signInWithImpersonationTicket(ticket, { noRedirect: true }).catch((e: unknown) => e);
    expect((again as Error).message).toContain("This link to open the app as a user has expired or was already used.");
    expect(await created.createImpersonationTicket().catch((e: unknown) => e)).toBeInstanceOf(Error);
  });

  it("signs out: the session is revoked on the server and the tokens are gone", async () => {
    const { app, user } = await signedUp();
    const tokens = await user.getAuthJson();
    await user.signOut();
    expect(await app.getUser()).toBeNull();
    // Another app holding the same refresh token cannot use it any more.
    expect(await client({ accessToken: null, refreshToken: tokens.refreshToken }).getUser()).toBeNull();
  });

  it("surfaces server errors as typed known errors", async () => {
    const err = await server()
      .createUser({ primaryEmail: "not-an-email" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KnownErrors.SchemaError);
    const wrongKey = new StackServerApp({ baseUrl: stack.url, projectId: stack.demo.projectId, publishableClientKey: stack.demo.publishableClientKey, secretServerKey: "ssk_wrong", tokenStore: null });
    expect(await wrongKey.listUsers().catch((e: unknown) => e)).toBeInstanceOf(KnownErrors.InvalidSecretServerKey);
    expect(await server().getUser("3a7f0c56-1b2d-4e5f-8a9b-0c1d2e3f4a5b")).toBeNull();
  });

  it("reads and updates the project as an admin app", async () => {
    const admin = new StackAdminApp({ baseUrl: stack.url, projectId: stack.demo.projectId, superSecretAdminKey: stack.demo.superSecretAdminKey, tokenStore: null });
    const project = await admin.getProject();
    expect(project.displayName).toBe("Demo Project");
    expect(project.config.allowLocalhost).toBe(true);
    await project.update({ description: "set by the SDK" });
    expect((await admin.getProject()).description).toBe("set by the SDK");
    const keys = await admin.createInternalApiKey({ description: "sdk test", expiresAt: new Date(Date.now() + 86_400_000), hasPublishableClientKey: true, hasSecretServerKey: false, hasSuperSecretAdminKey: false });
    expect(keys.publishableClientKey).toMatch(/^pck_/);
    const listed = (await admin.listInternalApiKeys()).find((k) => k.id === keys.id)!;
    expect(listed.publishableClientKey?.lastFour).toBe(keys.publishableClientKey!.slice(-4));
    await listed.revoke();
    expect((await admin.listInternalApiKeys()).find((k) => k.id === keys.id)!.whyInvalid()).toBe("manually-revoked");
    expect((await client().getProject()).displayName).toBe("Demo Project");
  });
});
