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

const admin = () => headersFor(stack.demo, "admin");
const server = () => headersFor(stack.demo, "server");

describe("/api/v1/{team,project}-permission-definitions", () => {
  it("lists the system permissions, creates, renames and deletes definitions, and GET /internal/config agrees", async () => {
    const list = await call(stack, "GET", "/api/v1/team-permission-definitions", { headers: admin() });
    expect(list.json.items.map((d: { id: string }) => d.id)).toEqual([
      "$delete_team", "$invite_members", "$manage_api_keys", "$read_members", "$remove_members", "$update_team", "team_admin", "team_member",
    ]);
    expect(list.json.items[0]).toEqual({ id: "$delete_team", description: "Delete the team", contained_permission_ids: [] });
    expect(list.json.items.find((d: { id: string }) => d.id === "team_member")).toEqual({
      id: "team_member",
      description: "Default permission for team members",
      contained_permission_ids: ["$invite_members", "$read_members"],
    });

    const created = await call(stack, "POST", "/api/v1/team-permission-definitions", {
      headers: admin(),
      body: { id: "docs:edit", description: "Edit docs", contained_permission_ids: ["$read_members"] },
    });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id: "docs:edit", description: "Edit docs", contained_permission_ids: ["$read_members"] });
    const config = async () => JSON.parse((await call(stack, "GET", "/api/v1/internal/config", { headers: admin() })).json.config_string);
    expect((await config()).rbac.permissions["docs:edit"]).toEqual({ description: "Edit docs", scope: "team", containedPermissionIds: { $read_members: true } });

    await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin(), body: { config: { team_creator_default_permissions: [{ id: "team_admin" }, { id: "docs:edit" }] } } });
    const renamed = await call(stack, "PATCH", "/api/v1/team-permission-definitions/docs:edit", { headers: admin(), body: { id: "docs:write", contained_permission_ids: [] } });
    expect(renamed.json).toEqual({ id: "docs:write", description: "Edit docs", contained_permission_ids: [] });
    const view = await call(stack, "GET", "/api/v1/internal/projects/current", { headers: admin() });
    expect(view.json.config.team_creator_default_permissions).toEqual([{ id: "docs:write" }, { id: "team_admin" }]);
    expect((await config()).rbac.permissions["docs:edit"]).toBeUndefined();

    // A definition written through a raw config override is a definition like any other.
    await call(stack, "PATCH", "/api/v1/internal/config/override", {
      headers: admin(),
      body: { config_override_string: JSON.stringify({ "rbac.permissions.reports:view": { scope: "project", description: "View reports" } }) },
    });
    const projectDefs = await call(stack, "GET", "/api/v1/project-permission-definitions", { headers: admin() });
    expect(projectDefs.json.items).toEqual([{ id: "reports:view", description: "View reports", contained_permission_ids: [] }]);

    expect((await call(stack, "DELETE", "/api/v1/team-permission-definitions/docs:write", { headers: admin() })).json).toEqual({ success: true });
    expect((await call(stack, "GET", "/api/v1/internal/projects/current", { headers: admin() })).json.config.team_creator_default_permissions).toEqual([{ id: "team_admin" }]);
    expectKnownError(await call(stack, "DELETE", "/api/v1/team-permission-definitions/docs:write", { headers: admin() }), 404, "PERMISSION_NOT_FOUND");
  });

  it("answers the id rules, duplicates, unknown contained ids, cycles and protected system permissions", async () => {
    const post = (body: unknown, kind = "team") => call(stack, "POST", `/api/v1/${kind}-permission-definitions`, { headers: admin(), body });
    const bad = await post({ id: "Docs" });
    expectKnownError(bad, 400, "SCHEMA_ERROR");
    expect(bad.json.error).toBe('Request validation failed on POST /api/v1/team-permission-definitions:\n  - Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed');
    expect((await post({ id: "$fly" })).json.error).toContain("  - Invalid system permission");
    expect((await post({ id: "read_members" })).json.error).toContain("  - System permissions must start with a dollar sign");
    expect((await post({ id: "x", contained_permission_ids: ["$nope"] })).json.error).toContain("  - Invalid system permission");
    const system = await post({ id: "$update_team" });
    expect(system.status).toBe(400);
    expect(system.text).toContain("system permission");
    expect((await call(stack, "PATCH", "/api/v1/team-permission-definitions/$read_members", { headers: admin(), body: { description: "mine" } })).status).toBe(400);
    expect((await call(stack, "DELETE", "/api/v1/team-permission-definitions/$read_members", { headers: admin() })).status).toBe(400);

    expect((await post({ id: "alpha" })).status).toBe(201);
    const dup = await post({ id: "alpha" });
    expectKnownError(dup, 400, "PERMISSION_ID_ALREADY_EXISTS");
    expect(dup.json.details).toEqual({ permission_id: "alpha" });
    expectKnownError(await post({ id: "alpha" }, "project"), 400, "PERMISSION_ID_ALREADY_EXISTS");
    const missing = await post({ id: "beta", contained_permission_ids: ["ghost"] });
    expectKnownError(missing, 400, "CONTAINED_PERMISSION_NOT_FOUND");
    expect(missing.json.details).toEqual({ permission_id: "ghost" });
    expectKnownError(await post({ id: "gamma", contained_permission_ids: ["$read_members"] }, "project"), 400, "CONTAINED_PERMISSION_NOT_FOUND");
    expect((await post({ id: "beta", contained_permission_ids: ["alpha"] })).status).toBe(201);
    const cycle = await call(stack, "PATCH", "/api/v1/team-permission-definitions/alpha", { headers: admin(), body: { contained_permission_ids: ["beta"] } });
    expect(cycle.status).toBe(400);
    expect(cycle.text).toBe('Permission "alpha" would contain itself (alpha → beta → alpha); contained permissions must not form a cycle.');
    expectKnownError(await call(stack, "PATCH", "/api/v1/project-permission-definitions/alpha", { headers: admin(), body: { description: "x" } }), 404, "PERMISSION_NOT_FOUND");
    expectKnownError(await call(stack, "GET", "/api/v1/team-permission-definitions", { headers: server() }), 401, "INSUFFICIENT_ACCESS_TYPE");
  });
});

describe("/api/v1/team-permissions", () => {
  it("grants (201, idempotent), lists recursively by default in the SDK's way, checks scopes and revokes", async () => {
    const defined = [
      await call(stack, "POST", "/api/v1/team-permission-definitions", { headers: admin(), body: { id: "wiki:read" } }),
      await call(stack, "POST", "/api/v1/team-permission-definitions", { headers: admin(), body: { id: "wiki:admin", contained_permission_ids: ["wiki:read", "$update_team"] } }),
      await call(stack, "POST", "/api/v1/project-permission-definitions", { headers: admin(), body: { id: "billing:view" } }),
    ];
    expect(defined.map((r) => r.status)).toEqual([201, 201, 201]);
    const owner = await signUp(stack);
    const member = await signUp(stack);
    const outsider = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Wiki" } })).json;
    await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${member.userId}`, { headers: server(), body: {} });

    const url = (perm: string, user = member.userId) => `/api/v1/team-permissions/${team.id}/${user}/${perm}`;
    const granted = await call(stack, "POST", url("wiki:admin"), { headers: server(), body: {} });
    expect(granted.status).toBe(201);
    expect(granted.json).toEqual({ id: "wiki:admin", user_id: member.userId, team_id: team.id });
    expect((await call(stack, "POST", url("wiki:admin"), { headers: server(), body: {} })).status).toBe(201);
    const scope = await call(stack, "POST", url("billing:view"), { headers: server(), body: {} });
    expectKnownError(scope, 404, "WRONG_PERMISSION_SCOPE");
    expect(scope.json.details).toEqual({ permission_id: "billing:view", expected_scope: "team", actual_scope: "project" });
    expectKnownError(await call(stack, "POST", url("nope"), { headers: server(), body: {} }), 404, "PERMISSION_NOT_FOUND");
    expectKnownError(await call(stack, "POST", url("wiki:read", outsider.userId), { headers: server(), body: {} }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    expectKnownError(await call(stack, "POST", url("Bad!"), { headers: server(), body: {} }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "POST", url("wiki:read"), { headers: member.headers, body: {} }), 401, "INSUFFICIENT_ACCESS_TYPE");

    const mine = async (recursive: string) => (await call(stack, "GET", `/api/v1/team-permissions?team_id=${team.id}&user_id=me&recursive=${recursive}`, { headers: member.headers })).json;
    expect((await mine("false")).items.map((p: { id: string }) => p.id)).toEqual(["team_member", "wiki:admin"]);
    expect((await mine("true")).items).toEqual(
      ["$invite_members", "$read_members", "$update_team", "team_member", "wiki:admin", "wiki:read"].map((id) => ({ id, user_id: member.userId, team_id: team.id })),
    );
    const other = await call(stack, "GET", `/api/v1/team-permissions?team_id=${team.id}&user_id=${owner.userId}&recursive=true`, { headers: member.headers });
    expect(other.status).toBe(403);
    // The $update_team contained in wiki:admin lets the member change the team.
    expect((await call(stack, "PATCH", `/api/v1/teams/${team.id}`, { headers: member.headers, body: { display_name: "Wiki 2" } })).status).toBe(200);

    expectKnownError(await call(stack, "DELETE", url("wiki:read"), { headers: server() }), 401, "TEAM_PERMISSION_NOT_FOUND");
    expect((await call(stack, "DELETE", url("wiki:admin"), { headers: server() })).json).toEqual({ success: true });
    expectKnownError(await call(stack, "PATCH", `/api/v1/teams/${team.id}`, { headers: member.headers, body: { display_name: "Wiki 3" } }), 401, "TEAM_PERMISSION_REQUIRED");
    const filtered = await call(stack, "GET", `/api/v1/team-permissions?team_id=${team.id}&permission_id=$read_members&recursive=true`, { headers: server() });
    expect(filtered.json.items.map((p: { user_id: string }) => p.user_id).sort()).toEqual([owner.userId, member.userId].sort());
  });
});

describe("/api/v1/project-permissions", () => {
  it("grants, lists, revokes, and gives new users the user default permissions", async () => {
    expect((await call(stack, "POST", "/api/v1/project-permission-definitions", { headers: admin(), body: { id: "app:use" } })).status).toBe(201);
    expect((await call(stack, "POST", "/api/v1/project-permission-definitions", { headers: admin(), body: { id: "app:admin", contained_permission_ids: ["app:use"] } })).status).toBe(201);
    const u = await signUp(stack);
    const granted = await call(stack, "POST", `/api/v1/project-permissions/${u.userId}/app:admin`, { headers: server(), body: {} });
    expect(granted.status).toBe(201);
    expect(granted.json).toEqual({ id: "app:admin", user_id: u.userId });
    const mine = await call(stack, "GET", "/api/v1/project-permissions?user_id=me&recursive=true", { headers: u.headers });
    expect(mine.json).toEqual({ items: [{ id: "app:admin", user_id: u.userId }, { id: "app:use", user_id: u.userId }], is_paginated: false });
    expect((await call(stack, "GET", "/api/v1/project-permissions?recursive=true", { headers: u.headers })).status).toBe(403);
    expectKnownError(await call(stack, "POST", `/api/v1/project-permissions/${u.userId}/never:defined`, { headers: server(), body: {} }), 404, "PERMISSION_NOT_FOUND");
    expect((await call(stack, "DELETE", `/api/v1/project-permissions/${u.userId}/app:admin`, { headers: server() })).json).toEqual({ success: true });
    expectKnownError(await call(stack, "DELETE", `/api/v1/project-permissions/${u.userId}/app:admin`, { headers: server() }), 404, "PERMISSION_NOT_FOUND");

    await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin(), body: { config: { user_default_permissions: [{ id: "app:use" }] } } });
    const fresh = await signUp(stack);
    const defaults = await eventually(
      () => call(stack, "GET", "/api/v1/project-permissions?user_id=me&recursive=false", { headers: fresh.headers }),
      (r) => r.json.items.length > 0,
    );
    expect(defaults.json.items).toEqual([{ id: "app:use", user_id: fresh.userId }]);
  });
});
