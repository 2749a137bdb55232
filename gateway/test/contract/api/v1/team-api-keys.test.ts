/**
 * Team API keys with a teams directory plugged into the gateway (the `TeamAccess` seam that the teams-permissions
 * service fills): what a member holding `$manage_api_keys` may do, what others may not, and server access. The same
 * rules against the real teams-permissions service: team-api-keys-teams-service.test.ts.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TeamAccess } from "../../../../src/auth/team-access.ts";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

const team = randomUUID();
const managers = new Set<string>();
/** One team in the demo project; `managers` hold $manage_api_keys in it. */
const teams: TeamAccess = {
  async teamExists(projectId, teamId) {
    return projectId === stack.demo.projectId && teamId === team;
  },
  async hasTeamPermission(projectId, teamId, userId, permissionId) {
    return projectId === stack.demo.projectId && teamId === team && permissionId === "$manage_api_keys" && managers.has(userId);
  },
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams });
  await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: headersFor(stack.demo, "admin"), body: { config: { allow_team_api_keys: true } } });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const server = () => headersFor(stack.demo, "server");

async function signUp(): Promise<{ userId: string; headers: Record<string, string> }> {
  const email = `team-keys-${randomBytes(5).toString("hex")}@example.com`;
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
    headers: client(),
    body: { email, password: "a good password", verification_callback_url: "http://localhost:3000/handler/email-verification" },
  });
  return { userId: res.json.user_id, headers: { ...client(), "x-stack-access-token": res.json.access_token } };
}

describe("/api/v1/team-api-keys with a teams directory", () => {
  it("a member with $manage_api_keys creates, lists, reads and revokes the team's keys; servers check them", async () => {
    const manager = await signUp();
    managers.add(manager.userId);
    const created = await call(stack, "POST", "/api/v1/team-api-keys", { headers: manager.headers, body: { team_id: team, description: "deploy bot", expires_at_millis: null } });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ type: "team", team_id: team, description: "deploy bot", is_public: false });
    expect(created.json.value).toMatch(/^sk_[0-9a-z]{45}[0-9a-f]{32}team1574ck4u7h[0-9a-f]{8}$/);
    const list = await call(stack, "GET", `/api/v1/team-api-keys?team_id=${team}`, { headers: manager.headers });
    expect(list.json.items.map((k: { id: string }) => k.id)).toEqual([created.json.id]);
    expect((await call(stack, "GET", `/api/v1/team-api-keys/${created.json.id}`, { headers: manager.headers })).json.value).toEqual({
      last_four: created.json.value.slice(-4),
    });
    const checked = await call(stack, "POST", "/api/v1/team-api-keys/check", { headers: server(), body: { api_key: created.json.value } });
    expect(checked.json).toMatchObject({ id: created.json.id, team_id: team });

    const revoked = await call(stack, "PATCH", `/api/v1/team-api-keys/${created.json.id}?team_id=${team}`, { headers: manager.headers, body: { revoked: true } });
    expect(revoked.json.manually_revoked_at_millis).toEqual(expect.any(Number));
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys/check", { headers: server(), body: { api_key: created.json.value } }), 401, "API_KEY_REVOKED");
  });

  it("members without the permission see nothing; servers need the team to exist", async () => {
    const outsider = await signUp();
    const body = { team_id: team, description: "nope", expires_at_millis: null };
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: outsider.headers, body }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys?team_id=${team}`, { headers: outsider.headers }), 404, "API_KEY_NOT_FOUND");
    const made = await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body: { ...body, description: "server made" } });
    expect(made.status).toBe(200);
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys/${made.json.id}`, { headers: outsider.headers }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys/${made.json.id}?team_id=${randomUUID()}`, { headers: server() }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body: { ...body, team_id: randomUUID() } }), 404, "TEAM_NOT_FOUND");
  });
});
