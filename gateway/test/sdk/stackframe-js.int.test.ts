/**
 * The published Stack Auth SDK (@stackframe/js 2.8.41, the contract's version; 2.8.102, the last to send x-stack-
 * headers; and the latest, which sends x-hexclave- headers) works unchanged against Vestibule: only its base URL and
 * keys point here.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import * as v28102 from "stackframe-js-28102";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

/** Both versions are driven through the same calls; typed as the latest for the test code. */
type Sdk = typeof latest;
const sdks: [string, Sdk][] = [
  ["@stackframe/js 2.8.41", v2841 as unknown as Sdk],
  ["@stackframe/js 2.8.102", v28102 as unknown as Sdk],
  ["@stackframe/js latest", latest],
];

const callbackUrl = "http://localhost:3000/handler/email-verification";
/** The SDK's typed known errors carry the wire code. */
const errorCode = (err: unknown) => (err as { errorCode?: string } | undefined)?.errorCode;
const email = () => `sdk-${randomBytes(5).toString("hex")}@example.com`;

describe.each(sdks)("%s against Vestibule", (_name, sdk) => {
  const clientApp = () =>
    new sdk.StackClientApp({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
    } as never);
  const serverApp = () =>
    new sdk.StackServerApp({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      secretServerKey: stack.demo.secretServerKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
    } as never);

  it("signs up, reads and updates the user, changes the password, lists and revokes sessions, signs out", async () => {
    const app = clientApp();
    const address = email();
    const signUp = await app.signUpWithCredential({ email: address, password: "correct horse 1", verificationCallbackUrl: callbackUrl, noRedirect: true });
    expect(signUp.status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(address);
    expect(user.primaryEmailVerified).toBe(false);
    expect(user.hasPassword).toBe(true);

    await user.update({ displayName: "Ada", clientMetadata: { theme: "dark" } });
    const again = await clientApp().signInWithCredential({ email: address, password: "correct horse 1", noRedirect: true });
    expect(again.status).toBe("ok");
    const reread = await app.getUser({ or: "throw" });
    expect(reread.displayName).toBe("Ada");
    expect(reread.clientMetadata).toEqual({ theme: "dark" });

    // A second session exists now (the sign-in above); list and revoke it.
    const sessions = await reread.getActiveSessions();
    expect(sessions.length).toBe(2);
    const other = sessions.find((s) => !s.isCurrentSession)!;
    await reread.revokeSession(other.id);
    expect((await reread.getActiveSessions()).length).toBe(1);

    const changed = await reread.updatePassword({ oldPassword: "correct horse 1", newPassword: "correct horse 2" });
    expect(changed).toBeUndefined();
    const wrongOld = await reread.updatePassword({ oldPassword: "nope nope nope", newPassword: "correct horse 3" });
    expect(errorCode(wrongOld)).toBe("PASSWORD_CONFIRMATION_MISMATCH");
    const badSignIn = await clientApp().signInWithCredential({ email: address, password: "correct horse 1", noRedirect: true });
    expect(badSignIn.status).toBe("error");
    expect(errorCode((badSignIn as { error: unknown }).error)).toBe("EMAIL_PASSWORD_MISMATCH");

    await app.signOut({ redirectUrl: "/" } as never).catch(() => {});
    expect(await app.getUser()).toBeNull();
  });

  it("refuses a duplicate e-mail as a result, not a throw", async () => {
    const address = email();
    expect((await clientApp().signUpWithCredential({ email: address, password: "long enough 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
    const dup = await clientApp().signUpWithCredential({ email: address, password: "long enough 1", verificationCallbackUrl: callbackUrl, noRedirect: true });
    expect(dup.status).toBe("error");
    expect(errorCode((dup as { error: unknown }).error)).toBe("USER_EMAIL_ALREADY_EXISTS");
  });

  it("creates an anonymous user on getUser({ or: 'anonymous' })", async () => {
    const app = clientApp();
    expect(await app.getUser()).toBeNull();
    const anon = await app.getUser({ or: "anonymous" });
    expect(anon.isAnonymous).toBe(true);
    expect(await app.getUser()).toBeNull();
  });

  it("manages users from a server app", async () => {
    const server = serverApp();
    const address = email();
    const created = await server.createUser({ primaryEmail: address, password: "server set 123", primaryEmailAuthEnabled: true, displayName: "Server Made" });
    expect(created.primaryEmail).toBe(address);
    const listed = await server.listUsers({ limit: 500 });
    expect(listed.some((u) => u.id === created.id)).toBe(true);
    const fetched = await server.getUser(created.id);
    expect(fetched?.displayName).toBe("Server Made");
    await fetched!.update({ serverMetadata: { plan: "pro" } });
    expect((await server.getUser(created.id))?.serverMetadata).toEqual({ plan: "pro" });
    // The password the server set works for signing in.
    expect((await clientApp().signInWithCredential({ email: address, password: "server set 123", noRedirect: true })).status).toBe("ok");
    await fetched!.delete();
    expect(await server.getUser(created.id)).toBeNull();
  });
});

describe("tokens against the REST API", () => {
  it("refuses tokens of another project and alg:none tokens", async () => {
    const address = email();
    const signUp = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: headersFor(stack.demo, "client"),
      body: { email: address, password: "another one 1", verification_callback_url: callbackUrl },
    });
    expect(signUp.status).toBe(200);
    const token = signUp.json.access_token as string;
    // Same token presented to another project (the internal one): wrong project.
    const foreign = await call(stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(stack.internal, "client"), "x-stack-access-token": token } });
    expectKnownError(foreign, 401, "INVALID_PROJECT_FOR_ACCESS_TOKEN");
    // alg: none with the same claims.
    const [, payload] = token.split(".");
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${payload}.`;
    expectKnownError(await call(stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(stack.demo, "client"), "x-stack-access-token": none } }), 401, "UNPARSABLE_ACCESS_TOKEN");
    // A valid token works, and project A's server key cannot read it from project B's side.
    const me = await call(stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(stack.demo, "client"), "x-stack-access-token": token } });
    expect(me.json.primary_email).toBe(address);
    const crossRead = await call(stack, "GET", `/api/v1/users/${me.json.id}`, { headers: headersFor(stack.internal, "server") });
    expectKnownError(crossRead, 404, "USER_NOT_FOUND");
  });
});
