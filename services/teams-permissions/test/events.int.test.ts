import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shouldRunNatsTests, testNatsUrl } from "@vestibule/shared/testing";
import type { RunningService } from "@vestibule/shared/service";
import { server, startTeamsStack, waitFor, type TeamsStack } from "./support.ts";

const runNats = await shouldRunNatsTests();

/**
 * Every event this service consumes (and the ones identity and the e-mail service consume from it) travels over real
 * NATS JetStream here, and each is then delivered twice more under new transport ids (past JetStream's own
 * de-duplication): nothing changes a second time. A later event of the same subject serves as the marker that the
 * redeliveries were handled (one durable consumer per subject delivers in order).
 */
describe.runIf(runNats)("events over NATS JetStream", () => {
  let stack: TeamsStack;
  let projectId: string;

  beforeAll(async () => {
    stack = await startTeamsStack({ natsUrl: testNatsUrl() });
    projectId = await stack.newProject({ create_team_on_sign_up: true });
    await stack.definitions.createPermissionDefinition({ projectId, scope: 2 /* PROJECT */, id: "app:use" });
    await stack.projects.updateProject({ projectId, configUpdateJson: JSON.stringify({ user_default_permissions: [{ id: "app:use" }] }) });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function redeliver(from: RunningService, subject: string, match: (envelope: Buffer) => boolean = () => true): Promise<string> {
    const { rows } = await from.ctx.pool.query<{ id: string; envelope: Buffer }>(`SELECT id, envelope FROM outbox WHERE subject = $1 ORDER BY seq DESC`, [subject]);
    const row = rows.find((r) => match(r.envelope));
    if (!row) throw new Error(`no ${subject} in the outbox`);
    for (const transportId of [randomUUID(), randomUUID()]) {
      await from.ctx.bus.publish({ id: transportId, subject, data: new Uint8Array(row.envelope) });
    }
    return row.id;
  }

  const teamsOf = async (userId: string) => (await stack.teams.listTeams({ projectId, caller: server, userId })).teams;
  const count = async (sql: string, params: unknown[]) => Number((await stack.teamsDb.query<{ n: string }>(sql, params)).rows[0]!.n);
  const processed = async (consumer: string, eventId: string, pool = stack.teamsDb) =>
    (await pool.query(`SELECT 1 FROM processed_events WHERE consumer = $1 AND event_id = $2`, [consumer, eventId])).rows.length;

  it("identity.user.created.v1: one personal team, selected, and the user default permissions, however often delivered", async () => {
    const userId = await stack.newUser(projectId, "Grace");
    const [team] = await waitFor(async () => {
      const t = await teamsOf(userId);
      return t.length > 0 && t;
    });
    expect(team).toMatchObject({ displayName: "Grace's Team" });
    await waitFor(async () => (await stack.users.getUser({ projectId, userId })).user!.selectedTeamId === team!.id);
    const perms = await stack.permissions.listProjectPermissions({ projectId, caller: server, userId, recursive: true });
    expect(perms.permissions.map((p) => p.id)).toEqual(["app:use"]);
    const admin = await stack.permissions.listTeamPermissions({ projectId, caller: server, teamId: team!.id, userId, recursive: false });
    expect(admin.permissions.map((p) => p.id)).toEqual(["team_admin"]);

    await stack.identity.relay.flush();
    const eventId = await redeliver(stack.identity, "identity.user.created.v1", (env) => env.includes(Buffer.from(userId)));
    const marker = await stack.newUser(projectId, "Marker");
    await waitFor(async () => (await teamsOf(marker)).length === 1);
    expect(await teamsOf(userId)).toHaveLength(1);
    expect(await count(`SELECT count(*) AS n FROM teams WHERE project_id = $1 AND display_name = 'Grace''s Team'`, [projectId])).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM project_permission_grants WHERE user_id = $1`, [userId])).toBe(1);
    expect(await processed("teams_permissions-identity-user-created", eventId)).toBe(1);

    // Even a replay without its processed_events row (a renamed consumer) finds the personal team by its derived id.
    await stack.teamsDb.query(`DELETE FROM processed_events WHERE event_id = $1`, [eventId]);
    await redeliver(stack.identity, "identity.user.created.v1", (env) => env.includes(Buffer.from(userId)));
    await waitFor(async () => (await processed("teams_permissions-identity-user-created", eventId)) === 1);
    expect(await teamsOf(userId)).toHaveLength(1);
  });

  it("identity.user.deleted.v1: memberships and grants go, a tombstone stays, and a redelivery removes nothing new", async () => {
    const userId = await stack.newUser(projectId, "Leaving");
    const [team] = await waitFor(async () => {
      const t = await teamsOf(userId);
      return t.length > 0 && t;
    });
    await stack.users.deleteUser({ projectId, userId });
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM team_members WHERE user_id = $1`, [userId])) === 0);
    expect(await count(`SELECT count(*) AS n FROM project_permission_grants WHERE user_id = $1`, [userId])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM deleted_users WHERE user_id = $1`, [userId])).toBe(1);
    // The team itself stays (other members may remain); a late membership for the deleted user is refused.
    expect((await stack.teams.getTeam({ projectId, caller: server, teamId: team!.id })).team?.id).toBe(team!.id);

    // Plant a membership the handler would delete if it ran again.
    await stack.teamsDb.query(`INSERT INTO team_members (team_id, user_id, project_id) VALUES ($1, $2, $3)`, [team!.id, userId, projectId]);
    await stack.identity.relay.flush();
    const eventId = await redeliver(stack.identity, "identity.user.deleted.v1", (env) => env.includes(Buffer.from(userId)));
    const marker = await stack.newUser(projectId, "Marker two");
    await waitFor(async () => (await teamsOf(marker)).length === 1);
    await stack.users.deleteUser({ projectId, userId: marker });
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM deleted_users WHERE user_id = $1`, [marker])) === 1);
    expect(await count(`SELECT count(*) AS n FROM team_members WHERE user_id = $1`, [userId])).toBe(1);
    expect(await processed("teams_permissions-identity-user-deleted", eventId)).toBe(1);
  });

  it("team.deleted.v1 and membership.removed.v1 unselect the team in identity once", async () => {
    // A project without personal teams: nothing else selects a team behind the test's back.
    const projectId = await stack.newProject();
    const teamsOf = async (userId: string) => (await stack.teams.listTeams({ projectId, caller: server, userId })).teams;
    const a = await stack.newUser(projectId, "A");
    const b = await stack.newUser(projectId, "B");
    const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Shared", creatorUserId: a });
    await stack.members.addTeamMember({ projectId, caller: server, teamId: team!.id, userId: b });
    await stack.users.updateUser({ projectId, userId: b, selectedTeamId: { value: team!.id } });
    const selected = async (userId: string) => (await stack.users.getUser({ projectId, userId })).user!.selectedTeamId;
    expect(await selected(a)).toBe(team!.id);

    await stack.members.removeTeamMember({ projectId, caller: server, teamId: team!.id, userId: b });
    await waitFor(async () => (await selected(b)) === undefined);
    await stack.teams.deleteTeam({ projectId, caller: server, teamId: team!.id });
    await waitFor(async () => (await selected(a)) === undefined);

    // Select the team again by hand and redeliver both events: neither may unselect a second time.
    await stack.identityDb.query(`UPDATE users SET selected_team_id = $1 WHERE id = ANY($2::uuid[])`, [team!.id, [a, b]]);
    await stack.teamsService.relay.flush();
    const removal = await redeliver(stack.teamsService, "teams_permissions.membership.removed.v1", (env) => env.includes(Buffer.from(b)));
    const deletion = await redeliver(stack.teamsService, "teams_permissions.team.deleted.v1", (env) => env.includes(Buffer.from(team!.id)));

    // Markers: a later removal and a later deletion are handled, so the redeliveries were too.
    expect(await teamsOf(a)).toEqual([]);
    const c = await stack.newUser(projectId, "C");
    const { team: other } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Other", creatorUserId: c });
    const d = await stack.newUser(projectId, "D");
    await stack.members.addTeamMember({ projectId, caller: server, teamId: other!.id, userId: d });
    await stack.users.updateUser({ projectId, userId: d, selectedTeamId: { value: other!.id } });
    await stack.members.removeTeamMember({ projectId, caller: server, teamId: other!.id, userId: d });
    await stack.teams.deleteTeam({ projectId, caller: server, teamId: other!.id });
    await waitFor(async () => (await selected(c)) === undefined && (await selected(d)) === undefined);
    expect(await selected(a)).toBe(team!.id);
    expect(await selected(b)).toBe(team!.id);
    expect(await processed("identity-teams-membership-removed", removal, stack.identityDb)).toBe(1);
    expect(await processed("identity-teams-team-deleted", deletion, stack.identityDb)).toBe(1);
  });

  it("teams_permissions.email.requested.v1: the e-mail service records one message per invitation", async () => {
    const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Mail Team" });
    const to = `nats-invite-${Date.now()}@example.com`;
    await stack.invitations.createTeamInvitation({ projectId, caller: server, teamId: team!.id, email: to, callbackUrl: "http://localhost:3000/handler/team-invitation" });
    await stack.waitForMail(to);
    await stack.teamsService.relay.flush();
    const eventId = await redeliver(stack.teamsService, "teams_permissions.email.requested.v1", (env) => env.includes(Buffer.from(to)));
    const marker = `nats-marker-${Date.now()}@example.com`;
    await stack.invitations.createTeamInvitation({ projectId, caller: server, teamId: team!.id, email: marker, callbackUrl: "http://localhost:3000/handler/team-invitation" });
    await stack.waitForMail(marker);
    const { messages } = await stack.mailbox.listMailboxMessages({ to, projectId: "", limit: 50 });
    expect(messages).toHaveLength(1);
    const { rows } = await stack.email.ctx.pool.query(`SELECT count(*)::int AS n FROM emails WHERE event_id = $1`, [eventId]);
    expect(rows[0].n).toBe(1);
  });

  it("identity.project.deleted.v1: the project's teams go, once", async () => {
    const p = await stack.newProject();
    const u = await stack.newUser(p);
    const { team } = await stack.teams.createTeam({ projectId: p, caller: server, displayName: "Doomed", creatorUserId: u });
    await stack.projects.deleteProject({ projectId: p });
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM teams WHERE project_id = $1`, [p])) === 0);
    await stack.teamsDb.query(`INSERT INTO teams (id, project_id, display_name) VALUES ($1, $2, 'planted')`, [team!.id, p]);
    await stack.identity.relay.flush();
    const eventId = await redeliver(stack.identity, "identity.project.deleted.v1", (env) => env.includes(Buffer.from(p)));
    const marker = await stack.newProject();
    await stack.teams.createTeam({ projectId: marker, caller: server, displayName: "marker" });
    await stack.projects.deleteProject({ projectId: marker });
    await waitFor(async () => (await count(`SELECT count(*) AS n FROM teams WHERE project_id = $1`, [marker])) === 0);
    expect(await count(`SELECT count(*) AS n FROM teams WHERE project_id = $1`, [p])).toBe(1);
    expect(await processed("teams_permissions-identity-project-deleted", eventId)).toBe(1);
  });
});
