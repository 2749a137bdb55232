/**
 * Team API keys against the real teams-permissions service (the gateway's own TeamAccess, no stand-in): who may
 * manage a team's keys ($manage_api_keys, also through a contained permission, asked afresh on every request), the
 * team's existence in this project for server callers (TEAM_NOT_FOUND), a deleted team's keys going away, and the
 * secret scanner's e-mails to the team's key managers, read from the dev mailbox.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { eventually, signUp, waitForMail, type SignedUpUser } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
  const admin = headersFor(stack.demo, "admin");
  expect((await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin, body: { config: { allow_team_api_keys: true } } })).status).toBe(200);
  expect(
    (
      await call(stack, "POST", "/api/v1/team-permission-definitions", {
        headers: admin,
        body: { id: "keys:operator", description: "Operates the team's keys", contained_permission_ids: ["$manage_api_keys"] },
      })
    ).status,
  ).toBe(201);
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");
const keyBody = (team_id: string, description = "deploy bot") => ({ team_id, description, expires_at_millis: null });

/** A team created by a signed-in client (who becomes its team_admin) plus a plain member (team_member). */
async function teamWithMember(): Promise<{ teamId: string; admin: SignedUpUser; member: SignedUpUser }> {
  const admin = await signUp(stack);
  const team = await call(stack, "POST", "/api/v1/teams", { headers: admin.headers, body: { display_name: `Keys ${randomBytes(3).toString("hex")}` } });
  expect(team.status).toBe(201);
  const member = await signUp(stack);
  expect((await call(stack, "POST", `/api/v1/team-memberships/${team.json.id}/${member.userId}`, { headers: server(), body: {} })).status).toBe(201);
  return { teamId: team.json.id, admin, member };
}

describe("/api/v1/team-api-keys with the teams-permissions service", () => {
  it("the team's admin ($manage_api_keys through team_admin) manages the keys; servers check them", async () => {
    const { teamId, admin } = await teamWithMember();
    const created = await call(stack, "POST", "/api/v1/team-api-keys", { headers: admin.headers, body: keyBody(teamId) });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ type: "team", team_id: teamId, description: "deploy bot", is_public: false });
    expect((await call(stack, "GET", `/api/v1/team-api-keys?team_id=${teamId}`, { headers: admin.headers })).json.items.map((k: { id: string }) => k.id)).toEqual([
      created.json.id,
    ]);
    expect((await call(stack, "GET", `/api/v1/team-api-keys/${created.json.id}`, { headers: admin.headers })).json.value).toEqual({ last_four: created.json.value.slice(-4) });
    expect((await call(stack, "POST", "/api/v1/team-api-keys/check", { headers: server(), body: { api_key: created.json.value } })).json).toMatchObject({
      id: created.json.id,
      team_id: teamId,
    });
    const revoked = await call(stack, "PATCH", `/api/v1/team-api-keys/${created.json.id}`, { headers: admin.headers, body: { revoked: true } });
    expect(revoked.json.manually_revoked_at_millis).toEqual(expect.any(Number));
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys/check", { headers: server(), body: { api_key: created.json.value } }), 401, "API_KEY_REVOKED");
  });

  it("members without $manage_api_keys, outsiders and admins of other teams get API_KEY_NOT_FOUND; a grant opens it, a revoke closes it", async () => {
    const { teamId, member } = await teamWithMember();
    const other = await teamWithMember();
    const outsider = await signUp(stack);
    const made = await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body: keyBody(teamId, "server made") });
    expect(made.status).toBe(200);
    for (const who of [member, outsider, other.admin]) {
      expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: who.headers, body: keyBody(teamId) }), 404, "API_KEY_NOT_FOUND");
      expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys?team_id=${teamId}`, { headers: who.headers }), 404, "API_KEY_NOT_FOUND");
      expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys/${made.json.id}`, { headers: who.headers }), 404, "API_KEY_NOT_FOUND");
      expectKnownError(await call(stack, "PATCH", `/api/v1/team-api-keys/${made.json.id}`, { headers: who.headers, body: { revoked: true } }), 404, "API_KEY_NOT_FOUND");
    }
    // Through a permission that contains $manage_api_keys.
    const grant = `/api/v1/team-permissions/${teamId}/${member.userId}/keys:operator`;
    expect((await call(stack, "POST", grant, { headers: server(), body: {} })).status).toBe(201);
    expect((await call(stack, "GET", `/api/v1/team-api-keys?team_id=${teamId}`, { headers: member.headers })).json.items.map((k: { id: string }) => k.id)).toEqual([made.json.id]);
    expect((await call(stack, "POST", "/api/v1/team-api-keys", { headers: member.headers, body: keyBody(teamId, "by operator") })).status).toBe(200);
    // Revoked: refused again at once (no answer of the teams service is kept by the gateway).
    expect((await call(stack, "DELETE", grant, { headers: server() })).status).toBe(200);
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys?team_id=${teamId}`, { headers: member.headers }), 404, "API_KEY_NOT_FOUND");
    // Leaving the team ends it too, whatever was granted.
    expect((await call(stack, "POST", grant, { headers: server(), body: {} })).status).toBe(201);
    expect((await call(stack, "DELETE", `/api/v1/team-memberships/${teamId}/me`, { headers: member.headers })).status).toBe(200);
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: member.headers, body: keyBody(teamId) }), 404, "API_KEY_NOT_FOUND");
  });

  it("server callers need the team to exist in this project: TEAM_NOT_FOUND otherwise, also for a team of another project", async () => {
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body: keyBody(randomUUID()) }), 404, "TEAM_NOT_FOUND");
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys?team_id=${randomUUID()}`, { headers: server() }), 404, "TEAM_NOT_FOUND");
    const foreign = await call(stack, "POST", "/api/v1/teams", { headers: headersFor(stack.internal, "server"), body: { display_name: "Internal team" } });
    expect(foreign.status).toBe(201);
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body: keyBody(foreign.json.id) }), 404, "TEAM_NOT_FOUND");
    // A client of this project, even one signed in, cannot reach it either.
    const someone = await signUp(stack);
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: someone.headers, body: keyBody(foreign.json.id) }), 404, "API_KEY_NOT_FOUND");
  });

  it("deleting the team deletes its keys: checks refuse them and no key can be made for it", async () => {
    const { teamId, admin } = await teamWithMember();
    const key = (await call(stack, "POST", "/api/v1/team-api-keys", { headers: admin.headers, body: keyBody(teamId) })).json;
    const check = () => call(stack, "POST", "/api/v1/team-api-keys/check", { headers: server(), body: { api_key: key.value } });
    expect((await check()).status).toBe(200);
    expect((await call(stack, "DELETE", `/api/v1/teams/${teamId}`, { headers: admin.headers })).status).toBe(200);
    // The gateway's cached answer goes with auth.api_key.deleted.v1.
    expectKnownError(await eventually(check, (r) => r.status === 404), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys/${key.id}`, { headers: server() }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body: keyBody(teamId) }), 404, "TEAM_NOT_FOUND");
  });

  it("a secret scanner's report revokes a team key and e-mails the members who manage the team's keys", async () => {
    const { teamId, admin, member } = await teamWithMember();
    const key = (await call(stack, "POST", "/api/v1/team-api-keys", { headers: admin.headers, body: keyBody(teamId, "leaked in a gist") })).json;
    const report = await call(stack, "POST", "/api/v1/integrations/credential-scanning/revoke", { body: { api_key: key.value } });
    expect(report.status).toBe(200);
    expect(report.json).toEqual({ success: true });
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys/check", { headers: server(), body: { api_key: key.value } }), 401, "API_KEY_REVOKED");
    const mail = await waitForMail(stack, admin.email, (m) => m.template === "api_key_revoked");
    expect(mail.subject).toBe("An API key of your Demo Project account was revoked");
    expect(mail.text).toContain(`A team API key "leaked in a gist" (ending in ${key.value.slice(-4)})`);
    expect(mail.text).not.toContain(key.value);
    // The plain member cannot manage the keys and is not told. (The admin's mail was queued in the same transaction.)
    await new Promise((r) => setTimeout(r, 300));
    await expect(waitForMail(stack, member.email, (m) => m.template === "api_key_revoked", 200)).rejects.toThrow(/no e-mail/);
  });
});
