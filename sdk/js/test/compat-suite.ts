/**
 * One app, written against the published `@stackframe/js` API, run as-is against a real Vestibule gateway. The
 * compat test runs it once per SDK module (the published SDK at the contract's version and the latest, and
 * `@vestibule/js`): only the import differs.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { Stack } from "../../../gateway/test/support.ts";

/** The subset of an SDK module the app uses (both the published SDK and ours satisfy it). */
export interface SdkModule {
  StackClientApp: new (options: any) => any;
  StackServerApp: new (options: any) => any;
}

export const callbackUrl = "http://localhost:3000/handler/email-verification";
export const randomEmail = (prefix = "compat") => `${prefix}-${randomBytes(5).toString("hex")}@example.com`;
const errorCode = (err: unknown) => (err as { errorCode?: string } | undefined)?.errorCode;

export function clientAppFor(sdk: SdkModule, stack: Stack, tokenStore: unknown = "memory") {
  return new sdk.StackClientApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    tokenStore,
    noAutomaticPrefetch: true,
  });
}

export function serverAppFor(sdk: SdkModule, stack: Stack, tokenStore: unknown = "memory") {
  return new sdk.StackServerApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    secretServerKey: stack.demo.secretServerKey,
    tokenStore,
    noAutomaticPrefetch: true,
  });
}

/** The app's tests; `getStack` is read when each test runs (the stack starts in beforeAll). */
export function compatSuite(sdk: SdkModule, getStack: () => Stack): void {
  const clientApp = () => clientAppFor(sdk, getStack());
  const serverApp = () => serverAppFor(sdk, getStack());

  it("signs up, reads and updates the user, signs in again, lists and revokes sessions, changes the password, signs out", async () => {
    const app = clientApp();
    const email = randomEmail();
    const signUp = await app.signUpWithCredential({ email, password: "correct horse 1", verificationCallbackUrl: callbackUrl, noRedirect: true });
    expect(signUp.status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(email);
    expect(user.primaryEmailVerified).toBe(false);
    expect(user.hasPassword).toBe(true);
    expect(user.isAnonymous).toBe(false);

    await user.update({ displayName: "Ada", clientMetadata: { theme: "dark" } });
    const other = clientApp();
    expect((await other.signInWithCredential({ email, password: "correct horse 1", noRedirect: true })).status).toBe("ok");
    const reread = await app.getUser({ or: "throw" });
    expect(reread.displayName).toBe("Ada");
    expect(reread.clientMetadata).toEqual({ theme: "dark" });
    expect((await other.getUser({ or: "throw" })).displayName).toBe("Ada");

    const sessions = await reread.getActiveSessions();
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s: { isCurrentSession: boolean }) => s.isCurrentSession)).toHaveLength(1);
    await reread.revokeSession(sessions.find((s: { isCurrentSession: boolean }) => !s.isCurrentSession).id);
    expect(await reread.getActiveSessions()).toHaveLength(1);

    expect(await reread.updatePassword({ oldPassword: "correct horse 1", newPassword: "correct horse 2" })).toBeUndefined();
    expect(errorCode(await reread.updatePassword({ oldPassword: "nope nope nope", newPassword: "correct horse 3" }))).toBe("PASSWORD_CONFIRMATION_MISMATCH");
    expect(errorCode(await reread.updatePassword({ oldPassword: "correct horse 2", newPassword: "short" }))).toBe("PASSWORD_TOO_SHORT");
    const wrong = await clientApp().signInWithCredential({ email, password: "correct horse 1", noRedirect: true });
    expect(wrong.status).toBe("error");
    expect(errorCode(wrong.error)).toBe("EMAIL_PASSWORD_MISMATCH");
    expect((await clientApp().signInWithCredential({ email, password: "correct horse 2", noRedirect: true })).status).toBe("ok");

    await app.signOut({ redirectUrl: "/" }).catch(() => {});
    expect(await app.getUser()).toBeNull();
  });

  it("returns a taken e-mail and a short password as results, not throws", async () => {
    const email = randomEmail();
    expect((await clientApp().signUpWithCredential({ email, password: "long enough 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
    const dup = await clientApp().signUpWithCredential({ email, password: "long enough 1", verificationCallbackUrl: callbackUrl, noRedirect: true });
    expect(dup.status).toBe("error");
    expect(errorCode(dup.error)).toBe("USER_EMAIL_ALREADY_EXISTS");
    const short = await clientApp().signUpWithCredential({ email: randomEmail(), password: "short", verificationCallbackUrl: callbackUrl, noRedirect: true });
    expect(errorCode(short.error)).toBe("PASSWORD_TOO_SHORT");
  });

  it("creates an anonymous user only for or: 'anonymous' and upgrades it in place on sign-up", async () => {
    const app = clientApp();
    expect(await app.getUser()).toBeNull();
    const anon = await app.getUser({ or: "anonymous" });
    expect(anon.isAnonymous).toBe(true);
    expect(await app.getUser()).toBeNull();
    expect((await app.getUser({ or: "anonymous" })).id).toBe(anon.id);
    const email = randomEmail("upgrade");
    expect((await app.signUpWithCredential({ email, password: "upgrade me 123", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
    const upgraded = await app.getUser({ or: "throw" });
    expect(upgraded.id).toBe(anon.id);
    expect(upgraded.isAnonymous).toBe(false);
    expect(upgraded.primaryEmail).toBe(email);
  });

  it("manages contact channels", async () => {
    const app = clientApp();
    const email = randomEmail();
    await app.signUpWithCredential({ email, password: "channels 12345", verificationCallbackUrl: callbackUrl, noRedirect: true });
    const user = await app.getUser({ or: "throw" });
    const initial = await user.listContactChannels();
    expect(initial.map((c: { value: string; isPrimary: boolean; usedForAuth: boolean }) => [c.value, c.isPrimary, c.usedForAuth])).toEqual([[email, true, true]]);
    const second = randomEmail("second");
    const created = await user.createContactChannel({ type: "email", value: second, usedForAuth: false });
    expect(created).toMatchObject({ value: second, isPrimary: false, isVerified: false, usedForAuth: false });
    expect((await user.listContactChannels()).map((c: { value: string }) => c.value).sort()).toEqual([email, second].sort());
    await created.update({ usedForAuth: true });
    const updated = (await user.listContactChannels()).find((c: { id: string }) => c.id === created.id);
    expect(updated.usedForAuth).toBe(true);
    await updated.delete();
    expect((await user.listContactChannels()).map((c: { value: string }) => c.value)).toEqual([email]);
  });

  it("manages users from a server app", async () => {
    const server = serverApp();
    const email = randomEmail("server");
    const created = await server.createUser({ primaryEmail: email, password: "server set 123", primaryEmailAuthEnabled: true, displayName: "Server Made" });
    expect(created.primaryEmail).toBe(email);
    expect(created.serverMetadata).toBeNull();
    const page = await server.listUsers({ limit: 500 });
    expect(page.some((u: { id: string }) => u.id === created.id)).toBe(true);
    const fetched = await server.getUser(created.id);
    expect(fetched.displayName).toBe("Server Made");
    await fetched.update({ serverMetadata: { plan: "pro" }, clientReadOnlyMetadata: { tier: 2 } });
    const again = await serverApp().getUser(created.id);
    expect(again.serverMetadata).toEqual({ plan: "pro" });
    expect(again.clientReadOnlyMetadata).toEqual({ tier: 2 });
    const client = clientApp();
    expect((await client.signInWithCredential({ email, password: "server set 123", noRedirect: true })).status).toBe("ok");
    expect((await client.getUser({ or: "throw" })).clientReadOnlyMetadata).toEqual({ tier: 2 });
    await again.delete();
    expect(await serverApp().getUser(created.id)).toBeNull();
  });

  it("pages through users with a cursor", async () => {
    const server = serverApp();
    const prefix = `page-${randomBytes(3).toString("hex")}`;
    for (let i = 0; i < 3; i++) await server.createUser({ primaryEmail: `${prefix}-${i}@example.com`, displayName: `${prefix} ${i}` });
    const first = await server.listUsers({ limit: 2, query: prefix });
    expect(first).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const rest = await server.listUsers({ limit: 2, query: prefix, cursor: first.nextCursor });
    expect(rest).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    expect([...first, ...rest].map((u: { displayName: string }) => u.displayName)).toEqual([0, 1, 2].map((i) => `${prefix} ${i}`));
  });

  it("gives the server app the signed-in user of a token store, with server fields", async () => {
    const client = clientApp();
    await client.signUpWithCredential({ email: randomEmail(), password: "token store 1", verificationCallbackUrl: callbackUrl, noRedirect: true });
    const tokens = await (await client.getUser({ or: "throw" })).getAuthJson();
    const server = serverAppFor(sdk, getStack(), tokens);
    const me = await server.getUser({ or: "throw" });
    expect(me.serverMetadata).toBeNull();
    await me.update({ serverMetadata: { seen: true } });
    expect((await serverApp().getUser(me.id)).serverMetadata).toEqual({ seen: true });
  });
}

/** Refresh after expiry: a session whose access token has expired keeps working through its refresh token. */
export async function expiryScenario(sdk: SdkModule, stack: Stack, tokens: { accessToken: string; refreshToken: string }, email: string): Promise<void> {
  const app = clientAppFor(sdk, stack, tokens);
  const user = await app.getUser({ or: "throw" });
  expect(user.primaryEmail).toBe(email);
  const fresh = await user.getAuthJson();
  expect(fresh.refreshToken).toBe(tokens.refreshToken);
  expect(fresh.accessToken).not.toBe(tokens.accessToken);
}
