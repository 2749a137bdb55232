import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import { decodeEnvelope } from "@vestibule/shared/events";
import { client, codeFromMail, failure, server, startTeamsStack, waitFor, type TeamsStack } from "./support.ts";

let stack: TeamsStack;
let projectId: string;

beforeAll(async () => {
  // The per-code attempt limit is tested on its own here (18 wrong codes in a row from one caller); the brute-force
  // protection in front of it has its own file (invitation-rate-limit.int.test.ts).
  stack = await startTeamsStack({ teamsEnv: { VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT: "off" } });
  projectId = await stack.newProject({ client_team_creation_enabled: true });
});
afterAll(async () => {
  await stack?.stop();
});

const selectedTeam = async (userId: string, p = projectId) => (await stack.users.getUser({ projectId: p, userId })).user!.selectedTeamId;
const direct = async (teamId: string, userId: string) =>
  (await stack.permissions.listTeamPermissions({ projectId, caller: server, teamId, userId, recursive: false })).permissions.map((p) => p.id);

describe("teams", () => {
  it("creates a team with its creator as a member holding the creator defaults, selected for them, with events", async () => {
    const creator = await stack.newUser(projectId, "Ada");
    const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Ada's crew", creatorUserId: creator, serverMetadataJson: '{"tier":1}' });
    expect(team).toMatchObject({ projectId, displayName: "Ada's crew", serverMetadataJson: '{"tier":1}', clientMetadataJson: "" });
    expect(await direct(team!.id, creator)).toEqual(["team_admin"]);
    expect(await selectedTeam(creator)).toBe(team!.id);
    const { rows } = await stack.teamsDb.query<{ subject: string }>(`SELECT subject FROM outbox ORDER BY seq`);
    expect(rows.map((r) => r.subject)).toEqual(
      expect.arrayContaining(["teams_permissions.team.created.v1", "teams_permissions.membership.added.v1", "teams_permissions.permission.granted.v1"]),
    );
    expect(await failure(stack.teams.createTeam({ projectId, caller: server, teamId: team!.id, displayName: "again" }))).toBe("TEAM_ALREADY_EXISTS");
    const noCreator = await stack.teams.createTeam({ projectId, caller: server, displayName: "Empty" });
    expect((await stack.members.listTeamMembers({ projectId, caller: server, teamId: noCreator.team!.id })).members).toEqual([]);
    expect(await failure(stack.teams.createTeam({ projectId, caller: server, displayName: "x", creatorUserId: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" }))).toBe("USER_NOT_FOUND");
  });

  it("holds client callers to the contract's rules", async () => {
    const me = await stack.newUser(projectId);
    const other = await stack.newUser(projectId);
    expect(await failure(stack.teams.createTeam({ projectId, caller: client(""), displayName: "x" }))).toBe("USER_AUTHENTICATION_REQUIRED");
    expect(await failure(stack.teams.createTeam({ projectId, caller: client(me), displayName: "x", creatorUserId: other }))).toMatch(/^403 You cannot create a team/);
    const { team } = await stack.teams.createTeam({ projectId, caller: client(me), displayName: "Mine" });
    expect(await selectedTeam(me)).toBe(team!.id);
    const closed = await stack.newProject({ client_team_creation_enabled: false });
    const closedUser = await stack.newUser(closed);
    expect(await failure(stack.teams.createTeam({ projectId: closed, caller: client(closedUser), displayName: "x" }))).toBe("403 Client team creation is disabled for this project");

    expect(await failure(stack.teams.listTeams({ projectId, caller: client(me), userId: other }))).toMatch(/^403 Client can only list teams for their own user/);
    expect(await failure(stack.teams.listTeams({ projectId, caller: client(""), userId: "" }))).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
    expect((await stack.teams.listTeams({ projectId, caller: client(me), userId: me })).teams.map((t) => t.id)).toEqual([team!.id]);
    expect(await failure(stack.teams.getTeam({ projectId, caller: client(other), teamId: team!.id }))).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    expect((await stack.teams.getTeam({ projectId, caller: client(me), teamId: team!.id })).team?.displayName).toBe("Mine");

    // A member with team_member (no $update_team, $delete_team) may not change the team.
    await stack.members.addTeamMember({ projectId, caller: server, teamId: team!.id, userId: other });
    expect(await direct(team!.id, other)).toEqual(["team_member"]);
    expect(await failure(stack.teams.updateTeam({ projectId, caller: client(other), teamId: team!.id, displayName: "Hijacked" }))).toBe("TEAM_PERMISSION_REQUIRED");
    expect(await failure(stack.teams.deleteTeam({ projectId, caller: client(other), teamId: team!.id }))).toBe("TEAM_PERMISSION_REQUIRED");
    const updated = await stack.teams.updateTeam({ projectId, caller: client(me), teamId: team!.id, displayName: "Ours", clientMetadataJson: '{"a":1}' });
    expect(updated.team).toMatchObject({ displayName: "Ours", clientMetadataJson: '{"a":1}', version: 2n });

    // Another project's client cannot reach this team at all.
    const stranger = await stack.newUser(closed);
    expect(await failure(stack.teams.getTeam({ projectId: closed, caller: client(stranger), teamId: team!.id }))).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    expect(await failure(stack.teams.getTeam({ projectId: closed, caller: server, teamId: team!.id }))).toBe("TEAM_NOT_FOUND");
    expect(await failure(stack.teams.updateTeam({ projectId: closed, caller: server, teamId: team!.id, displayName: "x" }))).toBe("TEAM_NOT_FOUND");

    await stack.teams.deleteTeam({ projectId, caller: client(me), teamId: team!.id });
    expect(await failure(stack.teams.getTeam({ projectId, caller: server, teamId: team!.id }))).toBe("TEAM_NOT_FOUND");
    // identity unselects the deleted team (teams_permissions.team.deleted.v1).
    await waitFor(async () => (await selectedTeam(me)) === undefined);
  });
});

describe("events", () => {
  it("publishes every change through the outbox, with the project in the envelope", async () => {
    const p = await stack.newProject();
    const owner = await stack.newUser(p);
    const other = await stack.newUser(p);
    const before = Number((await stack.teamsDb.query<{ seq: number }>(`SELECT coalesce(max(seq), 0) AS seq FROM outbox`)).rows[0]!.seq);
    const { team } = await stack.teams.createTeam({ projectId: p, caller: server, displayName: "Evented", creatorUserId: owner });
    const teamId = team!.id;
    await stack.teams.updateTeam({ projectId: p, caller: server, teamId, displayName: "Evented 2" });
    await stack.members.addTeamMember({ projectId: p, caller: server, teamId, userId: other });
    await stack.permissions.revokeTeamPermission({ projectId: p, caller: server, teamId, userId: other, permissionId: "team_member" });
    await stack.members.removeTeamMember({ projectId: p, caller: server, teamId, userId: other });
    await stack.invitations.createTeamInvitation({ projectId: p, caller: server, teamId, email: "evented@example.com", callbackUrl: "http://localhost:3000/x" });
    await stack.teams.deleteTeam({ projectId: p, caller: server, teamId });
    const { rows } = await stack.teamsDb.query<{ subject: string; envelope: Buffer }>(`SELECT subject, envelope FROM outbox WHERE seq > $1 ORDER BY seq`, [before]);
    for (const r of rows) expect(decodeEnvelope(new Uint8Array(r.envelope))).toMatchObject({ type: r.subject, producer: "teams_permissions", projectId: p });
    expect(rows.map((r) => r.subject)).toEqual([
      "teams_permissions.team.created.v1",
      "teams_permissions.membership.added.v1",
      "teams_permissions.permission.granted.v1",
      "teams_permissions.team.updated.v1",
      "teams_permissions.membership.added.v1",
      "teams_permissions.permission.granted.v1",
      "teams_permissions.permission.revoked.v1",
      "teams_permissions.membership.removed.v1",
      "teams_permissions.email.requested.v1",
      "teams_permissions.team.deleted.v1",
    ]);
  });
});

describe("memberships and profiles", () => {
  it("adds, lists, updates and removes members with the contract's errors", async () => {
    const owner = await stack.newUser(projectId, "Owner");
    const alice = await stack.newUser(projectId, "Alice");
    const bob = await stack.newUser(projectId, "Bob");
    const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Crew", creatorUserId: owner });
    const teamId = team!.id;
    const missing = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
    expect(await failure(stack.members.addTeamMember({ projectId, caller: server, teamId, userId: missing }))).toBe("USER_NOT_FOUND");
    expect(await failure(stack.members.addTeamMember({ projectId, caller: server, teamId: missing, userId: alice }))).toBe("TEAM_NOT_FOUND");
    const added = await stack.members.addTeamMember({ projectId, caller: server, teamId, userId: alice });
    expect(added.grantedPermissionIds).toEqual(["team_member"]);
    await stack.members.addTeamMember({ projectId, caller: server, teamId, userId: bob });
    expect(await failure(stack.members.addTeamMember({ projectId, caller: server, teamId, userId: alice }))).toBe("TEAM_MEMBERSHIP_ALREADY_EXISTS");

    const listed = await stack.members.listTeamMembers({ projectId, caller: client(alice), teamId });
    expect(listed.members.map((m) => m.userId)).toEqual([owner, alice, bob]);
    expect(await failure(stack.members.listTeamMembers({ projectId, caller: client(alice), teamId: "" }))).toBe("400 team_id is required for access type client");
    // Without $read_members a member sees only their own profile.
    await stack.permissions.revokeTeamPermission({ projectId, caller: server, teamId, userId: bob, permissionId: "team_member" });
    expect(await failure(stack.members.listTeamMembers({ projectId, caller: client(bob), teamId }))).toBe("TEAM_PERMISSION_REQUIRED");
    expect((await stack.members.listTeamMembers({ projectId, caller: client(bob), teamId, userId: bob })).members.map((m) => m.userId)).toEqual([bob]);
    expect(await failure(stack.members.getTeamMember({ projectId, caller: client(bob), teamId, userId: alice }))).toBe("TEAM_PERMISSION_REQUIRED");

    const profile = await stack.members.updateTeamMember({ projectId, caller: client(alice), teamId, userId: alice, displayName: "Al", profileImageUrl: "https://img.example.com/a.png" });
    expect(profile.member).toMatchObject({ displayName: "Al", profileImageUrl: "https://img.example.com/a.png" });
    expect(await failure(stack.members.updateTeamMember({ projectId, caller: client(alice), teamId, userId: bob, displayName: "x" }))).toBe("403 Cannot update another user's profile");
    const cleared = await stack.members.updateTeamMember({ projectId, caller: server, teamId, userId: alice, clearProfileImageUrl: true });
    expect(cleared.member?.displayName).toBe("Al");
    expect(cleared.member?.profileImageUrl).toBeUndefined();

    // Removing others needs $remove_members; removing yourself is always allowed.
    expect(await failure(stack.members.removeTeamMember({ projectId, caller: client(alice), teamId, userId: bob }))).toBe("TEAM_PERMISSION_REQUIRED");
    await stack.users.updateUser({ projectId, userId: bob, selectedTeamId: { value: teamId } });
    await stack.members.removeTeamMember({ projectId, caller: client(bob), teamId, userId: bob });
    await waitFor(async () => (await selectedTeam(bob)) === undefined);
    await stack.members.removeTeamMember({ projectId, caller: client(owner), teamId, userId: alice });
    expect(await failure(stack.members.removeTeamMember({ projectId, caller: server, teamId, userId: alice }))).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    expect(await failure(stack.members.removeTeamMember({ projectId, caller: server, teamId, userId: missing }))).toBe("USER_NOT_FOUND");
    const { rows } = await stack.teamsDb.query(`SELECT 1 FROM team_permission_grants WHERE team_id = $1 AND user_id = $2`, [teamId, alice]);
    expect(rows).toHaveLength(0);
  });
});

describe("permission definitions and grants", () => {
  it("lists system permissions, validates writes, renames and deletes everywhere, and keeps the config in step", async () => {
    const p = await stack.newProject();
    const list = async (scope: PermissionScope) => (await stack.definitions.listPermissionDefinitions({ projectId: p, scope })).definitions;
    expect((await list(PermissionScope.TEAM)).map((d) => d.id)).toEqual([
      "$delete_team", "$invite_members", "$manage_api_keys", "$read_members", "$remove_members", "$update_team", "team_admin", "team_member",
    ]);
    expect(await list(PermissionScope.PROJECT)).toEqual([]);
    const team = PermissionScope.TEAM;
    const created = await stack.definitions.createPermissionDefinition({ projectId: p, scope: team, id: "editor", description: "Edits", containedPermissionIds: ["$update_team", "team_member"] });
    expect(created.definition).toMatchObject({ id: "editor", description: "Edits", containedPermissionIds: ["$update_team", "team_member"], isSystem: false });
    expect(await failure(stack.definitions.createPermissionDefinition({ projectId: p, scope: team, id: "editor" }))).toBe("PERMISSION_ID_ALREADY_EXISTS");
    expect(await failure(stack.definitions.createPermissionDefinition({ projectId: p, scope: team, id: "x", containedPermissionIds: ["nope"] }))).toBe("CONTAINED_PERMISSION_NOT_FOUND");
    expect(await failure(stack.definitions.createPermissionDefinition({ projectId: p, scope: PermissionScope.PROJECT, id: "x", containedPermissionIds: ["editor"] }))).toBe("CONTAINED_PERMISSION_NOT_FOUND");
    expect(await failure(stack.definitions.createPermissionDefinition({ projectId: p, scope: team, id: "$update_team" }))).toMatch(/^400 \$update_team is a system permission/);
    expect(await failure(stack.definitions.updatePermissionDefinition({ projectId: p, scope: team, permissionId: "$read_members", description: "x" }))).toMatch(/^400 \$read_members is a system permission/);
    expect(await failure(stack.definitions.deletePermissionDefinition({ projectId: p, scope: team, permissionId: "$read_members" }))).toMatch(/^400/);
    expect(await failure(stack.definitions.createPermissionDefinition({ projectId: p, scope: team, id: "Bad" }))).toMatch(/^400 Only lowercase letters/);
    expect(
      await failure(stack.definitions.updatePermissionDefinition({ projectId: p, scope: team, permissionId: "team_member", updateContainedPermissionIds: true, containedPermissionIds: ["editor"] })),
    ).toMatch(/^400 Permission "team_member" would contain itself \(team_member → editor → team_member\)/);
    expect(await failure(stack.definitions.updatePermissionDefinition({ projectId: p, scope: PermissionScope.PROJECT, permissionId: "editor", description: "x" }))).toBe("PERMISSION_NOT_FOUND");

    // The definitions are the project config's: GET /internal/config and the admin view see them.
    const config = async () => {
      const { project } = await stack.projects.getProject({ projectId: p });
      return { rendered: JSON.parse(project!.renderedConfigJson), admin: JSON.parse(project!.adminConfigJson), version: project!.version };
    };
    expect((await config()).rendered.rbac.permissions.editor).toEqual({ description: "Edits", scope: "team", containedPermissionIds: { $update_team: true, team_member: true } });

    // Grants follow a rename, as do default lists and containing definitions.
    const owner = await stack.newUser(p);
    const member = await stack.newUser(p);
    const { team: t } = await stack.teams.createTeam({ projectId: p, caller: server, displayName: "T", creatorUserId: owner });
    await stack.members.addTeamMember({ projectId: p, caller: server, teamId: t!.id, userId: member });
    await stack.permissions.grantTeamPermission({ projectId: p, caller: server, teamId: t!.id, userId: member, permissionId: "editor" });
    await stack.definitions.createPermissionDefinition({ projectId: p, scope: team, id: "lead", containedPermissionIds: ["editor"] });
    await stack.projects.updateProject({ projectId: p, configUpdateJson: JSON.stringify({ team_member_default_permissions: [{ id: "team_member" }, { id: "editor" }] }) });
    const renamed = await stack.definitions.updatePermissionDefinition({ projectId: p, scope: team, permissionId: "editor", newId: "writer" });
    expect(renamed.definition).toMatchObject({ id: "writer", description: "Edits", containedPermissionIds: ["$update_team", "team_member"] });
    const after = await config();
    expect(after.rendered.rbac.permissions.editor).toBeUndefined();
    expect(after.rendered.rbac.permissions.lead.containedPermissionIds).toEqual({ writer: true });
    expect(after.admin.team_member_default_permissions).toEqual([{ id: "team_member" }, { id: "writer" }]);
    expect(after.version).toBe(renamed.configVersion);
    const grantsOf = async (userId: string) =>
      (await stack.permissions.listTeamPermissions({ projectId: p, caller: server, teamId: t!.id, userId, recursive: false })).permissions.map((x) => x.id);
    expect(await grantsOf(member)).toEqual(["team_member", "writer"]);

    // Deleting removes the grants and every reference.
    await stack.definitions.deletePermissionDefinition({ projectId: p, scope: team, permissionId: "writer" });
    expect(await grantsOf(member)).toEqual(["team_member"]);
    const deleted = await config();
    expect(deleted.rendered.rbac.permissions.lead.containedPermissionIds).toEqual({});
    expect(deleted.admin.team_member_default_permissions).toEqual([{ id: "team_member" }]);
    expect(await failure(stack.definitions.deletePermissionDefinition({ projectId: p, scope: team, permissionId: "writer" }))).toBe("PERMISSION_NOT_FOUND");
  });

  it("grants, revokes, lists recursively and checks team and project permissions", async () => {
    const p = await stack.newProject();
    await stack.definitions.createPermissionDefinition({ projectId: p, scope: PermissionScope.TEAM, id: "read:docs" });
    await stack.definitions.createPermissionDefinition({ projectId: p, scope: PermissionScope.TEAM, id: "docs:admin", containedPermissionIds: ["read:docs", "$delete_team"] });
    await stack.definitions.createPermissionDefinition({ projectId: p, scope: PermissionScope.PROJECT, id: "billing:view" });
    await stack.definitions.createPermissionDefinition({ projectId: p, scope: PermissionScope.PROJECT, id: "billing:admin", containedPermissionIds: ["billing:view"] });
    const u = await stack.newUser(p);
    const outsider = await stack.newUser(p);
    const { team } = await stack.teams.createTeam({ projectId: p, caller: server, displayName: "Docs" });
    const teamId = team!.id;
    await stack.members.addTeamMember({ projectId: p, caller: server, teamId, userId: u });
    const grant = (permissionId: string, userId = u) => stack.permissions.grantTeamPermission({ projectId: p, caller: server, teamId, userId, permissionId });
    expect(await failure(grant("nope"))).toBe("PERMISSION_NOT_FOUND");
    expect(await failure(grant("billing:view"))).toBe("WRONG_PERMISSION_SCOPE");
    expect(await failure(grant("read:docs", outsider))).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    await grant("docs:admin");
    await grant("docs:admin"); // idempotent
    const listed = async (recursive: boolean) =>
      (await stack.permissions.listTeamPermissions({ projectId: p, caller: client(u), teamId, userId: u, recursive })).permissions.map((x) => x.id);
    expect(await listed(false)).toEqual(["docs:admin", "team_member"]);
    expect(await listed(true)).toEqual(["$delete_team", "$invite_members", "$read_members", "docs:admin", "read:docs", "team_member"]);
    expect(await failure(stack.permissions.listTeamPermissions({ projectId: p, caller: client(u), userId: outsider, recursive: true }))).toMatch(/^403/);
    const check = async (userId: string, permissionId: string) => stack.permissions.checkTeamPermission({ projectId: p, teamId, userId, permissionId });
    expect(await check(u, "read:docs")).toMatchObject({ granted: true, isMember: true });
    expect(await check(u, "$update_team")).toMatchObject({ granted: false, isMember: true });
    expect(await check(outsider, "read:docs")).toMatchObject({ granted: false, isMember: false });
    expect(await failure(stack.permissions.revokeTeamPermission({ projectId: p, caller: server, teamId, userId: u, permissionId: "read:docs" }))).toBe("TEAM_PERMISSION_NOT_FOUND");
    await stack.permissions.revokeTeamPermission({ projectId: p, caller: server, teamId, userId: u, permissionId: "docs:admin" });
    expect(await check(u, "read:docs")).toMatchObject({ granted: false });

    const pgrant = (permissionId: string, userId = u) => stack.permissions.grantProjectPermission({ projectId: p, caller: server, userId, permissionId });
    expect(await failure(pgrant("read:docs"))).toBe("WRONG_PERMISSION_SCOPE");
    expect(await failure(pgrant("billing:view", "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"))).toBe("USER_NOT_FOUND");
    await pgrant("billing:admin");
    expect((await stack.permissions.listProjectPermissions({ projectId: p, caller: client(u), userId: u, recursive: true })).permissions.map((x) => x.id)).toEqual(["billing:admin", "billing:view"]);
    expect((await stack.permissions.checkProjectPermission({ projectId: p, userId: u, permissionId: "billing:view" })).granted).toBe(true);
    await stack.permissions.revokeProjectPermission({ projectId: p, caller: server, userId: u, permissionId: "billing:admin" });
    expect(await failure(stack.permissions.revokeProjectPermission({ projectId: p, caller: server, userId: u, permissionId: "billing:admin" }))).toBe("PERMISSION_NOT_FOUND");
    expect((await stack.permissions.checkProjectPermission({ projectId: p, userId: u, permissionId: "billing:view" })).granted).toBe(false);
  });

  it("applies a configuration change the caller has seen at once (known_config_version)", async () => {
    const p = await stack.newProject();
    await stack.definitions.createPermissionDefinition({ projectId: p, scope: PermissionScope.TEAM, id: "owner" });
    const u = await stack.newUser(p);
    // Warm the cache with the old defaults, then change them behind its back.
    await stack.teams.createTeam({ projectId: p, caller: server, displayName: "before", creatorUserId: u });
    const { project } = await stack.projects.updateProject({ projectId: p, configUpdateJson: JSON.stringify({ team_creator_default_permissions: [{ id: "owner" }] }) });
    const { team } = await stack.teams.createTeam({
      projectId: p,
      caller: { ...server, knownConfigVersion: project!.version },
      displayName: "after",
      creatorUserId: u,
    });
    expect((await stack.permissions.listTeamPermissions({ projectId: p, caller: server, teamId: team!.id, userId: u, recursive: false })).permissions.map((x) => x.id)).toEqual(["owner"]);
  });
});

describe("invitations", () => {
  const callback = "http://localhost:3000/handler/team-invitation";

  it("invites by e-mail, accepts once with the code, and applies the code rules", async () => {
    const owner = await stack.newUser(projectId, "Owner");
    const joiner = await stack.newUser(projectId, "Joiner");
    const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Invited Team", creatorUserId: owner });
    const teamId = team!.id;
    const to = `invitee-${Date.now()}@example.com`;
    expect(await failure(stack.invitations.createTeamInvitation({ projectId, caller: client(joiner), teamId, email: to, callbackUrl: callback }))).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
    expect(await failure(stack.invitations.createTeamInvitation({ projectId, caller: client(owner), teamId, email: to, callbackUrl: "https://evil.example.com/x" }))).toBe(
      "REDIRECT_URL_NOT_WHITELISTED",
    );
    const sent = await stack.invitations.createTeamInvitation({ projectId, caller: client(owner), teamId, email: to.toUpperCase(), callbackUrl: callback });
    expect(sent.invitation).toMatchObject({ teamId, recipientEmail: to });
    const mail = await stack.waitForMail(to);
    expect(mail).toMatchObject({ subject: "You have been invited to join Invited Team", template: "team_invitation", status: "sent" });
    const code = codeFromMail(mail);
    expect(mail.text).toContain(`${callback}?code=${code}`);
    const { rows: stored } = await stack.teamsDb.query(`SELECT code_hash FROM team_invitations WHERE id = $1`, [sent.invitation!.id]);
    expect(stored[0].code_hash).not.toContain(code);

    const pending = await stack.invitations.listTeamInvitations({ projectId, caller: client(owner), teamId });
    expect(pending.invitations.map((i) => i.id)).toEqual([sent.invitation!.id]);
    expect(Number(pending.invitations[0]!.expiresAtMillis) - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);

    await stack.invitations.checkTeamInvitationCode({ projectId, code: code.toUpperCase() });
    expect(await stack.invitations.getTeamInvitationDetails({ projectId, caller: client(joiner), code })).toMatchObject({ teamId, teamDisplayName: "Invited Team" });
    expect(await failure(stack.invitations.acceptTeamInvitation({ projectId, caller: client(""), code }))).toBe("USER_AUTHENTICATION_REQUIRED");
    expect(await stack.invitations.acceptTeamInvitation({ projectId, caller: client(joiner), code })).toMatchObject({ teamId, joined: true });
    expect(await direct(teamId, joiner)).toEqual(["team_member"]);
    expect(await failure(stack.invitations.acceptTeamInvitation({ projectId, caller: client(joiner), code }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId, code }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect((await stack.invitations.listTeamInvitations({ projectId, caller: server, teamId })).invitations).toEqual([]);
    // The code belongs to its project.
    const other = await stack.newProject();
    expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId: other, code }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId, code: "x".repeat(45) }))).toBe("VERIFICATION_CODE_NOT_FOUND");
  });

  it("expires, counts attempts, revokes, and accepts for an existing member without a second membership", async () => {
    const owner = await stack.newUser(projectId);
    const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Rules", creatorUserId: owner });
    const teamId = team!.id;
    const invite = async (to: string) => {
      const { invitation } = await stack.invitations.createTeamInvitation({ projectId, caller: server, teamId, email: to, callbackUrl: callback });
      const mail = await stack.waitForMail(to);
      return { id: invitation!.id, code: codeFromMail(mail) };
    };
    const stamp = Date.now();
    const expired = await invite(`expired-${stamp}@example.com`);
    await stack.teamsDb.query(`UPDATE team_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId, code: expired.code }))).toBe("VERIFICATION_CODE_EXPIRED");

    const tries = await invite(`tries-${stamp}@example.com`);
    // Wrong codes sharing the last 39 characters count against it.
    const sibling = `${"zzzzzz"}${tries.code.slice(6)}`;
    for (let i = 0; i < 18; i++) expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId, code: sibling }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    await stack.invitations.checkTeamInvitationCode({ projectId, code: tries.code }); // the 19th attempt
    expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId, code: tries.code }))).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");

    const revoked = await invite(`revoked-${stamp}@example.com`);
    expect(await failure(stack.invitations.deleteTeamInvitation({ projectId, caller: server, teamId, invitationId: owner }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    await stack.invitations.deleteTeamInvitation({ projectId, caller: client(owner), teamId, invitationId: revoked.id });
    expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId, code: revoked.code }))).toBe("VERIFICATION_CODE_NOT_FOUND");

    const again = await invite(`member-${stamp}@example.com`);
    expect(await stack.invitations.acceptTeamInvitation({ projectId, caller: client(owner), code: again.code })).toMatchObject({ joined: false });
    expect((await stack.members.listTeamMembers({ projectId, caller: server, teamId })).members).toHaveLength(1);
    expect(await failure(stack.invitations.checkTeamInvitationCode({ projectId, code: again.code }))).toBe("VERIFICATION_CODE_ALREADY_USED");
  });
});
