import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { eventually, signUp, type SignedUpUser } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
});
afterAll(async () => {
  await stack?.stop();
});

/** A signed-up user of `internal` (a project owner) and their personal team (created on sign-up, by event). */
async function owner(): Promise<SignedUpUser & { teamId: string }> {
  const u = await signUp(stack, stack.internal);
  const teams = await eventually(() => call(stack, "GET", "/api/v1/teams?user_id=me", { headers: u.headers }), (r) => r.json?.items?.length === 1);
  return { ...u, teamId: teams.json.items[0].id };
}

/** Headers of the dashboard's admin SDK for project `projectId`: an internal access token instead of keys. */
function dashboard(u: SignedUpUser, projectId: string, type: "client" | "server" | "admin" = "admin"): Record<string, string> {
  return {
    "x-stack-project-id": projectId,
    "x-stack-access-type": type,
    "x-stack-admin-access-token": u.accessToken,
    "x-stack-secret-server-key": "",
    "x-stack-super-secret-admin-key": "",
  };
}

describe("/api/v1/internal/projects (project owners)", () => {
  it("creates projects owned by the caller's team, lists them, and lets owner-team members administer them", async () => {
    const ada = await owner();
    expect((await call(stack, "GET", "/api/v1/internal/projects", { headers: ada.headers })).json).toEqual({ items: [], is_paginated: false });
    const created = await call(stack, "POST", "/api/v1/internal/projects", {
      headers: ada.headers,
      body: { display_name: "Ada's App", owner_team_id: ada.teamId, config: { sign_up_enabled: false } },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ display_name: "Ada's App", owner_team_id: ada.teamId, config: { allow_localhost: true, sign_up_enabled: false } });
    const projectId = created.json.id as string;
    const listed = await call(stack, "GET", "/api/v1/internal/projects", { headers: ada.headers });
    expect(listed.json.items.map((p: { id: string }) => p.id)).toEqual([projectId]);

    // The dashboard path: no keys, the owner's internal access token, any access type.
    const current = await call(stack, "GET", "/api/v1/internal/projects/current", { headers: dashboard(ada, projectId) });
    expect(current.status).toBe(200);
    expect(current.json.id).toBe(projectId);
    expect((await call(stack, "GET", "/api/v1/users", { headers: dashboard(ada, projectId, "server") })).status).toBe(200);
    expect((await call(stack, "GET", "/api/v1/projects/current", { headers: dashboard(ada, projectId, "client") })).json.id).toBe(projectId);

    const bob = await owner();
    expectKnownError(await call(stack, "GET", "/api/v1/internal/projects/current", { headers: dashboard(bob, projectId) }), 401, "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
    expectKnownError(
      await call(stack, "POST", "/api/v1/internal/projects", { headers: bob.headers, body: { display_name: "Squat", owner_team_id: ada.teamId } }),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
    // Joining the owner team grants access; leaving it takes it away again.
    await call(stack, "POST", `/api/v1/team-memberships/${ada.teamId}/${bob.userId}`, { headers: headersFor(stack.internal, "server"), body: {} });
    await eventually(() => call(stack, "GET", "/api/v1/internal/projects/current", { headers: dashboard(bob, projectId) }), (r) => r.status === 200);
    expect((await call(stack, "GET", "/api/v1/internal/projects", { headers: bob.headers })).json.items.map((p: { id: string }) => p.id)).toEqual([projectId]);
    await call(stack, "DELETE", `/api/v1/team-memberships/${ada.teamId}/me`, { headers: bob.headers });
    await eventually(() => call(stack, "GET", "/api/v1/internal/projects/current", { headers: dashboard(bob, projectId) }), (r) => r.status === 401);

    // A user of another project is no project owner.
    const demoUser = await signUp(stack, stack.demo);
    expectKnownError(await call(stack, "GET", "/api/v1/internal/projects", { headers: demoUser.headers }), 401, "EXPECTED_INTERNAL_PROJECT");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/projects/current", { headers: dashboard(demoUser, projectId) }), 401, "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN");
  });

  it("transfers a project between the caller's teams, with team_admin in the current owner team", async () => {
    const ada = await owner();
    const projectId = (await call(stack, "POST", "/api/v1/internal/projects", { headers: ada.headers, body: { display_name: "Moving", owner_team_id: ada.teamId } })).json.id as string;
    const second = (await call(stack, "POST", "/api/v1/teams", { headers: ada.headers, body: { display_name: "Ada's second team" } })).json;
    const bob = await owner();

    expectKnownError(
      await call(stack, "POST", "/api/v1/internal/projects/transfer", { headers: ada.headers, body: { project_id: projectId, new_team_id: bob.teamId } }),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
    expectKnownError(
      await call(stack, "POST", "/api/v1/internal/projects/transfer", { headers: bob.headers, body: { project_id: projectId, new_team_id: bob.teamId } }),
      404,
      "TEAM_MEMBERSHIP_NOT_FOUND",
    );
    // A plain member (team_member) of the owner team may not transfer.
    await call(stack, "POST", `/api/v1/team-memberships/${ada.teamId}/${bob.userId}`, { headers: headersFor(stack.internal, "server"), body: {} });
    const notAdmin = await call(stack, "POST", "/api/v1/internal/projects/transfer", { headers: bob.headers, body: { project_id: projectId, new_team_id: bob.teamId } });
    expectKnownError(notAdmin, 401, "TEAM_PERMISSION_REQUIRED");
    expect(notAdmin.json.details).toEqual({ team_id: ada.teamId, user_id: bob.userId, permission_id: "team_admin" });

    const moved = await call(stack, "POST", "/api/v1/internal/projects/transfer", { headers: ada.headers, body: { project_id: projectId, new_team_id: second.id } });
    expect(moved.json).toEqual({ success: "true" });
    expect((await call(stack, "GET", "/api/v1/internal/projects/current", { headers: dashboard(ada, projectId) })).json.owner_team_id).toBe(second.id);

    expectKnownError(
      await call(stack, "POST", "/api/v1/internal/projects/transfer", { headers: ada.headers, body: { project_id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", new_team_id: second.id } }),
      404,
      "PROJECT_NOT_FOUND",
    );
    const unowned = await call(stack, "POST", "/api/v1/internal/projects/transfer", { headers: ada.headers, body: { project_id: stack.demo.projectId, new_team_id: second.id } });
    expect(unowned.status).toBe(400);
    expect(unowned.text).toBe("Project must have an owner team to be transferred");
    expectKnownError(await call(stack, "POST", "/api/v1/internal/projects/transfer", { headers: headersFor(stack.internal, "client"), body: { project_id: projectId, new_team_id: second.id } }), 401, "USER_AUTHENTICATION_REQUIRED");
  });

  it("seeds the internal project's team_member and team_admin", async () => {
    const defs = await call(stack, "GET", "/api/v1/team-permission-definitions", { headers: headersFor(stack.internal, "admin") });
    const byId = Object.fromEntries(defs.json.items.map((d: { id: string; contained_permission_ids: string[] }) => [d.id, d.contained_permission_ids]));
    expect(byId.team_member).toEqual(["$read_members"]);
    expect(byId.team_admin).toEqual(["$read_members", "$remove_members", "$update_team"]);
  });
});
