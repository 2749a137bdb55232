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
const MISSING = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";

describe("/api/v1/team-memberships", () => {
  it("adds members (201) with team_member, answers the contract's errors, and is server-only to add", async () => {
    const owner = await signUp(stack);
    const joiner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Club" } })).json;
    const added = await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${joiner.userId}`, { headers: server(), body: {} });
    expect(added.status).toBe(201);
    expect(added.json).toEqual({ team_id: team.id, user_id: joiner.userId });
    const perms = await call(stack, "GET", `/api/v1/team-permissions?team_id=${team.id}&user_id=${joiner.userId}&recursive=false`, { headers: server() });
    expect(perms.json.items).toEqual([{ id: "team_member", user_id: joiner.userId, team_id: team.id }]);

    expectKnownError(await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${joiner.userId}`, { headers: server(), body: {} }), 409, "TEAM_MEMBERSHIP_ALREADY_EXISTS");
    expectKnownError(await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${MISSING}`, { headers: server(), body: {} }), 404, "USER_NOT_FOUND");
    expectKnownError(await call(stack, "POST", `/api/v1/team-memberships/${MISSING}/${joiner.userId}`, { headers: server(), body: {} }), 404, "TEAM_NOT_FOUND");
    expectKnownError(await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${joiner.userId}`, { headers: owner.headers, body: {} }), 401, "INSUFFICIENT_ACCESS_TYPE");
  });

  it("lets a member leave, needs $remove_members to remove others, and unselects a team its member left", async () => {
    const owner = await signUp(stack);
    const a = await signUp(stack);
    const b = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Leavers" } })).json;
    for (const u of [a, b]) await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${u.userId}`, { headers: server(), body: {} });

    const removeOther = await call(stack, "DELETE", `/api/v1/team-memberships/${team.id}/${b.userId}`, { headers: a.headers, body: {} });
    expectKnownError(removeOther, 401, "TEAM_PERMISSION_REQUIRED");
    expect(removeOther.json.details.permission_id).toBe("$remove_members");

    expect((await call(stack, "PATCH", "/api/v1/users/me", { headers: a.headers, body: { selected_team_id: team.id } })).json.selected_team.id).toBe(team.id);
    expect((await call(stack, "DELETE", `/api/v1/team-memberships/${team.id}/me`, { headers: a.headers, body: {} })).json).toEqual({ success: true });
    await eventually(() => call(stack, "GET", "/api/v1/users/me", { headers: a.headers }), (r) => r.json.selected_team_id === null && r.json.selected_team === null);
    expectKnownError(await call(stack, "DELETE", `/api/v1/team-memberships/${team.id}/me`, { headers: a.headers, body: {} }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    expectKnownError(await call(stack, "GET", `/api/v1/teams/${team.id}`, { headers: a.headers }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");

    // The creator holds team_admin (with $remove_members).
    expect((await call(stack, "DELETE", `/api/v1/team-memberships/${team.id}/${b.userId}`, { headers: owner.headers })).status).toBe(200);
    expectKnownError(await call(stack, "DELETE", `/api/v1/team-memberships/${team.id}/${MISSING}`, { headers: server() }), 404, "USER_NOT_FOUND");
    expectKnownError(await call(stack, "DELETE", `/api/v1/team-memberships/${team.id}/me`, { headers: headersFor(stack.demo, "client") }), 400, "CANNOT_GET_OWN_USER_WITHOUT_USER");
  });

  it("lists a team's members as users (GET /users?team_id) and cleans up after a deleted user", async () => {
    const owner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Roster" } })).json;
    const members = await call(stack, "GET", `/api/v1/users?team_id=${team.id}`, { headers: server() });
    expect(members.json.items.map((u: { id: string }) => u.id)).toEqual([owner.userId]);
    expect(members.json.items[0].selected_team).toMatchObject({ id: team.id, display_name: "Roster" });
    expectKnownError(await call(stack, "GET", `/api/v1/users?team_id=${MISSING}`, { headers: server() }), 404, "TEAM_NOT_FOUND");

    await call(stack, "DELETE", `/api/v1/users/${owner.userId}`, { headers: server() });
    await eventually(() => call(stack, "GET", `/api/v1/users?team_id=${team.id}`, { headers: server() }), (r) => r.json.items.length === 0);
    const profiles = await eventually(
      () => call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}`, { headers: server() }),
      (r) => r.status === 200 && r.json.items.length === 0,
    );
    expect(profiles.json).toEqual({ items: [], is_paginated: false });
  });
});
