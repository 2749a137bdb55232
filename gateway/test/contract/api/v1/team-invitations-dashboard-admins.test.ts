/**
 * The `dashboard_admins` item limit (contract endpoints.md, `POST /team-invitations/accept`): on the `internal`
 * project only, accepting an invitation into a team is refused with ITEM_QUANTITY_INSUFFICIENT_AMOUNT when the team
 * would have more members than its billing quantity of `dashboard_admins`. Real teams-permissions asking the real
 * billing service (Postgres), through the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type ProjectKeys, type Stack } from "../../../support.ts";
import { codeOf, signUp, waitForMail, type SignedUpUser } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true, billing: true, env: { VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT: "off" } });
  const item = { "payments.items.dashboard_admins": { displayName: "Dashboard admins", customerType: "team" } };
  for (const keys of [stack.internal, stack.demo]) {
    const res = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: headersFor(keys, "admin"), body: { config_override_string: JSON.stringify(item) } });
    expect(res.status).toBe(200);
  }
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const callback = "http://localhost:3000/handler/team-invitation";

/** Invites `invitee` into the team (as the project's server) and answers the e-mailed code. */
async function inviteCode(keys: ProjectKeys, teamId: string, invitee: SignedUpUser): Promise<string> {
  const sent = await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: headersFor(keys, "server"), body: { team_id: teamId, email: invitee.email, callback_url: callback } });
  expect(sent.status).toBe(200);
  return codeOf(await waitForMail(stack, invitee.email, (m) => m.template === "team_invitation"));
}

const setQuantity = async (keys: ProjectKeys, teamId: string, delta: number) => {
  const res = await call(stack, "POST", `/api/v1/payments/items/team/${teamId}/dashboard_admins/update-quantity?allow_negative=true`, { headers: headersFor(keys, "server"), body: { delta } });
  expect(res.status).toBe(200);
};
const teamIdsOf = async (keys: ProjectKeys, userId: string) =>
  ((await call(stack, "GET", `/api/v1/teams?user_id=${userId}`, { headers: headersFor(keys, "server") })).json.items as { id: string }[]).map((t) => t.id);

describe("dashboard_admins on the internal project", () => {
  it("with a quantity of N, the (N+1)th member's accept is refused and writes nothing; a raised quantity counts at once", async () => {
    const owner = await signUp(stack, stack.internal);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Dashboard team" } })).json;
    await setQuantity(stack.internal, team.id, 2);
    const first = await signUp(stack, stack.internal);
    const second = await signUp(stack, stack.internal);
    const firstCode = await inviteCode(stack.internal, team.id, first);
    const secondCode = await inviteCode(stack.internal, team.id, second);

    expect((await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: first.headers, body: { code: firstCode } })).status).toBe(200);
    const refused = await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: second.headers, body: { code: secondCode } });
    expectKnownError(refused, 400, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT");
    expect(refused.json.details).toEqual({ item_id: "dashboard_admins", customer_id: team.id, quantity: 1 });
    // Nothing written: no membership, the code is still unused and the invitation still listed.
    expect(await teamIdsOf(stack.internal, second.userId)).not.toContain(team.id);
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: headersFor(stack.internal, "client"), body: { code: secondCode } })).json).toEqual({ is_code_valid: true });
    expect((await call(stack, "GET", `/api/v1/team-invitations?team_id=${team.id}`, { headers: headersFor(stack.internal, "server") })).json.items).toHaveLength(1);
    // A member accepting again is not a new admin: refused with the code already used, not with the limit.
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: first.headers, body: { code: firstCode } }), 409, "VERIFICATION_CODE_ALREADY_USED");

    // The operator raises the quantity: the very next accept sees it.
    await setQuantity(stack.internal, team.id, 1);
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: second.headers, body: { code: secondCode } })).status).toBe(200);
    expect(await teamIdsOf(stack.internal, second.userId)).toContain(team.id);
  }, 120_000);

  it("concurrent accepts into a full-but-one team: exactly one gets in", async () => {
    const owner = await signUp(stack, stack.internal);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Race team" } })).json;
    await setQuantity(stack.internal, team.id, 2);
    const invitees: SignedUpUser[] = [];
    for (const i of [0, 1, 2]) invitees.push(await signUp(stack, stack.internal, `race-${i}-${Date.now()}@example.com`));
    const codes: string[] = [];
    for (const invitee of invitees) codes.push(await inviteCode(stack.internal, team.id, invitee));
    const answers = await Promise.all(invitees.map((u, i) => call(stack, "POST", "/api/v1/team-invitations/accept", { headers: u.headers, body: { code: codes[i] } })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.json?.code === "ITEM_QUANTITY_INSUFFICIENT_AMOUNT")).toHaveLength(2);
  }, 120_000);

  it("other projects are not limited by their own dashboard_admins item", async () => {
    const owner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Demo team" } })).json;
    // quantity 0 on the demo project: still no limit there
    const invitee = await signUp(stack);
    const code = await inviteCode(stack.demo, team.id, invitee);
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: invitee.headers, body: { code } })).status).toBe(200);
  }, 120_000);
});
