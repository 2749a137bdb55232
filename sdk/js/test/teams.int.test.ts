/**
 * @vestibule/js against the real gateway with the teams-permissions service (and identity, auth, e-mail) in this
 * process on real PostgreSQL: teams (create → selected, list, update, invite by e-mail and accept with the code from
 * the dev mailbox, members, leave, delete), team and project permissions (recursive through contained permissions),
 * and team API keys.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnownErrors } from "@vestibule/js";
import { startStack, type Stack } from "../../../gateway/test/support.ts";
import { randomEmail } from "./compat-suite.ts";
import { extractCode, nextMail, vestibuleApps } from "./helpers.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
  const project = await apps.admin().getProject();
  await project.update({ config: { allowTeamApiKeys: true, allowUserApiKeys: true } });
});
afterAll(async () => {
  await stack?.stop();
});

const apps = vestibuleApps(() => stack);
const invitationCallbackUrl = "http://localhost:3000/handler/team-invitation";

describe("teams with @vestibule/js on the real gateway", () => {
  it("creates a team that becomes the selected team, lists and updates it", async () => {
    const { app, user } = await apps.signedUp("team");
    expect(await user.listTeams()).toEqual([]);
    expect(user.selectedTeam).toBeNull();
    const team = await user.createTeam({ displayName: "Blue Team" });
    expect(team.displayName).toBe("Blue Team");
    const me = await app.getUser({ or: "throw" });
    expect(me.selectedTeam?.id).toBe(team.id);
    expect(me.selectedTeam?.displayName).toBe("Blue Team");
    expect((await me.listTeams()).map((t) => t.id)).toEqual([team.id]);

    await team.update({ displayName: "Blue Team renamed", clientMetadata: { plan: "team" } });
    const reread = await me.getTeam(team.id);
    expect(reread?.displayName).toBe("Blue Team renamed");
    expect(reread?.clientMetadata).toEqual({ plan: "team" });
    expect((await app.getUser({ or: "throw" })).selectedTeam?.displayName).toBe("Blue Team renamed");
    // A second team; selecting it and deselecting.
    const second = await me.createTeam({ displayName: "Green Team" });
    expect((await app.getUser({ or: "throw" })).selectedTeam?.id).toBe(second.id);
    await (await app.getUser({ or: "throw" })).setSelectedTeam(reread);
    expect((await app.getUser({ or: "throw" })).selectedTeam?.id).toBe(team.id);
    await (await app.getUser({ or: "throw" })).setSelectedTeam(null);
    expect((await app.getUser({ or: "throw" })).selectedTeam).toBeNull();
    expect((await me.listTeams()).map((t) => t.displayName).sort()).toEqual(["Blue Team renamed", "Green Team"]);
  });

  it("invites by e-mail; the invitee accepts with the code from the mail; members are listed; the invitee leaves; the creator deletes", async () => {
    const { user } = await apps.signedUp("owner");
    const team = await user.createTeam({ displayName: "Invite Team" });
    const invitee = await apps.signedUp("invitee");

    await team.inviteUser({ email: invitee.email, callbackUrl: invitationCallbackUrl });
    const invitations = await team.listInvitations();
    expect(invitations.map((i) => i.recipientEmail)).toEqual([invitee.email]);
    expect(invitations[0]!.expiresAt.getTime()).toBeGreaterThan(Date.now());

    const mail = await nextMail(stack, invitee.email, "team_invitation");
    expect(mail.text).toContain(invitationCallbackUrl);
    const code = extractCode(mail);
    expect((await invitee.app.verifyTeamInvitationCode(code)).status).toBe("ok");
    const details = await invitee.app.getTeamInvitationDetails(code);
    expect(details.status === "ok" && details.data.teamDisplayName).toBe("Invite Team");
    expect((await invitee.app.acceptTeamInvitation(code)).status).toBe("ok");
    expect((await invitee.user.listTeams()).map((t) => t.id)).toEqual([team.id]);
    const again = await invitee.app.acceptTeamInvitation(code);
    expect(again.status === "error" && again.error).toBeInstanceOf(KnownErrors.VerificationCodeError);
    expect(again.status === "error" && again.error.errorCode).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await team.listInvitations()).toEqual([]);

    const members = await team.listUsers();
    expect(members.map((m) => m.id).sort()).toEqual([user.id, invitee.user.id].sort());
    const serverTeam = (await apps.server().getTeam(team.id))!;
    expect((await serverTeam.listUsers()).map((u) => u.primaryEmail).sort()).toEqual([user.primaryEmail, invitee.email].sort());

    // Member profiles: the invitee names themself in the team.
    const inviteeTeam = (await invitee.user.getTeam(team.id))!;
    const profile = await invitee.user.getTeamProfile(inviteeTeam);
    await profile.update({ displayName: "Invited One" });
    expect((await invitee.user.getTeamProfile(inviteeTeam)).displayName).toBe("Invited One");
    expect((await team.listUsers()).find((m) => m.id === invitee.user.id)?.teamProfile.displayName).toBe("Invited One");

    await invitee.user.leaveTeam(inviteeTeam);
    expect(await invitee.user.listTeams()).toEqual([]);
    expect((await serverTeam.listUsers()).map((u) => u.id)).toEqual([user.id]);

    await team.delete();
    expect(await user.listTeams()).toEqual([]);
    expect(await apps.server().getTeam(team.id)).toBeNull();
  });

  it("revokes an invitation; its code is then refused", async () => {
    const { user } = await apps.signedUp("revoker");
    const team = await user.createTeam({ displayName: "Revoked Invite" });
    const invitee = await apps.signedUp("revoked");
    await team.inviteUser({ email: invitee.email, callbackUrl: invitationCallbackUrl });
    const code = extractCode(await nextMail(stack, invitee.email, "team_invitation"));
    const [invitation] = await team.listInvitations();
    await invitation!.revoke();
    expect(await team.listInvitations()).toEqual([]);
    const accepted = await invitee.app.acceptTeamInvitation(code);
    expect(accepted.status === "error" && accepted.error).toBeInstanceOf(KnownErrors.VerificationCodeError);
    expect(await invitee.user.listTeams()).toEqual([]);
  });

  it("an invitation to a team deleted since is refused; one accepted by someone already a member changes nothing", async () => {
    const { user } = await apps.signedUp("gone-owner");
    const team = await user.createTeam({ displayName: "Soon gone" });
    const invitee = await apps.signedUp("gone-invitee");
    await team.inviteUser({ email: invitee.email, callbackUrl: invitationCallbackUrl });
    const code = extractCode(await nextMail(stack, invitee.email, "team_invitation"));
    await team.delete();
    // Deleting the team deleted its pending invitations' codes.
    const accepted = await invitee.app.acceptTeamInvitation(code);
    expect(accepted.status === "error" && accepted.error.errorCode).toBe("VERIFICATION_CODE_NOT_FOUND");
    expect(await invitee.user.listTeams()).toEqual([]);

    const kept = await user.createTeam({ displayName: "Kept" });
    const member = await apps.signedUp("already");
    await (await apps.server().getTeam(kept.id))!.addUser(member.user.id);
    await kept.inviteUser({ email: member.email, callbackUrl: invitationCallbackUrl });
    const second = extractCode(await nextMail(stack, member.email, "team_invitation"));
    // Accepting is idempotent (contract endpoints.md §4): still one membership.
    expect((await member.app.acceptTeamInvitation(second)).status).toBe("ok");
    expect((await member.user.listTeams()).map((t) => t.id)).toEqual([kept.id]);
    expect((await kept.listUsers()).filter((u) => u.id === member.user.id)).toHaveLength(1);
  });

  it("manages teams from a server app: create with a creator, add and remove members, server metadata", async () => {
    const server = apps.server();
    const creator = await server.createUser({ primaryEmail: `creator-${randomBytes(4).toString("hex")}@example.com` });
    const member = await server.createUser({ primaryEmail: `member-${randomBytes(4).toString("hex")}@example.com` });
    expect((await server.getServerUserById(member.id))?.primaryEmail).toBe(member.primaryEmail);
    expect(await creator.listTeams()).toEqual([]);
    expect(await member.listTeams()).toEqual([]);
    const team = await server.createTeam({ displayName: "Server Team", creatorUserId: creator.id });
    expect((await server.listTeams()).some((t) => t.id === team.id)).toBe(true);
    // The creator's list, read before, shows the new team.
    expect((await creator.listTeams()).map((t) => t.id)).toEqual([team.id]);
    await team.addUser(member.id);
    expect((await team.listUsers()).map((u) => u.id).sort()).toEqual([creator.id, member.id].sort());
    expect((await member.listTeams()).map((t) => t.id)).toEqual([team.id]);
    await team.update({ displayName: "Server Team renamed", serverMetadata: { tier: "gold" }, clientReadOnlyMetadata: { seats: 5 } });
    // Every list of this app that holds the team shows the change.
    expect((await member.listTeams()).map((t) => t.displayName)).toEqual(["Server Team renamed"]);
    expect((await server.listTeams()).find((t) => t.id === team.id)?.displayName).toBe("Server Team renamed");
    const reread = (await apps.server().getTeam(team.id))!;
    expect(reread.serverMetadata).toEqual({ tier: "gold" });
    expect(reread.clientReadOnlyMetadata).toEqual({ seats: 5 });
    await team.removeUser(member.id);
    expect((await team.listUsers()).map((u) => u.id)).toEqual([creator.id]);
    expect(await member.listTeams()).toEqual([]);
    const own = await creator.createTeam({ displayName: "Creator's own" });
    expect((await creator.listTeams()).map((t) => t.id).sort()).toEqual([team.id, own.id].sort());
  });

  it("invites from a server app, lists and revokes its invitations, and edits member profiles for any member", async () => {
    const server = apps.server();
    const owner = await apps.signedUp("sowner");
    const team = (await server.getTeam((await owner.user.createTeam({ displayName: "Server Invites" })).id))!;
    const invitee = await apps.signedUp("sinvitee");
    await team.inviteUser({ email: invitee.email, callbackUrl: invitationCallbackUrl });
    const second = randomEmail("sinvitee2");
    await team.inviteUser({ email: second, callbackUrl: invitationCallbackUrl });
    expect((await team.listInvitations()).map((i) => i.recipientEmail).sort()).toEqual([invitee.email, second].sort());
    await (await team.listInvitations()).find((i) => i.recipientEmail === second)!.revoke();
    expect((await team.listInvitations()).map((i) => i.recipientEmail)).toEqual([invitee.email]);
    expect((await invitee.app.acceptTeamInvitation(extractCode(await nextMail(stack, invitee.email, "team_invitation")))).status).toBe("ok");

    const member = (await server.getUser(invitee.user.id))!;
    const profile = await member.getTeamProfile(team);
    expect(profile.displayName).toBeNull();
    await profile.update({ displayName: "Named by the server" });
    expect((await member.getTeamProfile(team)).displayName).toBe("Named by the server");
    expect((await team.listUsers()).find((u) => u.id === member.id)?.teamProfile.displayName).toBe("Named by the server");
    await member.leaveTeam(team);
    expect(await member.listTeams()).toEqual([]);
    expect((await team.listUsers()).map((u) => u.id)).toEqual([owner.user.id]);
  });

  it("refuses a team update by a member without $update_team as a typed error", async () => {
    const { user } = await apps.signedUp("guard");
    const team = await user.createTeam({ displayName: "Guarded" });
    const member = await apps.signedUp("guarded");
    await (await apps.server().getTeam(team.id))!.addUser(member.user.id);
    const memberTeam = (await member.user.getTeam(team.id))!;
    const err = await memberTeam.update({ displayName: "taken over" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KnownErrors.TeamPermissionRequired);
    expect((err as { details?: { permission_id?: string } }).details?.permission_id).toBe("$update_team");
    expect((await user.getTeam(team.id))?.displayName).toBe("Guarded");
    // A plain member reads the members and invites (team_member's defaults), but neither deletes nor makes keys.
    expect((await memberTeam.listUsers()).map((u) => u.id).sort()).toEqual([user.id, member.user.id].sort());
    await memberTeam.inviteUser({ email: randomEmail("by-member"), callbackUrl: invitationCallbackUrl });
    expect(await memberTeam.delete().catch((e: unknown) => e)).toBeInstanceOf(KnownErrors.TeamPermissionRequired);
    // Without $manage_api_keys: API_KEY_NOT_FOUND, which hides the team's keys (contract endpoints.md §7).
    expect(await memberTeam.createApiKey({ description: "nope", expiresAt: null }).catch((e: unknown) => e)).toBeInstanceOf(KnownErrors.ApiKeyNotFound);
    expect((await member.user.listPermissions(memberTeam)).map((p) => p.id).sort()).toEqual(["$invite_members", "$read_members", "team_member"]);
    // Someone outside the team sees nothing of it.
    const outsider = await apps.signedUp("outsider");
    expect(await outsider.user.getTeam(team.id)).toBeNull();
    expect(await outsider.user.listPermissions(memberTeam)).toEqual([]);
  });
});

describe("permissions with @vestibule/js on the real gateway", () => {
  it("grants, checks, lists (recursively through a contained permission) and revokes team permissions", async () => {
    const tag = randomBytes(3).toString("hex");
    const read = `docs:read_${tag}`;
    const manage = `docs:manage_${tag}`;
    const admin = apps.admin();
    await admin.createTeamPermissionDefinition({ id: read, description: "Read docs", containedPermissionIds: [] });
    await admin.createTeamPermissionDefinition({ id: manage, containedPermissionIds: [read] });
    const defs = await admin.listTeamPermissionDefinitions();
    expect(defs.find((d) => d.id === manage)?.containedPermissionIds).toEqual([read]);

    const { app, user } = await apps.signedUp("perm");
    const team = await user.createTeam({ displayName: "Permissions" });
    const server = apps.server();
    const serverUser = (await server.getUser(user.id))!;
    const serverTeam = (await server.getTeam(team.id))!;

    expect(await user.hasPermission(team, read)).toBe(false);
    await serverUser.grantPermission(serverTeam, manage);
    expect(await serverUser.hasPermission(serverTeam, read)).toBe(true);
    expect(await serverUser.getPermission(serverTeam, manage)).toEqual({ id: manage });
    const fresh = await apps.client(await user.getAuthJson()).getUser({ or: "throw" });
    expect(await fresh.hasPermission(team, read)).toBe(true);
    expect((await fresh.listPermissions(team)).map((p) => p.id)).toEqual(expect.arrayContaining([manage, read, "team_admin", "$update_team"]));
    expect((await fresh.listPermissions(team, { recursive: false })).map((p) => p.id).sort()).toEqual([manage, "team_admin"].sort());
    // The signed-in app's own user sees the grant too once it asks again after the server's change.
    expect((await app.getUser({ or: "throw" })).id).toBe(user.id);

    await serverUser.revokePermission(serverTeam, manage);
    expect(await serverUser.hasPermission(serverTeam, read)).toBe(false);
    expect((await serverUser.listPermissions(serverTeam, { recursive: false })).map((p) => p.id)).toEqual(["team_admin"]);
    expect(await apps.client(await user.getAuthJson()).getUser({ or: "throw" }).then((u) => u.hasPermission(team, manage))).toBe(false);
  });

  it("grants, lists recursively and revokes project permissions", async () => {
    const tag = randomBytes(3).toString("hex");
    const view = `billing:view_${tag}`;
    const edit = `billing:edit_${tag}`;
    const admin = apps.admin();
    await admin.createProjectPermissionDefinition({ id: view, containedPermissionIds: [] });
    await admin.createProjectPermissionDefinition({ id: edit, description: "Edit billing", containedPermissionIds: [view] });
    expect((await admin.listProjectPermissionDefinitions()).find((d) => d.id === edit)).toMatchObject({ description: "Edit billing", containedPermissionIds: [view] });

    const { user } = await apps.signedUp("pperm");
    const serverUser = (await apps.server().getUser(user.id))!;
    expect(await serverUser.hasPermission(view)).toBe(false);
    await serverUser.grantPermission(edit);
    expect(await serverUser.hasPermission(view)).toBe(true);
    expect((await serverUser.listPermissions()).map((p) => p.id).sort()).toEqual([edit, view].sort());
    expect((await serverUser.listPermissions({ recursive: false })).map((p) => p.id)).toEqual([edit]);
    const client = await apps.client(await user.getAuthJson()).getUser({ or: "throw" });
    expect(await client.hasPermission(view)).toBe(true);
    expect(await client.getPermission(edit)).toEqual({ id: edit });
    expect((await client.listPermissions({ recursive: false })).map((p) => p.id)).toEqual([edit]);

    await serverUser.revokePermission(edit);
    expect(await serverUser.hasPermission(view)).toBe(false);
    expect(await (await apps.client(await user.getAuthJson()).getUser({ or: "throw" })).listPermissions()).toEqual([]);

    // A definition change is seen by the next check: edit no longer contains view.
    await serverUser.grantPermission(edit);
    await admin.updateProjectPermissionDefinition(edit, { containedPermissionIds: [] });
    expect(await (await apps.server().getUser(user.id))!.hasPermission(view)).toBe(false);
    await admin.deleteProjectPermissionDefinition(edit);
    expect((await admin.listProjectPermissionDefinitions()).some((d) => d.id === edit)).toBe(false);
    expect(await (await apps.server().getUser(user.id))!.listPermissions()).toEqual([]);
  });
});

describe("what membership changes do to selections, permissions and keys", () => {
  it("deleting the selected team leaves the user with no selected team", async () => {
    const { app, user } = await apps.signedUp("seldel");
    const team = await user.createTeam({ displayName: "Selected then deleted" });
    expect((await app.getUser({ or: "throw" })).selectedTeam?.id).toBe(team.id);
    await team.delete();
    const me = await app.getUser({ or: "throw" });
    expect(me.selectedTeam).toBeNull();
    expect((await apps.server().getUser(user.id))!.selectedTeam).toBeNull();
  });

  it("a member removed from a team loses its team permissions: re-added, only the defaults are back", async () => {
    const tag = randomBytes(3).toString("hex");
    const special = `special_${tag}`;
    await apps.admin().createTeamPermissionDefinition({ id: special, containedPermissionIds: [] });
    const server = apps.server();
    const owner = await server.createUser({ primaryEmail: randomEmail("rm-owner") });
    const member = await server.createUser({ primaryEmail: randomEmail("rm-member") });
    const team = await server.createTeam({ displayName: "Removal", creatorUserId: owner.id });
    await team.addUser(member.id);
    const memberDefaults = (await member.listPermissions(team, { recursive: false })).map((p) => p.id).sort();
    await member.grantPermission(team, special);
    expect(await member.hasPermission(team, special)).toBe(true);
    await team.removeUser(member.id);
    expect(await member.listPermissions(team)).toEqual([]);
    await team.addUser(member.id);
    expect((await member.listPermissions(team, { recursive: false })).map((p) => p.id).sort()).toEqual(memberDefaults);
    expect(await member.hasPermission(team, special)).toBe(false);
  });

  it("a deleted team's API keys and a deleted user's API keys stop working", async () => {
    const { user } = await apps.signedUp("keydel");
    const team = await user.createTeam({ displayName: "Doomed" });
    const teamKey = await team.createApiKey({ description: "t", expiresAt: null });
    const userKey = await user.createApiKey({ description: "u", expiresAt: null });
    expect((await apps.server().getTeam({ apiKey: teamKey.value }))?.id).toBe(team.id);
    await team.delete();
    expect(await apps.server().getTeam({ apiKey: teamKey.value })).toBeNull();
    expect((await apps.server().getUser({ apiKey: userKey.value }))?.id).toBe(user.id);
    await (await apps.server().getUser(user.id))!.delete();
    expect(await apps.server().getUser({ apiKey: userKey.value })).toBeNull();
  });
});

describe("team API keys with @vestibule/js on the real gateway", () => {
  it("creates, lists, checks on the server and revokes a team API key", async () => {
    const { user } = await apps.signedUp("tkey");
    const team = await user.createTeam({ displayName: "Keyed" });
    const expiresAt = new Date(Date.now() + 3_600_000);
    const created = await team.createApiKey({ description: "deploy bot", expiresAt });
    expect(created.value).toMatch(/^sk_/);
    expect(created).toMatchObject({ type: "team", teamId: team.id, description: "deploy bot", isPublic: false });
    expect(created.expiresAt?.getTime()).toBe(expiresAt.getTime());
    expect(created.isValid()).toBe(true);

    const listed = await team.listApiKeys();
    expect(listed.map((k) => k.id)).toEqual([created.id]);
    expect(listed[0]!.value).toEqual({ lastFour: created.value.slice(-4) });

    const server = apps.server();
    expect((await server.getTeam({ apiKey: created.value }))?.id).toBe(team.id);
    expect(await server.getUser({ apiKey: created.value })).toBeNull();
    await listed[0]!.update({ description: "deploy bot v2" });
    expect((await team.listApiKeys())[0]!.description).toBe("deploy bot v2");
    await listed[0]!.revoke();
    const after = (await team.listApiKeys())[0]!;
    expect(after.whyInvalid()).toBe("manually-revoked");
    expect(await apps.server().getTeam({ apiKey: created.value })).toBeNull();

    // The server app manages a team's keys too.
    const serverTeam = (await server.getTeam(team.id))!;
    const serverKey = await serverTeam.createApiKey({ description: "server made", expiresAt: null, isPublic: true });
    expect(serverKey.value).toMatch(/^pk_/);
    expect((await serverTeam.listApiKeys()).map((k) => k.id).sort()).toEqual([created.id, serverKey.id].sort());
    expect((await apps.server().getTeam({ apiKey: serverKey.value }))?.id).toBe(team.id);
  });
});
