/**
 * Issue 13 through the current published SDK (@stackframe/js 2.8.108), unchanged: restricted users (admin
 * restriction, unverified e-mails where required), the users list filters, teams paging, invitations listed by
 * recipient and accepted by id, permission-definition paging.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import { call, headersFor, startStack, type Stack } from "../support.ts";
import { waitForMail } from "../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true, env: { VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT: "off" } });
});
afterAll(async () => {
  await stack?.stop();
});

const callbackUrl = "http://localhost:3000/handler/email-verification";
const email = () => `sdk-r-${randomBytes(5).toString("hex")}@example.com`;

const clientApp = () =>
  new latest.StackClientApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
  });
const serverApp = () =>
  new latest.StackServerApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    secretServerKey: stack.demo.secretServerKey,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
  });
const adminApp = () =>
  new latest.StackAdminApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    secretServerKey: stack.demo.secretServerKey,
    superSecretAdminKey: stack.demo.superSecretAdminKey,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
  });

async function signedUp() {
  const app = clientApp();
  const address = email();
  expect((await app.signUpWithCredential({ email: address, password: "restricted sdk 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
  const user = await app.getUser({ or: "throw" });
  return { app, address, user };
}

describe("@stackframe/js 2.8.108: restricted users (issue 13)", () => {
  it("restricts and unrestricts a user from the server app; the restricted user counts as signed out unless included", async () => {
    const { app, user } = await signedUp();
    const server = serverApp();
    const serverUser = (await server.getUser(user.id))!;
    await serverUser.update({ restrictedByAdmin: true, restrictedByAdminReason: "Needs review", restrictedByAdminPrivateDetails: "flagged by a rule" });

    const reread = (await server.getUser(user.id))!;
    expect(reread.isRestricted).toBe(true);
    expect(reread.restrictedReason).toEqual({ type: "restricted_by_administrator" });
    expect(reread.restrictedByAdmin).toBe(true);
    expect(reread.restrictedByAdminReason).toBe("Needs review");
    expect(reread.restrictedByAdminPrivateDetails).toBe("flagged by a rule");

    // The client app sees its restricted user only when it asks for restricted users (fresh token: new claims).
    const fresh = clientApp();
    await fresh.signInWithCredential({ email: user.primaryEmail!, password: "restricted sdk 1", noRedirect: true });
    expect(await fresh.getUser()).toBeNull();
    const included = await fresh.getUser({ includeRestricted: true });
    expect(included?.id).toBe(user.id);
    expect(included?.isRestricted).toBe(true);

    // Listing: left out by default, in with includeRestricted.
    const ids = async (options: Record<string, unknown>) => (await server.listUsers({ limit: 1000, ...options } as never)).map((u) => u.id);
    expect(await ids({})).not.toContain(user.id);
    expect(await ids({ includeRestricted: true })).toContain(user.id);

    await serverUser.update({ restrictedByAdmin: false });
    expect((await server.getUser(user.id))!.isRestricted).toBe(false);
    expect(await ids({})).toContain(user.id);
    expect(app).toBeDefined();
  });

  it("lists users by last activity and only anonymous users", async () => {
    const server = serverApp();
    const anonymousApp = clientApp();
    const anon = await anonymousApp.getUser({ or: "anonymous" });
    expect(anon.isAnonymous).toBe(true);
    expect(anon.isRestricted).toBe(true);
    const onlyAnonymous = await server.listUsers({ includeAnonymous: true, onlyAnonymous: true, limit: 1000 } as never);
    expect(onlyAnonymous.map((u) => u.id)).toContain(anon.id);
    expect(onlyAnonymous.every((u) => u.isAnonymous)).toBe(true);
    const byActivity = await server.listUsers({ orderBy: "lastActiveAt", desc: true, limit: 5 } as never);
    const times = byActivity.map((u) => u.lastActiveAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });
});

describe("@stackframe/js 2.8.108: teams and invitations (issue 13)", () => {
  it("pages the project's teams", async () => {
    const server = serverApp();
    const tag = randomBytes(3).toString("hex");
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await server.createTeam({ displayName: `SDK paged ${tag} ${i}` })).id);
    const listed = await server.listTeams({ query: tag, limit: 2 } as never);
    expect(listed.map((t) => t.id)).toEqual(made.slice(0, 2));
  });

  it("lists the invitations a user received and accepts one", async () => {
    const owner = await signedUp();
    const team = await owner.user.createTeam({ displayName: "SDK invitations" });
    const invitee = await signedUp();
    // Invitations go to verified addresses.
    await (await serverApp().getUser(invitee.user.id))!.update({ primaryEmailVerified: true });
    await team.inviteUser({ email: invitee.address, callbackUrl: "http://localhost:3000/handler/team-invitation" });
    await waitForMail(stack, invitee.address, (m) => m.template === "team_invitation");

    const user = await invitee.app.getUser({ or: "throw" });
    const received = await user.listTeamInvitations();
    expect(received.map((i) => [i.teamId, i.teamDisplayName, i.recipientEmail])).toEqual([[team.id, "SDK invitations", invitee.address]]);
    await received[0]!.accept();
    expect((await user.listTeams()).map((t) => t.id)).toContain(team.id);
  });
});

describe("@stackframe/js 2.8.108: admin (issue 13)", () => {
  it("pages team permission definitions", async () => {
    const admin = adminApp();
    const tag = `sdk_${randomBytes(3).toString("hex")}`;
    for (const n of ["a", "b", "c"]) await admin.createTeamPermissionDefinition({ id: `${tag}_${n}`, containedPermissionIds: [] });
    const res = await call(stack, "GET", `/api/v1/team-permission-definitions?limit=2&query=${tag}`, { headers: headersFor(stack.demo, "admin", "x-hexclave-") });
    expect(res.json.items.map((d: { id: string }) => d.id)).toEqual([`${tag}_a`, `${tag}_b`]);
    const paged = await (admin as unknown as { _interface: { listTeamPermissionDefinitionsPaginated(o: object): Promise<{ items: { id: string }[]; nextCursor: string | null }> } })._interface.listTeamPermissionDefinitionsPaginated({ limit: 2, query: tag });
    expect(paged.items.map((d) => d.id)).toEqual([`${tag}_a`, `${tag}_b`]);
    expect(paged.nextCursor).toBe(`${tag}_c`);
  });
});
