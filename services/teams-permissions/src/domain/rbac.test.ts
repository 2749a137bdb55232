import { describe, expect, it } from "vitest";
import {
  checkDefinitionWrite,
  definitionIdProblem,
  overrideForDefinitionDelete,
  overrideForDefinitionWrite,
  permissionIdProblem,
  projectSettingsFromRendered,
  ScopeGraph,
  type PermissionDefinition,
} from "./rbac.ts";

const def = (id: string, contained: string[] = [], scope: "team" | "project" = "team"): PermissionDefinition => ({
  id,
  containedPermissionIds: contained,
  scope,
  isSystem: id.startsWith("$"),
});

function settings(permissions: Record<string, unknown>, defaults: Record<string, unknown> = {}) {
  return projectSettingsFromRendered({
    id: "p",
    displayName: "P",
    version: 3,
    renderedConfigJson: JSON.stringify({
      teams: { createPersonalTeamOnSignUp: true, allowClientTeamCreation: false },
      domains: { allowLocalhost: false, trustedDomains: { a: { baseUrl: "https://app.example.com", handlerPath: "/handler" }, b: {} } },
      rbac: { permissions, defaultPermissions: { teamCreator: { admin: true }, teamMember: { member: true }, signUp: {}, ...defaults } },
    }),
  });
}

describe("ScopeGraph", () => {
  it("expands contained permissions transitively, each id once, ignoring unknown ids and cycles", () => {
    const g = new ScopeGraph("team", [def("a", ["b"]), def("b", ["c", "ghost"]), def("c", ["a"]), def("d")]);
    expect([...g.closureOf("a")].sort()).toEqual(["a", "b", "c"]);
    expect([...g.closureOf("d")]).toEqual(["d"]);
    expect(g.closureOf("ghost").size).toBe(0);
    expect(g.implies(["d", "b"], "a")).toBe(true);
    expect(g.implies(["d"], "a")).toBe(false);
    expect([...g.expand(["b", "ghost"], false)]).toEqual(["b"]);
    expect([...g.expand(["b", "ghost"], true)].sort()).toEqual(["a", "b", "c"]);
  });
});

describe("permission ids (spec section 5)", () => {
  it("gives the three messages", () => {
    expect(permissionIdProblem("read:secret_2")).toBeUndefined();
    expect(permissionIdProblem("$update_team")).toBeUndefined();
    expect(permissionIdProblem("Read")).toBe('Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed');
    expect(permissionIdProblem("a$b")).toBe('Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed');
    expect(permissionIdProblem("$fly")).toBe("Invalid system permission");
    expect(definitionIdProblem("update_team")).toBe("System permissions must start with a dollar sign");
    expect(definitionIdProblem("update_teams")).toBeUndefined();
  });
});

describe("project settings from the rendered config", () => {
  it("splits definitions by scope, adds the system team permissions and reads defaults and flags", () => {
    const s = settings({
      admin: { scope: "team", description: "Admins", containedPermissionIds: { member: true, $update_team: true } },
      member: { scope: "team", containedPermissionIds: { $read_members: true } },
      billing: { scope: "project", containedPermissionIds: {} },
      orphan: { description: "no scope" },
      $update_team: { scope: "team", description: "cannot redefine" },
    });
    expect(s.team.list().map((d) => d.id)).toEqual(["$delete_team", "$invite_members", "$manage_api_keys", "$read_members", "$remove_members", "$update_team", "admin", "member"]);
    expect(s.team.get("$update_team")?.description).toBe("Update the team information");
    expect(s.project.list().map((d) => d.id)).toEqual(["billing"]);
    expect(s.allDefinitionIds.has("orphan")).toBe(true);
    expect([...s.team.closureOf("admin")].sort()).toEqual(["$read_members", "$update_team", "admin", "member"]);
    expect(s.defaults.teamCreator).toEqual(["admin"]);
    expect(s.createPersonalTeamOnSignUp).toBe(true);
    expect(s.allowClientTeamCreation).toBe(false);
    expect(s.redirectTrust).toEqual({ allowLocalhost: false, trustedDomains: ["https://app.example.com"] });
    expect(s.version).toBe(3);
  });

  it("falls back to fresh-project values for a malformed config", () => {
    const s = projectSettingsFromRendered({ id: "p", displayName: "P", version: 1, renderedConfigJson: "not json" });
    expect(s.team.size).toBe(6);
    expect(s.project.size).toBe(0);
    expect(s.redirectTrust.allowLocalhost).toBe(true);
  });
});

describe("definition writes", () => {
  const s = settings(
    {
      admin: { scope: "team", containedPermissionIds: { member: true } },
      member: { scope: "team", containedPermissionIds: { $read_members: true } },
      viewer: { scope: "project", containedPermissionIds: {} },
      editor: { scope: "project", containedPermissionIds: { viewer: true } },
    },
    { signUp: { viewer: true } },
  );

  it("refuses bad ids, system ids, taken ids, unknown or wrong-scope contained ids and cycles", () => {
    expect(checkDefinitionWrite(s, "team", { id: "Bad", containedPermissionIds: [] })).toMatchObject({ kind: "id" });
    expect(checkDefinitionWrite(s, "team", { id: "$update_team", containedPermissionIds: [] })).toEqual({ kind: "system", id: "$update_team" });
    expect(checkDefinitionWrite(s, "team", { id: "viewer", containedPermissionIds: [] })).toEqual({ kind: "exists", id: "viewer" });
    expect(checkDefinitionWrite(s, "team", { id: "x", containedPermissionIds: ["nope"] })).toEqual({ kind: "contained-not-found", id: "nope" });
    expect(checkDefinitionWrite(s, "project", { id: "x", containedPermissionIds: ["$read_members"] })).toEqual({ kind: "contained-not-found", id: "$read_members" });
    expect(checkDefinitionWrite(s, "team", { id: "x", containedPermissionIds: ["admin", "$delete_team"] })).toBeUndefined();
    expect(checkDefinitionWrite(s, "team", { oldId: "member", id: "member", containedPermissionIds: ["admin"] })).toEqual({
      kind: "cycle",
      path: ["member", "admin", "member"],
    });
    expect(checkDefinitionWrite(s, "team", { oldId: "member", id: "member", containedPermissionIds: ["member"] })).toMatchObject({ kind: "cycle" });
    expect(checkDefinitionWrite(s, "team", { oldId: "viewer", id: "viewer", containedPermissionIds: [] })).toEqual({ kind: "not-found", id: "viewer" });
    expect(checkDefinitionWrite(s, "team", { oldId: "$read_members", id: "$read_members", containedPermissionIds: [] })).toMatchObject({ kind: "system" });
    // A rename where the definition then refers to its old name is a cycle, not an unknown id.
    expect(checkDefinitionWrite(s, "team", { oldId: "member", id: "crew", containedPermissionIds: ["member"] })).toMatchObject({ kind: "cycle" });
  });

  it("writes a definition as a whole and renames every reference", () => {
    expect(overrideForDefinitionWrite(s, "team", { id: "x", description: "X", containedPermissionIds: ["admin"] })).toEqual({
      "rbac.permissions.x": null,
      "rbac.permissions.x.description": "X",
      "rbac.permissions.x.scope": "team",
      "rbac.permissions.x.containedPermissionIds": { admin: true },
    });
    expect(overrideForDefinitionWrite(s, "project", { oldId: "viewer", id: "reader", containedPermissionIds: [] })).toEqual({
      "rbac.permissions.viewer": null,
      "rbac.permissions.reader": null,
      "rbac.permissions.reader.scope": "project",
      "rbac.permissions.reader.containedPermissionIds": {},
      "rbac.permissions.editor.containedPermissionIds.viewer": null,
      "rbac.permissions.editor.containedPermissionIds.reader": true,
      "rbac.defaultPermissions.signUp.viewer": null,
      "rbac.defaultPermissions.signUp.reader": true,
    });
  });

  it("deletes a definition with its references", () => {
    expect(overrideForDefinitionDelete(s, "member")).toEqual({
      "rbac.permissions.member": null,
      "rbac.permissions.admin.containedPermissionIds.member": null,
      "rbac.defaultPermissions.teamMember.member": null,
    });
  });
});
