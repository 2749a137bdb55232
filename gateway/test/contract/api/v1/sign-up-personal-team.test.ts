/**
 * Issue 13 (seed-era detail): the personal team and the default permissions exist when a sign-up answers, not ~80 ms
 * later when teams-permissions consumes identity.user.created.v1. The gateway here gets no events, and the access
 * token minted by the sign-up must already name the team (it is minted from the user CreateUser returned, so only a
 * set-up made inside the call can put the team there).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true, gatewayEvents: false });
  const set = await call(stack, "PATCH", "/api/v1/internal/config/override", {
    headers: headersFor(stack.demo, "admin"),
    body: {
      config_override_string: JSON.stringify({
        "teams.createPersonalTeamOnSignUp": true,
        "rbac.permissions.read_reports": { description: "Read reports", scope: "project", containedPermissionIds: {} },
        "rbac.defaultPermissions.signUp": { read_reports: true },
      }),
    },
  });
  expect(set.status).toBe(200);
  // teams-permissions learns the project's settings from its events: wait until a sign-up gets a team at all.
  for (let i = 0; ; i++) {
    const probe = await call(stack, "POST", "/api/v1/users", { headers: headersFor(stack.demo, "server"), body: { display_name: "probe" } });
    if (probe.json.selected_team_id) break;
    if (i > 100) throw new Error("teams-permissions never saw create_team_on_sign_up");
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { selected_team_id: string | null };

async function expectSetUp(accessToken: string, name: RegExp) {
  const headers = { ...client(), "x-stack-access-token": accessToken, "x-stack-allow-anonymous-user": "true" };
  const me = await call(stack, "GET", "/api/v1/users/me", { headers });
  expect(me.status).toBe(200);
  expect(me.json.selected_team).toMatchObject({ id: expect.any(String), display_name: expect.stringMatching(name) });
  expect(claimsOf(accessToken).selected_team_id).toBe(me.json.selected_team.id);
  const perms = await call(stack, "GET", "/api/v1/project-permissions?user_id=me", { headers });
  expect(perms.json.items.map((p: { id: string }) => p.id)).toContain("read_reports");
  const teams = await call(stack, "GET", "/api/v1/teams?user_id=me", { headers });
  expect(teams.json.items).toHaveLength(1);
}

describe("sign-up answers with the personal team in place (issue 13)", () => {
  it("password sign-up, with and without a callback", async () => {
    for (const callback of [undefined, "http://localhost:3000/handler/email-verification"]) {
      const email = `pt-${randomBytes(4).toString("hex")}@example.com`;
      const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
        headers: client(),
        body: { email, password: "a good password", ...(callback ? { verification_callback_url: callback } : {}) },
      });
      expect(res.status).toBe(200);
      await expectSetUp(res.json.access_token, new RegExp(`^${email.replace(".", "\\.")}'s Team$`));
    }
  });

  it("anonymous sign-up, and its upgrade keeps the one team", async () => {
    const anon = await call(stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: { ...client(), "x-stack-allow-anonymous-user": "true" } });
    expect(anon.status).toBe(200);
    await expectSetUp(anon.json.access_token, /Team$/);
    const upgraded = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: { ...client(), "x-stack-access-token": anon.json.access_token, "x-stack-allow-anonymous-user": "true" },
      body: { email: `up-${randomBytes(4).toString("hex")}@example.com`, password: "a good password" },
    });
    expect(upgraded.json.user_id).toBe(anon.json.user_id);
    await expectSetUp(upgraded.json.access_token, /Team$/);
  });

  it("server POST /users answers with the selected team, and a second set-up (the event) changes nothing", async () => {
    const created = await call(stack, "POST", "/api/v1/users", { headers: headersFor(stack.demo, "server"), body: { display_name: "Grace", primary_email: `g-${randomBytes(4).toString("hex")}@example.com` } });
    expect(created.status).toBe(201);
    expect(created.json.selected_team).toMatchObject({ display_name: "Grace's Team" });
    expect(created.json.selected_team_id).toBe(created.json.selected_team.id);
    // The user leaves the personal team; the identity.user.created.v1 consumer (which runs in teams-permissions
    // meanwhile or later) must not bring it back.
    const server = headersFor(stack.demo, "server");
    expect((await call(stack, "DELETE", `/api/v1/teams/${created.json.selected_team_id}`, { headers: server })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_000));
    const teams = await call(stack, "GET", `/api/v1/teams?user_id=${created.json.id}`, { headers: server });
    expect(teams.json.items).toEqual([]);
  });
});
