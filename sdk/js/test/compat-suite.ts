/**
 * One app, written against the published `@stackframe/js` API, run as-is against a real Vestibule gateway. The
 * compat test runs it once per SDK module (the published SDK at the contract's version and the latest, and
 * `@vestibule/js`): only the import differs.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import type { Stack } from "../../../gateway/test/support.ts";
import { currentTotp, extractCode, nextMail, wrongTotp } from "./mailbox.ts";

/** The subset of an SDK module the app uses (both the published SDK and ours satisfy it). */
export interface SdkModule {
  StackClientApp: new (options: any) => any;
  StackServerApp: new (options: any) => any;
  StackAdminApp: new (options: any) => any;
}

export const callbackUrl = "http://localhost:3000/handler/email-verification";
export const randomEmail = (prefix = "compat") => `${prefix}-${randomBytes(5).toString("hex")}@example.com`;
const errorCode = (err: unknown) => (err as { errorCode?: string } | undefined)?.errorCode;

export function clientAppFor(sdk: SdkModule, stack: Stack, tokenStore: unknown = "memory", extra: Record<string, unknown> = {}) {
  return new sdk.StackClientApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    tokenStore,
    noAutomaticPrefetch: true,
    ...extra,
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

export function adminAppFor(sdk: SdkModule, stack: Stack) {
  return new sdk.StackAdminApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    // The published admin app requires all three keys.
    publishableClientKey: stack.demo.publishableClientKey,
    secretServerKey: stack.demo.secretServerKey,
    superSecretAdminKey: stack.demo.superSecretAdminKey,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
  });
}

/** The data-vault store the suite uses; the stack's project must have it configured (see compat.int.test.ts). */
export const VAULT_STORE_ID = "compat-store";
const magicLinkCallbackUrl = "http://localhost:3000/handler/magic-link-callback";
const invitationCallbackUrl = "http://localhost:3000/handler/team-invitation";

/** What an SDK generation can do that others cannot. */
export interface SdkFeatures {
  /** `signUpWithCredential({ noVerificationCallback: true })` (published 2.8.102 and later). */
  readonly noVerificationCallback?: boolean;
  /** `isRestricted`/`restrictedReason`, `getUser({ includeRestricted })`, `listUsers({ includeRestricted })`. */
  readonly restrictedUsers?: boolean;
  /** Server `listTeams({ query, limit, cursor })` with `nextCursor`. */
  readonly teamsPaging?: boolean;
  /** `user.listTeamInvitations()` (with `teamDisplayName`) and `invitation.accept()` by id. */
  readonly invitationsByUser?: boolean;
  /** The browser event tracker's `sendAnalyticsEventBatch` (JSON with keepalive, else gzip as octet-stream). */
  readonly analytics?: boolean;
  /** Admin project `pushConfig`/`updatePushedConfig` (branch), `getConfigOverride(level)`, `resetConfigOverrideKeys`, config source. */
  readonly configLevels?: boolean;
  /** Server `sendEmail({ scheduledAt })`. */
  readonly scheduledEmail?: boolean;
}

/**
 * The app's tests; `getStack` is read when each test runs (the stack starts in beforeAll). The stack runs the auth,
 * e-mail, teams-permissions and vault services, and its project allows user and team API keys.
 */
export function compatSuite(sdk: SdkModule, getStack: () => Stack, features: SdkFeatures = {}): void {
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

  it("signs up with and without a verification callback, signs in, and refreshes from the refresh token alone (issue 13)", async () => {
    const stack = getStack();
    const variants: Record<string, unknown>[] = [{ verificationCallbackUrl: callbackUrl }];
    if (features.noVerificationCallback) variants.push({ noVerificationCallback: true });
    for (const variant of variants) {
      const email = randomEmail("signup");
      const app = clientAppFor(sdk, stack);
      expect((await app.signUpWithCredential({ email, password: "sign me up 123", noRedirect: true, ...variant })).status).toBe("ok");
      const user = await app.getUser({ or: "throw" });
      expect(user.primaryEmail).toBe(email);
      expect(user.primaryEmailVerified).toBe(false);

      const other = clientAppFor(sdk, stack);
      expect((await other.signInWithCredential({ email, password: "sign me up 123", noRedirect: true })).status).toBe("ok");
      const { accessToken, refreshToken } = await (await other.getUser({ or: "throw" })).getAuthJson();
      expect(refreshToken).toEqual(expect.any(String));

      // A process that only kept the refresh token: the SDK refreshes through /auth/oauth/token before its first call.
      await new Promise((r) => setTimeout(r, 1_100)); // a new token gets a later iat
      const resumed = clientAppFor(sdk, stack, { accessToken: null, refreshToken });
      const again = await resumed.getUser({ or: "throw" });
      expect(again.id).toBe(user.id);
      const fresh = await again.getAuthJson();
      expect(fresh.accessToken).toEqual(expect.any(String));
      expect(fresh.accessToken).not.toBe(accessToken);
    }
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

  const signedUpApp = async (prefix: string) => {
    const app = clientApp();
    const email = randomEmail(prefix);
    expect((await app.signUpWithCredential({ email, password: "compat features 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
    return { app, email, user: await app.getUser({ or: "throw" }) };
  };

  it("creates a team (which becomes selected), updates it, invites by e-mail, lists members, leaves and deletes it", async () => {
    const { app, user } = await signedUpApp("team");
    const team = await user.createTeam({ displayName: "Compat Team" });
    expect(team.displayName).toBe("Compat Team");
    expect((await app.getUser({ or: "throw" })).selectedTeam?.id).toBe(team.id);
    expect((await user.listTeams()).map((t: { id: string }) => t.id)).toEqual([team.id]);
    await team.update({ displayName: "Compat Team renamed", clientMetadata: { plan: "team" } });
    const reread = await user.getTeam(team.id);
    expect(reread.displayName).toBe("Compat Team renamed");
    expect(reread.clientMetadata).toEqual({ plan: "team" });

    const invitee = await signedUpApp("invitee");
    await team.inviteUser({ email: invitee.email, callbackUrl: invitationCallbackUrl });
    expect((await team.listInvitations()).map((i: { recipientEmail: string }) => i.recipientEmail)).toEqual([invitee.email]);
    const code = extractCode(await nextMail(getStack(), invitee.email, "team_invitation"));
    const details = await invitee.app.getTeamInvitationDetails(code);
    expect(details.status).toBe("ok");
    expect(details.data.teamDisplayName).toBe("Compat Team renamed");
    expect((await invitee.app.acceptTeamInvitation(code)).status).toBe("ok");
    expect((await invitee.user.listTeams()).map((t: { id: string }) => t.id)).toEqual([team.id]);
    const again = await invitee.app.acceptTeamInvitation(code);
    expect(again.status).toBe("error");
    expect(errorCode(again.error)).toBe("VERIFICATION_CODE_ALREADY_USED");

    expect((await team.listUsers()).map((u: { id: string }) => u.id).sort()).toEqual([user.id, invitee.user.id].sort());
    const serverTeam = await serverApp().getTeam(team.id);
    expect((await serverTeam.listUsers()).map((u: { primaryEmail: string }) => u.primaryEmail).sort()).toEqual([user.primaryEmail, invitee.email].sort());

    await invitee.user.leaveTeam(await invitee.user.getTeam(team.id));
    expect(await invitee.user.listTeams()).toEqual([]);
    expect((await serverTeam.listUsers()).map((u: { id: string }) => u.id)).toEqual([user.id]);
    await team.delete();
    expect(await user.listTeams()).toEqual([]);
    expect(await serverApp().getTeam(team.id)).toBeNull();
  });

  it("defines permissions as an admin, grants them on the server, checks them recursively on the client, revokes them", async () => {
    const tag = randomBytes(3).toString("hex");
    const read = `compat:read_${tag}`;
    const manage = `compat:manage_${tag}`;
    const projectRead = `compat:project_read_${tag}`;
    const projectAll = `compat:project_all_${tag}`;
    const admin = adminAppFor(sdk, getStack());
    await admin.createTeamPermissionDefinition({ id: read, containedPermissionIds: [] });
    await admin.createTeamPermissionDefinition({ id: manage, description: "Manage", containedPermissionIds: [read] });
    await admin.createProjectPermissionDefinition({ id: projectRead, containedPermissionIds: [] });
    await admin.createProjectPermissionDefinition({ id: projectAll, containedPermissionIds: [projectRead] });
    expect((await admin.listTeamPermissionDefinitions()).find((d: { id: string }) => d.id === manage).containedPermissionIds).toEqual([read]);

    const { user } = await signedUpApp("perm");
    const team = await user.createTeam({ displayName: "Permission Team" });
    const serverUser = await serverApp().getUser(user.id);
    const serverTeam = await serverApp().getTeam(team.id);
    expect(await user.hasPermission(team, read)).toBe(false);
    await serverUser.grantPermission(serverTeam, manage);
    await serverUser.grantPermission(projectAll);
    expect(await serverUser.hasPermission(serverTeam, read)).toBe(true);
    expect(await serverUser.hasPermission(projectRead)).toBe(true);

    const client = await clientAppFor(sdk, getStack(), await user.getAuthJson()).getUser({ or: "throw" });
    expect(await client.hasPermission(team, read)).toBe(true);
    expect((await client.getPermission(team, manage))?.id).toBe(manage);
    expect((await client.listPermissions(team)).map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([manage, read, "team_admin", "$update_team"]));
    expect((await client.listPermissions(team, { recursive: false })).map((p: { id: string }) => p.id).sort()).toEqual([manage, "team_admin"].sort());
    expect(await client.hasPermission(projectRead)).toBe(true);
    expect((await client.listPermissions({ recursive: false })).map((p: { id: string }) => p.id)).toEqual([projectAll]);

    await serverUser.revokePermission(serverTeam, manage);
    await serverUser.revokePermission(projectAll);
    expect(await serverUser.hasPermission(serverTeam, read)).toBe(false);
    expect(await serverUser.hasPermission(projectRead)).toBe(false);
    expect((await serverUser.listPermissions(serverTeam, { recursive: false })).map((p: { id: string }) => p.id)).toEqual(["team_admin"]);
  });

  it("creates, lists and revokes user and team API keys; the server checks them", async () => {
    const { user } = await signedUpApp("keys");
    const expiresAt = new Date(Date.now() + 86_400_000);
    const created = await user.createApiKey({ description: "compat key", expiresAt });
    expect(created.value).toMatch(/^sk_/);
    expect(created.description).toBe("compat key");
    expect(created.expiresAt.getTime()).toBe(expiresAt.getTime());
    expect(created.isValid()).toBe(true);
    const listed = await user.listApiKeys();
    expect(listed.map((k: { id: string }) => k.id)).toEqual([created.id]);
    expect(listed[0].value).toEqual({ lastFour: created.value.slice(-4) });
    expect((await serverApp().getUser({ apiKey: created.value }))?.id).toBe(user.id);
    await listed[0].revoke();
    const after = await user.listApiKeys();
    expect(after[0].isValid()).toBe(false);
    expect(after[0].whyInvalid()).toBe("manually-revoked");
    expect(await serverApp().getUser({ apiKey: created.value })).toBeNull();

    const team = await user.createTeam({ displayName: "Keyed Team" });
    const teamKey = await team.createApiKey({ description: "team key", expiresAt: null, isPublic: false });
    expect(teamKey.value).toMatch(/^sk_/);
    expect((await team.listApiKeys()).map((k: { id: string }) => k.id)).toEqual([teamKey.id]);
    expect((await serverApp().getTeam({ apiKey: teamKey.value }))?.id).toBe(team.id);
    expect(await serverApp().getUser({ apiKey: teamKey.value })).toBeNull();
    await (await team.listApiKeys())[0].revoke();
    expect(await serverApp().getTeam({ apiKey: teamKey.value })).toBeNull();
  });

  it("stores a value in the data vault and reads it back; a missing key or another secret gives null", async () => {
    const store = await serverApp().getDataVaultStore(VAULT_STORE_ID);
    const secret = `compat-secret-${randomBytes(6).toString("hex")}`;
    const key = `key-${randomBytes(4).toString("hex")}`;
    await store.setValue(key, "compat value ✓", { secret });
    expect(await store.getValue(key, { secret })).toBe("compat value ✓");
    await store.setValue(key, "replaced", { secret });
    expect(await (await serverApp().getDataVaultStore(VAULT_STORE_ID)).getValue(key, { secret })).toBe("replaced");
    expect(await store.getValue(`${key}-missing`, { secret })).toBeNull();
    expect(await store.getValue(key, { secret: `${secret}-other` })).toBeNull();
  });

  it("signs up with a magic link, then signs in with the e-mailed OTP and the nonce", async () => {
    const email = randomEmail("magic");
    const app = clientApp();
    expect((await app.sendMagicLinkEmail(email, { callbackUrl: magicLinkCallbackUrl })).status).toBe("ok");
    expect((await app.signInWithMagicLink(extractCode(await nextMail(getStack(), email, "magic_link")), { noRedirect: true })).status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(email);
    expect(user.primaryEmailVerified).toBe(true);

    const other = clientApp();
    const sent = await other.sendMagicLinkEmail(email, { callbackUrl: magicLinkCallbackUrl });
    expect(sent.status).toBe("ok");
    const otp = /Your code is ([0-9A-Z]{6})$/.exec((await nextMail(getStack(), email, "magic_link")).subject)![1]!;
    expect((await other.signInWithMagicLink(otp.toLowerCase() + sent.data.nonce, { noRedirect: true })).status).toBe("ok");
    expect((await other.getUser({ or: "throw" })).id).toBe(user.id);
    const reused = await clientApp().signInWithMagicLink(otp.toLowerCase() + sent.data.nonce, { noRedirect: true });
    expect(reused.status).toBe("error");
    expect(errorCode(reused.error)).toBe("VERIFICATION_CODE_ALREADY_USED");
  });

  it("lists notification categories and turns one off and on again", async () => {
    const { user } = await signedUpApp("notif");
    const categories = await user.listNotificationCategories();
    expect(categories.map((c: { name: string; enabled: boolean; canDisable: boolean }) => [c.name, c.enabled, c.canDisable])).toEqual([
      ["Transactional", true, false],
      ["Marketing", true, true],
    ]);
    await categories.find((c: { name: string }) => c.name === "Marketing").setEnabled(false);
    expect((await user.listNotificationCategories()).find((c: { name: string }) => c.name === "Marketing").enabled).toBe(false);
    await categories.find((c: { name: string }) => c.name === "Marketing").setEnabled(true);
    expect((await user.listNotificationCategories()).find((c: { name: string }) => c.name === "Marketing").enabled).toBe(true);
  });

  it("logs a CLI in: the CLI polls while the signed-in user's browser page completes the login", async () => {
    const { user } = await signedUpApp("cli");
    const cli = clientAppFor(sdk, getStack(), null);
    let link = "";
    const login = cli.promptCliLogin({ appUrl: "http://localhost:3000", waitTimeMillis: 100, maxAttempts: 200, promptLink: (url: string) => void (link = url) });
    await expect.poll(() => link).not.toBe("");
    expect(link).toContain("/handler/cli-auth-confirm?login_code=");
    // The confirmation page (in the app's browser) hands the signed-in user's refresh token to the CLI login.
    const { refreshToken } = await user.getAuthJson();
    const stack = getStack();
    const completed = await fetch(`${stack.url}/api/v1/auth/cli/complete`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-stack-project-id": stack.demo.projectId, "x-stack-access-type": "client", "x-stack-publishable-client-key": stack.demo.publishableClientKey },
      body: JSON.stringify({ login_code: new URL(link).searchParams.get("login_code"), refresh_token: refreshToken }),
    });
    expect(completed.status).toBe(200);
    const result = await login;
    expect(result.status).toBe("ok");
    const cliUser = await clientAppFor(sdk, getStack(), { accessToken: null, refreshToken: result.data }).getUser({ or: "throw" });
    expect(cliUser.id).toBe(user.id);
  });

  it("signs in an MFA user: the password step keeps the attempt code for the mfa page, the TOTP step signs in", async () => {
    const server = serverApp();
    const email = randomEmail("mfa");
    const secret = new Uint8Array(randomBytes(20));
    const created = await server.createUser({ primaryEmail: email, password: "mfa password 1", primaryEmailAuthEnabled: true });
    await created.update({ totpMultiFactorSecret: secret });
    expect((await serverApp().getUser(created.id)).isMultiFactorRequired).toBe(true);

    // In a browser page: the SDK keeps the attempt code in session storage and navigates to the mfa page.
    const storage = new Map<string, string>();
    const navigated: string[] = [];
    const globals = globalThis as { window?: unknown };
    const hadWindow = "window" in globals;
    globals.window = {
      location: new URL("http://localhost:3000/handler/sign-in"),
      sessionStorage: { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => void storage.set(k, v), removeItem: (k: string) => void storage.delete(k) },
    };
    const app = clientAppFor(sdk, getStack(), "memory", { redirectMethod: { useNavigate: () => (url: string) => navigated.push(url), navigate: (url: string) => navigated.push(url) } });
    try {
      // The published SDK throws after redirecting; @vestibule/js returns the MFA-required error result.
      await app.signInWithCredential({ email, password: "mfa password 1", noRedirect: true }).catch(() => undefined);
    } finally {
      if (hadWindow) globals.window = undefined;
      else delete globals.window;
    }
    const attemptCode = storage.get("stack_mfa_attempt_code") ?? storage.get("hexclave_mfa_attempt_code");
    expect(attemptCode).toMatch(/^[0-9a-z]{45}$/);
    expect(navigated.some((u) => u.includes("/handler/mfa"))).toBe(true);
    expect(await app.getUser()).toBeNull();

    const wrong = await app.signInWithMfa(await wrongTotp(secret), attemptCode, { noRedirect: true });
    expect(wrong.status).toBe("error");
    expect(errorCode(wrong.error)).toBe("INVALID_TOTP_CODE");
    expect((await app.signInWithMfa(await currentTotp(secret), attemptCode, { noRedirect: true })).status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.id).toBe(created.id);
    expect(user.isMultiFactorRequired).toBe(true);
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
