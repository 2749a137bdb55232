/**
 * Teams, invitations and permissions through the published Stack Auth SDK (@stackframe/js 2.8.41, the contract's
 * version, and the latest) against Vestibule, unchanged: only the base URL and keys point here.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import { call, headersFor, startStack, type Stack } from "../support.ts";
import { codeOf, waitForMail } from "../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
});
afterAll(async () => {
  await stack?.stop();
});

type Sdk = typeof latest;
const sdks: [string, Sdk][] = [
  ["@stackframe/js 2.8.41", v2841 as unknown as Sdk],
  ["@stackframe/js latest", latest],
];

const verificationCallbackUrl = "http://localhost:3000/handler/email-verification";
const invitationCallbackUrl = "http://localhost:3000/handler/team-invitation";
const email = () => `sdk-team-${randomBytes(5).toString("hex")}@example.com`;

describe.each(sdks)("%s: teams and permissions", (_name, sdk) => {
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

  async function signedIn() {
    const app = clientApp();
    const address = email();
    const res = await app.signUpWithCredential({ email: address, password: "team sdk password 1", verificationCallbackUrl, noRedirect: true });
    expect(res.status).toBe("ok");
    return { app, address, user: await app.getUser({ or: "throw" }) };
  }

  it("creates (and selects), lists, updates, invites with an accepted code, lists members, leaves and deletes teams", async () => {
    const { app, user } = await signedIn();
    const team = await user.createTeam({ displayName: "SDK Team" });
    expect(team.displayName).toBe("SDK Team");
    expect((await app.getUser({ or: "throw" })).selectedTeam?.id).toBe(team.id);
    expect((await user.listTeams()).map((t) => t.id)).toEqual([team.id]);

    await team.update({ displayName: "SDK Team renamed", clientMetadata: { plan: "team" } });
    const reread = await user.getTeam(team.id);
    expect(reread?.displayName).toBe("SDK Team renamed");
    expect(reread?.clientMetadata).toEqual({ plan: "team" });

    const invitee = await signedIn();
    await team.inviteUser({ email: invitee.address, callbackUrl: invitationCallbackUrl });
    expect((await team.listInvitations()).map((i) => i.recipientEmail)).toEqual([invitee.address]);
    const mail = await waitForMail(stack, invitee.address, (m) => m.template === "team_invitation");
    const code = codeOf(mail);
    const details = await invitee.app.getTeamInvitationDetails(code);
    expect(details.status).toBe("ok");
    expect((details as { data: { teamDisplayName: string } }).data.teamDisplayName).toBe("SDK Team renamed");
    expect((await invitee.app.acceptTeamInvitation(code)).status).toBe("ok");
    expect((await invitee.user.listTeams()).map((t) => t.id)).toEqual([team.id]);
    const again = await invitee.app.acceptTeamInvitation(code);
    expect(again.status).toBe("error");
    expect((again as { error: { errorCode?: string } }).error.errorCode).toBe("VERIFICATION_CODE_ALREADY_USED");

    const memberIds = (await team.listUsers()).map((u) => u.id).sort();
    expect(memberIds).toEqual([user.id, invitee.user.id].sort());
    const serverTeam = await serverApp().getTeam(team.id);
    expect(serverTeam?.displayName).toBe("SDK Team renamed");
    const serverMembers = await serverTeam!.listUsers();
    expect(serverMembers.map((u) => u.primaryEmail).sort()).toEqual([user.primaryEmail, invitee.address].sort());

    // The invitee leaves; the team then has only its creator, who deletes it.
    const inviteeTeam = (await invitee.user.listTeams())[0]!;
    await invitee.user.leaveTeam(inviteeTeam);
    expect(await invitee.user.listTeams()).toEqual([]);
    expect((await serverTeam!.listUsers()).map((u) => u.id)).toEqual([user.id]);
    await team.delete();
    expect(await serverApp().getTeam(team.id)).toBeNull();
  });

  it("grants, checks, lists (recursively through a contained permission) and revokes team permissions", async () => {
    const tag = randomBytes(3).toString("hex");
    const read = `sdk:read_${tag}`;
    const adminPerm = `sdk:admin_${tag}`;
    const admin = headersFor(stack.demo, "admin");
    expect((await call(stack, "POST", "/api/v1/team-permission-definitions", { headers: admin, body: { id: read } })).status).toBe(201);
    expect((await call(stack, "POST", "/api/v1/team-permission-definitions", { headers: admin, body: { id: adminPerm, contained_permission_ids: [read] } })).status).toBe(201);

    const { app, user } = await signedIn();
    const team = await user.createTeam({ displayName: "Permissions" });
    const server = serverApp();
    const serverUser = (await server.getUser(user.id))!;
    const serverTeam = (await server.getTeam(team.id))!;

    expect(await user.hasPermission(team, read)).toBe(false);
    await serverUser.grantPermission(serverTeam, adminPerm);
    expect(await serverUser.hasPermission(serverTeam, read)).toBe(true);
    const clientView = (await app.getUser({ or: "throw" }))!;
    expect(await clientView.hasPermission(team, read)).toBe(true);
    const recursive = (await clientView.listPermissions(team)).map((p) => p.id);
    expect(recursive).toEqual(expect.arrayContaining([adminPerm, read, "team_admin", "$update_team"]));
    const direct = (await clientView.listPermissions(team, { recursive: false })).map((p) => p.id).sort();
    expect(direct).toEqual([adminPerm, "team_admin"].sort());

    await serverUser.revokePermission(serverTeam, adminPerm);
    expect(await serverUser.hasPermission(serverTeam, read)).toBe(false);
    expect((await serverUser.listPermissions(serverTeam, { recursive: false })).map((p) => p.id)).toEqual(["team_admin"]);
  });

  it("refuses a member without $update_team, and a team of another project", async () => {
    const { user } = await signedIn();
    const team = await user.createTeam({ displayName: "Guarded SDK" });
    const member = await signedIn();
    const serverTeam = (await serverApp().getTeam(team.id))!;
    await serverTeam.addUser(member.user.id);
    const memberTeam = (await member.user.getTeam(team.id))!;
    const failure = await memberTeam.update({ displayName: "taken over" }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((failure as { errorCode?: string }).errorCode).toBe("TEAM_PERMISSION_REQUIRED");
    // A server app of another project does not see this team.
    const other = new sdk.StackServerApp({
      baseUrl: stack.url,
      projectId: stack.internal.projectId,
      publishableClientKey: stack.internal.publishableClientKey,
      secretServerKey: stack.internal.secretServerKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
    } as never);
    expect(await other.getTeam(team.id)).toBeNull();
  });
});
