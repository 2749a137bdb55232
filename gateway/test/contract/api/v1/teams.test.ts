import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { eventually, signUp } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");

describe("/api/v1/teams", () => {
  it("creates a team for a client (201, client shape), selects it, and lists the client's teams", async () => {
    const me = await signUp(stack);
    const created = await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "Rocket", creator_user_id: "me", client_metadata: { color: "red" } } });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: expect.any(String), display_name: "Rocket", profile_image_url: null, client_metadata: { color: "red" }, client_read_only_metadata: null });
    const teamId = created.json.id as string;

    const user = await call(stack, "GET", "/api/v1/users/me", { headers: me.headers });
    expect(user.json.selected_team_id).toBe(teamId);
    expect(user.json.selected_team).toEqual(created.json);
    const serverUser = await call(stack, "GET", `/api/v1/users/${me.userId}`, { headers: server() });
    expect(serverUser.json.selected_team).toMatchObject({ id: teamId, created_at_millis: expect.any(Number), server_metadata: null });

    const second = await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "Second" } });
    const mine = await call(stack, "GET", "/api/v1/teams?user_id=me", { headers: me.headers });
    expect(mine.json).toEqual({ items: [created.json, second.json], is_paginated: false });
    const all = await call(stack, "GET", "/api/v1/teams", { headers: server() });
    expect(all.json.items.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining([teamId, second.json.id]));
    expect(all.json.items[0]).toHaveProperty("server_metadata");
  });

  it("answers the client rules with the contract's errors", async () => {
    const me = await signUp(stack);
    const other = await signUp(stack);
    expectKnownError(await call(stack, "POST", "/api/v1/teams", { headers: headersFor(stack.demo, "client"), body: { display_name: "x", creator_user_id: "me" } }), 401, "USER_AUTHENTICATION_REQUIRED");
    const notSelf = await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "x", creator_user_id: other.userId } });
    expect(notSelf.status).toBe(403);
    expect(notSelf.headers.get("x-stack-known-error")).toBeNull();
    const serverFields = await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "x", server_metadata: { a: 1 } } });
    expectKnownError(serverFields, 400, "SCHEMA_ERROR");
    expect(serverFields.json.error).toContain("body contains unknown properties: server_metadata");
    expect((await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "x", profile_image_url: "https://example.com/a.png" } })).text).toBe("Invalid profile image URL");

    const list = await call(stack, "GET", `/api/v1/teams?user_id=${other.userId}`, { headers: me.headers });
    expect(list.status).toBe(403);
    expect(list.text).toContain("Client can only list teams for their own user");
    expect((await call(stack, "GET", "/api/v1/teams", { headers: me.headers })).status).toBe(403);
    expectKnownError(await call(stack, "GET", "/api/v1/teams?user_id=me", { headers: headersFor(stack.demo, "client") }), 400, "CANNOT_GET_OWN_USER_WITHOUT_USER");

    const team = (await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "Mine" } })).json;
    expectKnownError(await call(stack, "GET", `/api/v1/teams/${team.id}`, { headers: other.headers }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    expectKnownError(await call(stack, "PATCH", `/api/v1/teams/${team.id}`, { headers: other.headers, body: { display_name: "Mine now" } }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${other.userId}`, { headers: server(), body: {} });
    const noUpdate = await call(stack, "PATCH", `/api/v1/teams/${team.id}`, { headers: other.headers, body: { display_name: "Mine now" } });
    expectKnownError(noUpdate, 401, "TEAM_PERMISSION_REQUIRED");
    expect(noUpdate.json.details).toEqual({ team_id: team.id, user_id: other.userId, permission_id: "$update_team" });
    expectKnownError(await call(stack, "DELETE", `/api/v1/teams/${team.id}`, { headers: other.headers }), 401, "TEAM_PERMISSION_REQUIRED");
    expectKnownError(await call(stack, "GET", "/api/v1/teams/not-a-uuid", { headers: server() }), 400, "SCHEMA_ERROR");
    // A cap on the page size (issue 18).
    expect((await call(stack, "GET", "/api/v1/teams?limit=1000", { headers: server() })).status).toBe(200);
    const overCap = await call(stack, "GET", "/api/v1/teams?limit=1001", { headers: server() });
    expectKnownError(overCap, 400, "SCHEMA_ERROR");
    expect(overCap.json.error).toContain("query.limit must be less than or equal to 1000");
    expectKnownError(await call(stack, "GET", "/api/v1/teams/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", { headers: server() }), 404, "TEAM_NOT_FOUND");
  });

  it("refuses client creation when the project disallows it", async () => {
    await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: headersFor(stack.demo, "admin"), body: { config: { client_team_creation_enabled: false } } });
    try {
      const me = await signUp(stack);
      const res = await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "x" } });
      expect(res.status).toBe(403);
      expect(res.text).toBe("Client team creation is disabled for this project");
      // A server may always create teams.
      expect((await call(stack, "POST", "/api/v1/teams", { headers: server(), body: { display_name: "server made", creator_user_id: me.userId } })).status).toBe(201);
    } finally {
      await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: headersFor(stack.demo, "admin"), body: { config: { client_team_creation_enabled: true } } });
    }
  });

  it("keeps the three metadata levels apart and updates and deletes with the $ permissions", async () => {
    const me = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "Meta" } })).json;
    const byServer = await call(stack, "PATCH", `/api/v1/teams/${team.id}`, { headers: server(), body: { client_read_only_metadata: { plan: "pro" }, server_metadata: { note: "vip" } } });
    expect(byServer.json).toMatchObject({ client_read_only_metadata: { plan: "pro" }, server_metadata: { note: "vip" } });
    const byClient = await call(stack, "PATCH", `/api/v1/teams/${team.id}`, { headers: me.headers, body: { display_name: "Renamed", client_metadata: { theme: "dark" } } });
    expect(byClient.json).toEqual({ id: team.id, display_name: "Renamed", profile_image_url: null, client_metadata: { theme: "dark" }, client_read_only_metadata: { plan: "pro" } });
    expectKnownError(await call(stack, "PATCH", `/api/v1/teams/${team.id}`, { headers: me.headers, body: { client_read_only_metadata: {} } }), 400, "SCHEMA_ERROR");
    // The selected team in the user view follows the change (team events drop the gateway's cached copy).
    expect((await call(stack, "GET", "/api/v1/users/me", { headers: me.headers })).json.selected_team.display_name).toBe("Renamed");

    expect((await call(stack, "DELETE", `/api/v1/teams/${team.id}`, { headers: me.headers })).json).toEqual({ success: true });
    expectKnownError(await call(stack, "GET", `/api/v1/teams/${team.id}`, { headers: server() }), 404, "TEAM_NOT_FOUND");
    const after = await eventually(
      () => call(stack, "GET", "/api/v1/users/me", { headers: me.headers }),
      (r) => r.json.selected_team_id === null,
    );
    expect(after.json.selected_team).toBeNull();
  });

  it("guards team API keys with the service's permissions: $manage_api_keys (in team_admin) or nothing", async () => {
    await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: headersFor(stack.demo, "admin"), body: { config: { allow_team_api_keys: true } } });
    const admin = await signUp(stack);
    const member = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: admin.headers, body: { display_name: "Keyed" } })).json;
    await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${member.userId}`, { headers: server(), body: {} });
    const body = { team_id: team.id, description: "ci", expires_at_millis: null };
    const created = await call(stack, "POST", "/api/v1/team-api-keys", { headers: admin.headers, body });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ type: "team", team_id: team.id });
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: member.headers, body }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body: { ...body, team_id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" } }), 404, "TEAM_NOT_FOUND");
  });

  it("never shows or changes a team of another project", async () => {
    const me = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: me.headers, body: { display_name: "Private" } })).json;
    const internalAdmin = headersFor(stack.internal, "server");
    expectKnownError(await call(stack, "GET", `/api/v1/teams/${team.id}`, { headers: internalAdmin }), 404, "TEAM_NOT_FOUND");
    expectKnownError(await call(stack, "DELETE", `/api/v1/teams/${team.id}`, { headers: internalAdmin }), 404, "TEAM_NOT_FOUND");
    expect((await call(stack, "GET", "/api/v1/teams", { headers: internalAdmin })).json.items.map((t: { id: string }) => t.id)).not.toContain(team.id);
    const stolen = await call(stack, "PATCH", "/api/v1/users/me", { headers: (await signUp(stack, stack.internal)).headers, body: { selected_team_id: team.id } });
    expectKnownError(stolen, 404, "TEAM_MEMBERSHIP_NOT_FOUND");
  });
});
