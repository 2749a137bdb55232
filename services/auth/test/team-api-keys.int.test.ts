/**
 * Team API keys with the real teams-permissions service, over NATS JetStream: a leaked team key e-mails the members
 * who manage the team's keys (team-directory.ts), and a deleted team's keys are deleted by the durable, idempotent
 * consumer of teams_permissions.team.deleted.v1, leave every replica's check cache, and cannot be created again.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyService, ApiKeyType } from "@vestibule/proto/auth/v1/api_key_service";
import { PermissionService } from "@vestibule/proto/teams_permissions/v1/permission_service";
import { TeamMembershipService } from "@vestibule/proto/teams_permissions/v1/team_membership_service";
import { TeamService } from "@vestibule/proto/teams_permissions/v1/team_service";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { startService, type RunningService } from "@vestibule/shared/service";
import { shouldRunNatsTests, testNatsUrl } from "@vestibule/shared/testing";
import { SECURITY_CONSUMERS } from "../src/security-runtime.ts";
import { authService } from "../src/server.ts";
import { failure, outcome, startAuthStack, waitFor, type AuthStack } from "./support.ts";

const runNats = await shouldRunNatsTests();

describe.runIf(runNats)("team API keys with the teams-permissions service (NATS JetStream)", () => {
  let stack: AuthStack;
  let replica: RunningService;
  let projectId: string;
  let keys: Client<typeof ApiKeyService>;
  let keysB: Client<typeof ApiKeyService>;
  let teams: Client<typeof TeamService>;
  let members: Client<typeof TeamMembershipService>;
  let permissions: Client<typeof PermissionService>;

  beforeAll(async () => {
    stack = await startAuthStack({}, { natsUrl: testNatsUrl(), teams: true });
    replica = await startService(authService, { env: stack.env, log: createLogger({ service: "test", level: "silent" }) });
    const rpc = (baseUrl: string) => ({ baseUrl, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    keys = createServiceClient(ApiKeyService, rpc(stack.env.VESTIBULE_AUTH_URL!));
    keysB = createServiceClient(ApiKeyService, rpc(`http://127.0.0.1:${replica.port}`));
    const teamsRpc = rpc(stack.env.VESTIBULE_TEAMS_PERMISSIONS_URL!);
    teams = createServiceClient(TeamService, teamsRpc);
    members = createServiceClient(TeamMembershipService, teamsRpc);
    permissions = createServiceClient(PermissionService, teamsRpc);
    projectId = await stack.newProject({ allow_team_api_keys: true });
  });
  afterAll(async () => {
    await replica?.stop();
    await stack?.stop();
  });

  let n = 0;
  async function newUser(label: string, withEmail = true): Promise<{ id: string; email: string }> {
    const email = `${label}-${++n}-${randomUUID().slice(0, 8)}@example.com`;
    const { user } = await stack.users.createUser({ projectId, primaryEmail: withEmail ? email : undefined, displayName: label });
    return { id: user!.id, email };
  }
  const teamKey = async (teamId: string, description: string) =>
    (await keys.createApiKey({ projectId, type: ApiKeyType.TEAM, ownerId: teamId, description })).apiKey!;
  const revokedMails = async (to: string) =>
    (await stack.mailbox.listMailboxMessages({ to, projectId: "", limit: 20 })).messages.filter((m) => m.template === "api_key_revoked");

  it("a leaked team key e-mails exactly the members holding $manage_api_keys, directly or through team_admin", async () => {
    const admin = await newUser("admin");
    const member = await newUser("member");
    const granted = await newUser("granted");
    const mailless = await newUser("mailless", false);
    const elsewhere = await newUser("elsewhere");
    // The creator gets team_admin (which contains $manage_api_keys); added members get team_member (which does not).
    const { team } = await teams.createTeam({ projectId, displayName: "Key Owners", creatorUserId: admin.id });
    for (const u of [member, granted, mailless]) await members.addTeamMember({ projectId, teamId: team!.id, userId: u.id });
    for (const u of [granted, mailless]) await permissions.grantTeamPermission({ projectId, teamId: team!.id, userId: u.id, permissionId: "$manage_api_keys" });
    await teams.createTeam({ projectId, displayName: "Other Team", creatorUserId: elsewhere.id });

    const key = await teamKey(team!.id, "ci deploy key");
    expect(await outcome(keysB.checkApiKey({ projectId, type: ApiKeyType.TEAM, apiKey: key.value }))).toBe("ok");
    expect((await keys.revokeLeakedApiKey({ apiKey: key.value })).revoked).toBe(true);
    await waitFor(async () => (await outcome(keysB.checkApiKey({ projectId, type: ApiKeyType.TEAM, apiKey: key.value }))) === "API_KEY_REVOKED", 1000, 10);

    for (const to of [admin.email, granted.email]) {
      const mail = await stack.waitForMail(to, (m) => m.template === "api_key_revoked");
      expect(mail.subject).toBe("An API key of your Test Project account was revoked");
      expect(mail.text).toContain(`A team API key "ci deploy key" (ending in ${key.lastFour}) was found in a public place`);
      expect(mail.text).not.toContain(key.value);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(await revokedMails(member.email)).toEqual([]);
    expect(await revokedMails(elsewhere.email)).toEqual([]);
    // Quietly done already: no second round of e-mails.
    expect((await keys.revokeLeakedApiKey({ apiKey: key.value })).revoked).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(await revokedMails(admin.email)).toHaveLength(1);
  });

  it("a team without anyone managing its keys: the key is revoked all the same", async () => {
    const { team } = await teams.createTeam({ projectId, displayName: "Nobody Home" });
    const key = await teamKey(team!.id, "orphan");
    expect((await keys.revokeLeakedApiKey({ apiKey: key.value })).revoked).toBe(true);
    expect(await failure(keys.checkApiKey({ projectId, type: ApiKeyType.TEAM, apiKey: key.value }))).toBe("API_KEY_REVOKED");
  });

  it("deleting a team deletes its keys on every replica, refuses new ones, and a redelivered event changes nothing", async () => {
    const owner = await newUser("owner");
    const { team } = await teams.createTeam({ projectId, displayName: "Doomed", creatorUserId: owner.id });
    const teamId = team!.id;
    const [first, second] = [await teamKey(teamId, "one"), await teamKey(teamId, "two")];
    const check = (c: typeof keys, value: string) => outcome(c.checkApiKey({ projectId, type: ApiKeyType.TEAM, apiKey: value }));
    for (const c of [keys, keysB]) for (const k of [first, second]) expect(await check(c, k.value)).toBe("ok");

    await teams.deleteTeam({ projectId, teamId });
    for (const c of [keys, keysB]) for (const k of [first, second]) await waitFor(async () => (await check(c, k.value)) === "API_KEY_NOT_FOUND", 5000, 10);
    const rows = async (owner: string) => Number((await stack.authDb.query<{ n: string }>(`SELECT count(*) AS n FROM api_keys WHERE owner_id = $1`, [owner])).rows[0]!.n);
    expect(await rows(teamId)).toBe(0);
    const deletedEvents = async () =>
      Number((await stack.authDb.query<{ n: string }>(`SELECT count(*) AS n FROM outbox WHERE subject = 'auth.api_key.deleted.v1'`)).rows[0]!.n);
    const eventsAfterDeletion = await deletedEvents();
    expect(eventsAfterDeletion).toBeGreaterThanOrEqual(2);
    expect(await failure(keys.createApiKey({ projectId, type: ApiKeyType.TEAM, ownerId: teamId, description: "too late" }))).toBe("TEAM_NOT_FOUND");

    // Redeliver the event twice under new transport ids (past JetStream's de-duplication), after planting a key the
    // handler would delete if it ran again; a later team deletion marks that the redeliveries were handled.
    const teamsPool = stack.teams!.ctx.pool;
    const { rows: outbox } = await teamsPool.query<{ id: string; envelope: Buffer }>(
      `SELECT id, envelope FROM outbox WHERE subject = 'teams_permissions.team.deleted.v1' ORDER BY seq`,
    );
    const event = outbox.find((r) => r.envelope.includes(Buffer.from(teamId)))!;
    await stack.authDb.query(
      `INSERT INTO api_keys (id, project_id, type, owner_id, description, key_hash, last_four) VALUES ($1, $2, 'team', $3, 'planted', $4, 'abcd')`,
      [randomUUID(), projectId, teamId, randomUUID()],
    );
    for (const transportId of [randomUUID(), randomUUID()]) {
      await stack.teams!.ctx.bus.publish({ id: transportId, subject: "teams_permissions.team.deleted.v1", data: new Uint8Array(event.envelope) });
    }
    const { team: marker } = await teams.createTeam({ projectId, displayName: "Marker" });
    const markerKey = await teamKey(marker!.id, "marker");
    await teams.deleteTeam({ projectId, teamId: marker!.id });
    await waitFor(async () => (await rows(marker!.id)) === 0, 10_000);
    expect(await check(keysB, markerKey.value)).toBe("API_KEY_NOT_FOUND");
    expect(await rows(teamId)).toBe(1);
    expect(await deletedEvents()).toBe(eventsAfterDeletion + 1);
    const processed = await stack.authDb.query(`SELECT 1 FROM processed_events WHERE consumer = $1 AND event_id = $2`, [SECURITY_CONSUMERS.teamDeleted, event.id]);
    expect(processed.rows).toHaveLength(1);
  });
});
