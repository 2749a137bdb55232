import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "@vestibule/shared/db";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { signUp } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");

describe("/api/v1/team-member-profiles", () => {
  it("lists profiles with their own name and image, else the user's; servers get the user too", async () => {
    const owner = await signUp(stack);
    await call(stack, "PATCH", "/api/v1/users/me", { headers: owner.headers, body: { display_name: "Olga" } });
    const member = await signUp(stack);
    const created = await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Profiles" } });
    expect(created.status, created.text).toBe(201);
    const team = created.json;
    await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${member.userId}`, { headers: server(), body: {} });
    const renamed = await call(stack, "PATCH", `/api/v1/team-member-profiles/${team.id}/me`, { headers: member.headers, body: { display_name: "Captain", profile_image_url: "https://img.example.com/c.png" } });
    expect(renamed.json).toEqual({ team_id: team.id, user_id: member.userId, display_name: "Captain", profile_image_url: "https://img.example.com/c.png" });

    const asClient = await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}`, { headers: member.headers });
    expect(asClient.json).toEqual({
      items: [
        { team_id: team.id, user_id: owner.userId, display_name: "Olga", profile_image_url: null },
        { team_id: team.id, user_id: member.userId, display_name: "Captain", profile_image_url: "https://img.example.com/c.png" },
      ],
      is_paginated: false,
    });
    const asServer = await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}`, { headers: server() });
    expect(asServer.json.items[0].user).toMatchObject({ id: owner.userId, display_name: "Olga", primary_email: owner.email, server_metadata: null, selected_team: { id: team.id } });
    const one = await call(stack, "GET", `/api/v1/team-member-profiles/${team.id}/${owner.userId}`, { headers: member.headers });
    expect(one.json).toEqual(asClient.json.items[0]);
  });

  it("holds clients to membership, $read_members and their own profile", async () => {
    const owner = await signUp(stack);
    const member = await signUp(stack);
    const outsider = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Guarded" } })).json;
    await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${member.userId}`, { headers: server(), body: {} });
    await call(stack, "DELETE", `/api/v1/team-permissions/${team.id}/${member.userId}/team_member`, { headers: server() });

    const noTeam = await call(stack, "GET", "/api/v1/team-member-profiles", { headers: member.headers });
    expect(noTeam.status).toBe(400);
    expect(noTeam.text).toBe("team_id is required for access type client");
    expectKnownError(await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}`, { headers: outsider.headers }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    const noRead = await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}`, { headers: member.headers });
    expectKnownError(noRead, 401, "TEAM_PERMISSION_REQUIRED");
    expect(noRead.json.details.permission_id).toBe("$read_members");
    const own = await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}&user_id=me`, { headers: member.headers });
    expect(own.json.items.map((p: { user_id: string }) => p.user_id)).toEqual([member.userId]);
    expectKnownError(await call(stack, "GET", `/api/v1/team-member-profiles/${team.id}/${owner.userId}`, { headers: member.headers }), 401, "TEAM_PERMISSION_REQUIRED");
    const others = await call(stack, "PATCH", `/api/v1/team-member-profiles/${team.id}/${owner.userId}`, { headers: member.headers, body: { display_name: "Boss" } });
    expect(others.status).toBe(403);
    expect(others.text).toBe("Cannot update another user's profile");
    expectKnownError(await call(stack, "GET", `/api/v1/team-member-profiles/${team.id}/${outsider.userId}`, { headers: server() }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    expectKnownError(await call(stack, "GET", `/api/v1/team-member-profiles?team_id=6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f`, { headers: server() }), 404, "TEAM_NOT_FOUND");
  });

  it("limit (issue 18): oldest members first, 1 to 1000, and 1000 when none is given", async () => {
    const owner = await signUp(stack);
    const others = [await signUp(stack), await signUp(stack)];
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Big" } })).json;
    for (const m of others) await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${m.userId}`, { headers: server(), body: {} });
    const two = await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}&limit=2`, { headers: server() });
    expect(two.json.items.map((p: { user_id: string }) => p.user_id)).toEqual([owner.userId, others[0]!.userId]);
    for (const bad of ["0", "1001", "x"]) expect((await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}&limit=${bad}`, { headers: server() })).status).toBe(400);

    // 1001 more members (written directly: the users need not exist for the listing): without a limit, 1000 come back.
    const db = createPool({ connectionString: stack.db.url, schema: "teams_permissions", max: 1 });
    try {
      await db.query(
        `INSERT INTO team_members (team_id, user_id, project_id) SELECT $1, gen_random_uuid(), $2 FROM generate_series(1, 1001)`,
        [team.id, stack.demo.projectId],
      );
    } finally {
      await db.end();
    }
    const all = await call(stack, "GET", `/api/v1/team-member-profiles?team_id=${team.id}`, { headers: server() });
    expect(all.status, all.text).toBe(200);
    expect(all.json.items).toHaveLength(1000);
    expect(all.json.items[0].user_id).toBe(owner.userId);
  }, 120_000);
});
