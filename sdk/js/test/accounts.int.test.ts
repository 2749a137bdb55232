/**
 * @vestibule/js against the real gateway (identity, auth, e-mail and vault services in this process, real
 * PostgreSQL): magic link / OTP sign-in with the codes from the dev mailbox, user API keys, the data vault, TOTP
 * multi-factor sign-in, CLI login, notification categories and contact channels.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnownErrors, StackServerApp, StatusError } from "@vestibule/js";
import { call, headersFor, startStack, type Stack } from "../../../gateway/test/support.ts";
import { callbackUrl, randomEmail } from "./compat-suite.ts";
import { currentTotp, extractCode, nextMail, vestibuleApps, wrongTotp } from "./helpers.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, vault: true });
  const project = await apps.admin().getProject();
  await project.update({ config: { allowUserApiKeys: true, allowTeamApiKeys: true } });
  await project.updateConfig({ "dataVault.stores.sdk-store": { displayName: "SDK store" } });
});
afterAll(async () => {
  await stack?.stop();
});

const apps = vestibuleApps(() => stack);
const magicLinkCallback = "http://localhost:3000/handler/magic-link-callback";

describe("magic link and OTP sign-in", () => {
  it("signs up with the link's code, then signs in with the e-mailed OTP + nonce; a used code is a result error", async () => {
    const email = randomEmail("magic");
    const app = apps.client();
    const sent = await app.sendMagicLinkEmail(email, { callbackUrl: magicLinkCallback });
    expect(sent.status).toBe("ok");
    const first = await nextMail(stack, email, "magic_link");
    expect(first.text).toContain(magicLinkCallback);
    const signedUp = await app.signInWithMagicLink(extractCode(first), { noRedirect: true });
    expect(signedUp.status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user).toMatchObject({ primaryEmail: email, primaryEmailVerified: true, otpAuthEnabled: true, hasPassword: false });

    const other = apps.client();
    const again = await other.sendMagicLinkEmail(email, { callbackUrl: magicLinkCallback });
    if (again.status !== "ok") throw again.error;
    expect(again.data.nonce).toMatch(/^[0-9a-z]{39}$/);
    const otp = /Your code is ([0-9A-Z]{6})$/.exec((await nextMail(stack, email, "magic_link")).subject)![1]!;
    const signedIn = await other.signInWithMagicLink(otp.toLowerCase() + again.data.nonce, { noRedirect: true });
    expect(signedIn.status).toBe("ok");
    expect((await other.getUser({ or: "throw" })).id).toBe(user.id);

    const reused = await apps.client().signInWithMagicLink(otp.toLowerCase() + again.data.nonce, { noRedirect: true });
    expect(reused.status === "error" && reused.error).toBeInstanceOf(KnownErrors.VerificationCodeError);
    expect(reused.status === "error" && reused.error.errorCode).toBe("VERIFICATION_CODE_ALREADY_USED");
    const unknown = await apps.client().signInWithMagicLink("x".repeat(45), { noRedirect: true });
    expect(unknown.status === "error" && unknown.error.errorCode).toBe("VERIFICATION_CODE_NOT_FOUND");
  });

  it("a password user with a verified e-mail signs in with a magic link (and gains OTP); an unverified one is refused", async () => {
    const server = apps.server();
    const email = randomEmail("pw-magic");
    const created = await server.createUser({ primaryEmail: email, primaryEmailVerified: true, primaryEmailAuthEnabled: true, password: "password user 1" });
    const app = apps.client();
    expect((await app.sendMagicLinkEmail(email, { callbackUrl: magicLinkCallback })).status).toBe("ok");
    expect((await app.signInWithMagicLink(extractCode(await nextMail(stack, email, "magic_link")), { noRedirect: true })).status).toBe("ok");
    const me = await app.getUser({ or: "throw" });
    expect(me.id).toBe(created.id);
    expect(me.hasPassword).toBe(true);
    expect(me.otpAuthEnabled).toBe(true);

    const { email: unverified } = await apps.signedUp("pw-unverified");
    const err = await apps.client().sendMagicLinkEmail(unverified, { callbackUrl: magicLinkCallback }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KnownErrors.UserWithEmailAlreadyExists);
    expect((err as { details?: { would_work_if_email_was_verified?: boolean } }).details?.would_work_if_email_was_verified).toBe(true);
  });

  it("refuses a callback URL on a domain the project does not trust, as a result", async () => {
    const sent = await apps.client().sendMagicLinkEmail(randomEmail("magic"), { callbackUrl: "https://evil.example.net/handler/magic-link-callback" });
    expect(sent.status === "error" && sent.error).toBeInstanceOf(KnownErrors.RedirectUrlNotWhitelisted);
  });

  it("an anonymous user who signs in with a magic link for a new e-mail is upgraded in place", async () => {
    const app = apps.client();
    const anon = await app.getUser({ or: "anonymous" });
    const email = randomEmail("anon-magic");
    expect((await app.sendMagicLinkEmail(email, { callbackUrl: magicLinkCallback })).status).toBe("ok");
    expect((await app.signInWithMagicLink(extractCode(await nextMail(stack, email, "magic_link")), { noRedirect: true })).status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.id).toBe(anon.id);
    expect(user).toMatchObject({ isAnonymous: false, primaryEmail: email });
  });
});

describe("user API keys", () => {
  it("creates, lists, checks on the server, updates and revokes a user API key", async () => {
    const { user, email } = await apps.signedUp("ukey");
    const expiresAt = new Date(Date.now() + 86_400_000);
    const created = await user.createApiKey({ description: "cli token", expiresAt });
    expect(created.value).toMatch(/^sk_/);
    expect(created).toMatchObject({ type: "user", userId: user.id, description: "cli token", isPublic: false });
    expect(created.expiresAt?.getTime()).toBe(expiresAt.getTime());

    const listed = await user.listApiKeys();
    expect(listed.map((k) => k.id)).toEqual([created.id]);
    expect(listed[0]!.value).toEqual({ lastFour: created.value.slice(-4) });
    expect(listed[0]!.isValid()).toBe(true);

    const owner = await apps.server().getUser({ apiKey: created.value });
    expect(owner?.id).toBe(user.id);
    expect(owner?.primaryEmail).toBe(email);
    expect(await apps.server().getUser({ apiKey: `${created.value.slice(0, -1)}${created.value.endsWith("0") ? "1" : "0"}` })).toBeNull();
    expect(await apps.server().getTeam({ apiKey: created.value })).toBeNull();

    await listed[0]!.update({ description: "cli token (laptop)" });
    expect((await user.listApiKeys())[0]!.description).toBe("cli token (laptop)");
    await listed[0]!.revoke();
    const after = (await user.listApiKeys())[0]!;
    expect(after.isValid()).toBe(false);
    expect(after.whyInvalid()).toBe("manually-revoked");
    expect(after.manuallyRevokedAt).toBeInstanceOf(Date);
    expect(await apps.server().getUser({ apiKey: created.value })).toBeNull();

    // A server app creates keys for a user; a public key never expires when expiresAt is null.
    const serverUser = (await apps.server().getUser(user.id))!;
    const pub = await serverUser.createApiKey({ description: "public", expiresAt: null, isPublic: true });
    expect(pub.value).toMatch(/^pk_/);
    expect(pub.expiresAt).toBeUndefined();
    expect((await serverUser.listApiKeys()).map((k) => k.id).sort()).toEqual([created.id, pub.id].sort());
    expect((await apps.server().getUser({ apiKey: pub.value }))?.id).toBe(user.id);
  });

  it("refuses user API keys when the project does not allow them", async () => {
    const project = await apps.admin().getProject();
    await project.update({ config: { allowUserApiKeys: false } });
    try {
      const { user } = await apps.signedUp("nokeys");
      const err = await user.createApiKey({ description: "x", expiresAt: null }).catch((e: unknown) => e);
      // A plain 400 (contract endpoints.md §5), not a known error.
      expect(err).toBeInstanceOf(StatusError);
      expect(err).toMatchObject({ statusCode: 400, message: "User API keys are not enabled for this project." });
    } finally {
      await project.update({ config: { allowUserApiKeys: true } });
    }
  });
});

describe("data vault", () => {
  it("round-trips a value through client-side encryption; a missing key, or another secret, gives null", async () => {
    const store = await apps.server().getDataVaultStore("sdk-store");
    const secret = `vault-secret-${randomBytes(8).toString("hex")}`;
    const key = `user:${randomBytes(4).toString("hex")}`;
    await store.setValue(key, "the plaintext value ✓", { secret });
    expect(await store.getValue(key, { secret })).toBe("the plaintext value ✓");
    await store.setValue(key, "replaced", { secret });
    expect(await (await apps.server().getDataVaultStore("sdk-store")).getValue(key, { secret })).toBe("replaced");
    expect(await store.getValue(`${key}-missing`, { secret })).toBeNull();
    expect(await store.getValue(key, { secret: `${secret}-other` })).toBeNull();
    // What goes over the wire holds neither the key nor the value in the clear.
    const sent: string[] = [];
    const recording = new StackServerApp({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      secretServerKey: stack.demo.secretServerKey,
      tokenStore: null,
      fetch: (url, init) => {
        sent.push(`${url} ${String(init.body)}`);
        return fetch(url, init);
      },
    });
    const recorded = await recording.getDataVaultStore("sdk-store");
    await recorded.setValue(key, "over the wire", { secret });
    expect(await recorded.getValue(key, { secret })).toBe("over the wire");
    expect(sent).toHaveLength(2);
    for (const body of sent) {
      expect(body).not.toContain("over the wire");
      expect(body).not.toContain(key);
      expect(body).not.toContain(secret);
    }
  });

  it("an unknown store is an error, not null", async () => {
    const store = await apps.server().getDataVaultStore("no-such-store");
    const err = await store.getValue("k", { secret: "s" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(((err as Error).cause as { errorCode?: string } | undefined)?.errorCode).toBe("DATA_VAULT_STORE_DOES_NOT_EXIST");
  });
});

describe("TOTP multi-factor sign-in", () => {
  it("a user turns on TOTP; sign-in takes the password step, then the TOTP step", async () => {
    const { user, email } = await apps.signedUp("mfa");
    const secret = new Uint8Array(randomBytes(20));
    await user.update({ totpMultiFactorSecret: secret });
    expect((await apps.client(await user.getAuthJson()).getUser({ or: "throw" })).isMultiFactorRequired).toBe(true);

    const app = apps.client();
    const first = await app.signInWithCredential({ email, password: "vestibule pw 1", noRedirect: true });
    if (first.status !== "error" || !KnownErrors.MultiFactorAuthenticationRequired.isInstance(first.error)) throw new Error(`expected MFA required, got ${first.status}`);
    const attemptCode = (first.error.details as { attempt_code: string }).attempt_code;
    expect(attemptCode).toMatch(/^[0-9a-z]{45}$/);
    expect(await app.getUser()).toBeNull();

    const wrong = await app.signInWithMfa(await wrongTotp(secret), attemptCode, { noRedirect: true });
    expect(wrong.status === "error" && wrong.error).toBeInstanceOf(KnownErrors.InvalidTotpCode);
    const ok = await app.signInWithMfa(await currentTotp(secret), attemptCode, { noRedirect: true });
    expect(ok.status).toBe("ok");
    const me = await app.getUser({ or: "throw" });
    expect(me.id).toBe(user.id);
    expect(me.isMultiFactorRequired).toBe(true);

    // The attempt code is single use.
    const reused = await apps.client().signInWithMfa(await currentTotp(secret), attemptCode, { noRedirect: true });
    expect(reused.status === "error" && reused.error).toBeInstanceOf(KnownErrors.VerificationCodeError);

    // Turning it off: the password alone signs in again.
    await me.update({ totpMultiFactorSecret: null });
    expect((await apps.client().signInWithCredential({ email, password: "vestibule pw 1", noRedirect: true })).status).toBe("ok");
  });

  it("a magic-link sign-in of an MFA user also asks for the TOTP step", async () => {
    const server = apps.server();
    const email = randomEmail("mfa-otp");
    const secret = new Uint8Array(randomBytes(20));
    const created = await server.createUser({ primaryEmail: email, primaryEmailVerified: true, otpAuthEnabled: true, primaryEmailAuthEnabled: true });
    await created.update({ totpMultiFactorSecret: secret });
    const app = apps.client();
    expect((await app.sendMagicLinkEmail(email, { callbackUrl: magicLinkCallback })).status).toBe("ok");
    const first = await app.signInWithMagicLink(extractCode(await nextMail(stack, email, "magic_link")), { noRedirect: true });
    if (first.status !== "error" || !KnownErrors.MultiFactorAuthenticationRequired.isInstance(first.error)) throw new Error(`expected MFA required, got ${first.status}`);
    const attemptCode = (first.error.details as { attempt_code: string }).attempt_code;
    expect((await app.signInWithMfa(await currentTotp(secret), attemptCode, { noRedirect: true })).status).toBe("ok");
    expect((await app.getUser({ or: "throw" })).id).toBe(created.id);
  });
});

describe("CLI login", () => {
  it("the CLI polls while a signed-in browser session confirms; it then gets a refresh token that works", async () => {
    const { app: browser, user } = await apps.signedUp("cli");
    const cli = apps.client(null);
    let link = "";
    const login = cli.promptCliLogin({ appUrl: "http://localhost:3000/", waitTimeMillis: 100, maxAttempts: 200, promptLink: (url) => void (link = url) });
    await expect.poll(() => link).not.toBe("");
    expect(link).toMatch(/^http:\/\/localhost:3000\/handler\/cli-auth-confirm\?login_code=/);
    const loginCode = new URL(link).searchParams.get("login_code")!;
    await browser.confirmCliLogin(loginCode);
    const result = await login;
    if (result.status !== "ok") throw result.error;
    const cliUser = await apps.client({ accessToken: null, refreshToken: result.data }).getUser({ or: "throw" });
    expect(cliUser.id).toBe(user.id);
    // The browser's own session is untouched.
    expect((await browser.getUser({ or: "throw" })).id).toBe(user.id);
  });

  it("gives up with the timeout message after maxAttempts, and reports an expired login", async () => {
    const cli = apps.client(null);
    const timedOut = await cli.promptCliLogin({ appUrl: "http://localhost:3000", waitTimeMillis: 10, maxAttempts: 2, promptLink: () => {} });
    expect(timedOut.status === "error" && timedOut.error.message).toContain("Timed out waiting for CLI authentication.");
    const expired = await cli.promptCliLogin({ appUrl: "http://localhost:3000", expiresInMillis: 1, waitTimeMillis: 50, maxAttempts: 50, promptLink: () => {} });
    expect(expired.status === "error" && expired.error).toBeInstanceOf(KnownErrors.CliAuthExpiredError);
  });
});

describe("sessions seen from a server app", () => {
  it("lists a user's sessions and revokes one; its refresh token then stops working", async () => {
    const { user, email } = await apps.signedUp("ssess");
    const second = apps.client();
    expect((await second.signInWithCredential({ email, password: "vestibule pw 1", noRedirect: true })).status).toBe("ok");
    const secondTokens = await (await second.getUser({ or: "throw" })).getAuthJson();
    const serverUser = (await apps.server().getUser(user.id))!;
    const sessions = await serverUser.getActiveSessions();
    expect(sessions).toHaveLength(2);
    expect(sessions.every((s) => s.userId === user.id && s.createdAt instanceof Date && !s.isImpersonation)).toBe(true);
    // Which one is the second app's: the one the first app does not call current.
    const mine = (await user.getActiveSessions()).find((s) => s.isCurrentSession)!;
    await serverUser.revokeSession(sessions.find((s) => s.id !== mine.id)!.id);
    expect((await serverUser.getActiveSessions()).map((s) => s.id)).toEqual([mine.id]);
    expect(await apps.client({ accessToken: null, refreshToken: secondTokens.refreshToken }).getUser()).toBeNull();
  });

  it("deletes the signed-in user's own account when the project allows it", async () => {
    const project = await apps.admin().getProject();
    await project.update({ config: { clientUserDeletionEnabled: true } });
    const { app, user } = await apps.signedUp("self-delete");
    await user.delete();
    expect(await app.getUser()).toBeNull();
    expect(await apps.server().getUser(user.id)).toBeNull();
  });
});

describe("notification categories and contact channels", () => {
  it("lists the categories and toggles the one that can be turned off; the server sees the same", async () => {
    const { user } = await apps.signedUp("notif");
    const categories = await user.listNotificationCategories();
    expect(categories.map((c) => [c.name, c.enabled, c.canDisable])).toEqual([
      ["Transactional", true, false],
      ["Marketing", true, true],
    ]);
    await categories.find((c) => c.name === "Marketing")!.setEnabled(false);
    expect((await user.listNotificationCategories()).find((c) => c.name === "Marketing")!.enabled).toBe(false);
    const serverView = await (await apps.server().getUser(user.id))!.listNotificationCategories();
    expect(serverView.find((c) => c.name === "Marketing")!.enabled).toBe(false);
    await serverView.find((c) => c.name === "Marketing")!.setEnabled(true);
    expect((await user.listNotificationCategories()).find((c) => c.name === "Marketing")!.enabled).toBe(true);
    const err = await categories.find((c) => c.name === "Transactional")!.setEnabled(false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).statusCode).toBe(400);
    expect((await user.listNotificationCategories()).find((c) => c.name === "Transactional")!.enabled).toBe(true);
  });

  it("adds a second e-mail, verifies it with the mailed code, makes it primary and deletes the old one", async () => {
    const { app, user, email } = await apps.signedUp("chan");
    const second = randomEmail("chan2");
    const created = await user.createContactChannel({ type: "email", value: second, usedForAuth: true });
    expect(created).toMatchObject({ value: second, isPrimary: false, isVerified: false, usedForAuth: true });
    await created.sendVerificationEmail({ callbackUrl });
    const code = extractCode(await nextMail(stack, second, "email_verification"));
    expect((await app.verifyEmail(code)).status).toBe("ok");
    const verified = (await user.listContactChannels()).find((c) => c.id === created.id)!;
    expect(verified.isVerified).toBe(true);
    await verified.update({ isPrimary: true });
    await expect.poll(async () => (await apps.client(await user.getAuthJson()).getUser({ or: "throw" })).primaryEmail, { timeout: 5_000 }).toBe(second);
    const old = (await user.listContactChannels()).find((c) => c.value === email)!;
    expect(old.isPrimary).toBe(false);
    await old.delete();
    expect((await user.listContactChannels()).map((c) => c.value)).toEqual([second]);
    // The second address now signs in with the password.
    expect((await apps.client().signInWithCredential({ email: second, password: "vestibule pw 1", noRedirect: true })).status).toBe("ok");
  });

  it("refuses an e-mail another user already signs in with, as a typed error", async () => {
    const { email } = await apps.signedUp("taken");
    const { user } = await apps.signedUp("taker");
    const err = await user.createContactChannel({ type: "email", value: email, usedForAuth: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KnownErrors.ContactChannelAlreadyUsedForAuthBySomeoneElse);
    expect((err as { details?: { contact_channel_value?: string } }).details?.contact_channel_value).toBe(email);
    expect((await user.listContactChannels()).map((c) => c.value)).not.toContain(email);
  });

  it("manages a user's channels from a server app, including marking one verified", async () => {
    const server = apps.server();
    const created = await server.createUser({ primaryEmail: randomEmail("schan") });
    const extra = randomEmail("schan2");
    const channel = await created.createContactChannel({ type: "email", value: extra, usedForAuth: false, isVerified: true });
    expect(channel).toMatchObject({ value: extra, isVerified: true, usedForAuth: false });
    await channel.update({ usedForAuth: true });
    const listed = await (await apps.server().getUser(created.id))!.listContactChannels();
    expect(listed.find((c) => c.value === extra)).toMatchObject({ usedForAuth: true, isVerified: true });
    await listed.find((c) => c.value === extra)!.delete();
    expect((await created.listContactChannels()).map((c) => c.value)).toEqual([created.primaryEmail]);
    // The server's raw view agrees.
    const raw = await call(stack, "GET", `/api/v1/contact-channels?user_id=${created.id}`, { headers: headersFor(stack.demo, "server") });
    expect(raw.json.items.map((c: { value: string }) => c.value)).toEqual([created.primaryEmail]);
  });
});
