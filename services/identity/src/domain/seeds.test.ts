import { describe, expect, it } from "vitest";
import { untouchedSeed } from "./seeds.ts";

const seed = {
  "rbac.permissions.team_member": null,
  "rbac.permissions.team_member.scope": "team",
  "rbac.permissions.team_admin": null,
  "rbac.permissions.team_admin.scope": "team",
};

describe("untouchedSeed", () => {
  it("keeps every definition the override never mentions", () => {
    expect(untouchedSeed({}, seed)).toEqual(seed);
    expect(untouchedSeed({ "auth.allowSignUp": false, rbac: { permissions: {} }, "rbac.permissions.other.scope": "team" }, seed)).toEqual(seed);
  });

  it("leaves out a definition the override defines, changes or deletes, in flat or nested form", () => {
    const onlyAdmin = { "rbac.permissions.team_admin": null, "rbac.permissions.team_admin.scope": "team" };
    expect(untouchedSeed({ "rbac.permissions.team_member": null }, seed)).toEqual(onlyAdmin);
    expect(untouchedSeed({ rbac: { permissions: { team_member: { description: "mine" } } } }, seed)).toEqual(onlyAdmin);
    expect(untouchedSeed({ "rbac.permissions.team_member.containedPermissionIds.$read_members": true }, seed)).toEqual(onlyAdmin);
  });

  it("leaves out everything when the override replaces the whole definition set", () => {
    expect(untouchedSeed({ "rbac.permissions": null }, seed)).toEqual({});
    expect(untouchedSeed({ rbac: null }, seed)).toEqual({});
  });
});
