import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shouldRunNatsTests, TcpProxy, testNatsUrl } from "@vestibule/shared/testing";
import { server, startTeamsStack, type TeamsStack } from "./support.ts";

const runNats = await shouldRunNatsTests();

/**
 * Issue 13's set-up inside CreateUser races identity.user.created.v1: the event leaves through the outbox the moment
 * the user commits, and teams-permissions' consumer can set the user up before identity's own call arrives. That call
 * then finds the user set up already; the answer must still carry the personal team the consumer selected (CI once
 * answered a sign-up with `selected_team_id: null` under load). Here identity's link to teams-permissions passes a
 * TCP relay that holds each new connection for a second, so the consumer always wins.
 */
describe.runIf(runNats)("CreateUser when the user.created consumer sets the user up first", () => {
  let stack: TeamsStack;
  let relay: TcpProxy;

  beforeAll(async () => {
    stack = await startTeamsStack({ natsUrl: testNatsUrl() });
    relay = new TcpProxy("127.0.0.1", Number(new URL(stack.env.VESTIBULE_TEAMS_PERMISSIONS_URL!).port), { connectDelayMs: 1_000 });
    // identity makes its client to teams-permissions at the first sign-up, from the environment it was started with.
    stack.env.VESTIBULE_TEAMS_PERMISSIONS_URL = `http://127.0.0.1:${await relay.start()}`;
  });
  afterAll(async () => {
    await relay?.stop();
    await stack?.stop();
  });

  it("answers with the personal team the consumer created and selected", async () => {
    const projectId = await stack.newProject({ create_team_on_sign_up: true });
    // The first call opens identity's connection through the relay: the consumer has a second's lead.
    const { user } = await stack.users.createUser({ projectId, displayName: "Grace", signUpMethod: "server" });
    expect(user!.selectedTeamId).toEqual(expect.any(String));
    const { teams } = await stack.teams.listTeams({ projectId, caller: server, userId: user!.id });
    expect(teams.map((t) => [t.id, t.displayName])).toEqual([[user!.selectedTeamId, "Grace's Team"]]);
  });
});
