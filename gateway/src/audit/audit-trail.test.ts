import { describe, expect, it } from "vitest";
import { AuditTrail, auditTarget } from "./audit-trail.ts";
import type { RequestAuth } from "../auth/request-auth.ts";

const json = (v: unknown) => ({ json: v });

describe("auditTarget", () => {
  it("derives resource, id and action from the route", () => {
    expect(auditTarget({ method: "PATCH", path: "/users/:user_id" }, { user_id: "u1" }, json({}), "p")).toEqual({ action: "user.update", resourceType: "user", resourceId: "u1" });
    expect(auditTarget({ method: "POST", path: "/users" }, {}, json({ id: "u2" }), "p")).toEqual({ action: "user.create", resourceType: "user", resourceId: "u2" });
    expect(auditTarget({ method: "POST", path: "/team-memberships/:team_id/:user_id" }, { team_id: "t", user_id: "u" }, json({}), "p")).toEqual({
      action: "team_membership.create",
      resourceType: "team_membership",
      resourceId: "t/u",
    });
    expect(auditTarget({ method: "PATCH", path: "/internal/api-keys/:api_key_id" }, { api_key_id: "k" }, json({}), "p").action).toBe("api_key.update");
    expect(auditTarget({ method: "PATCH", path: "/internal/projects/current" }, {}, json({ id: "p" }), "p")).toMatchObject({ action: "project.update", resourceId: "p" });
    expect(auditTarget({ method: "POST", path: "/data-vault/stores/:store_id/set" }, { store_id: "s" }, json({}), "p")).toMatchObject({ action: "data_vault.set", resourceId: "s" });
    expect(auditTarget({ method: "POST", path: "/team-invitations/send-code" }, {}, json({ id: "i" }), "p").action).toBe("team_invitation.send_code");
    expect(auditTarget({ method: "POST", path: "/auth/sessions" }, {}, json({}), "p").action).toBe("session.create");
    expect(auditTarget({ method: "POST", path: "/internal/projects/transfer" }, {}, json({}), "p").action).toBe("project.transfer");
    expect(auditTarget({ method: "PATCH", path: "/internal/config/override" }, {}, json({}), "p")).toMatchObject({ resourceType: "config", resourceId: "p" });
  });
});

describe("AuditTrail.audits", () => {
  const auth = (type: "client" | "server" | "admin") => ({ type, projectId: "p" }) as RequestAuth;
  it("records successful admin and server writes only", () => {
    expect(AuditTrail.audits({ method: "POST", path: "/users" }, auth("server"), 201)).toBe(true);
    expect(AuditTrail.audits({ method: "POST", path: "/users" }, auth("admin"), 200)).toBe(true);
    expect(AuditTrail.audits({ method: "PATCH", path: "/users/me" }, auth("client"), 200)).toBe(false);
    expect(AuditTrail.audits({ method: "GET", path: "/users" }, auth("server"), 200)).toBe(false);
    expect(AuditTrail.audits({ method: "POST", path: "/users" }, auth("server"), 400)).toBe(false);
    expect(AuditTrail.audits({ method: "POST", path: "/analytics/events/batch" }, auth("server"), 200)).toBe(false);
    expect(AuditTrail.audits({ method: "POST", path: "/auth/password/sign-in" }, auth("server"), 200)).toBe(false);
    expect(AuditTrail.audits({ method: "POST", path: "/auth/sessions" }, auth("server"), 200)).toBe(true);
    expect(AuditTrail.audits({ method: "POST", path: "/user-api-keys/check" }, auth("server"), 200)).toBe(false);
    expect(AuditTrail.audits({ method: "POST", path: "/data-vault/stores/:store_id/get" }, auth("server"), 200)).toBe(false);
  });
});
