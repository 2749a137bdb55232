import { Type } from "typebox";
import { NotFoundError } from "@vestibule/proto/identity/v1/project_service";
import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import { knownError, statusError } from "@vestibule/shared/errors";
import { Obj } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";
import { requireInternalUser } from "./internal-projects.ts";

const SERVER_CALLER = { accessType: AccessType.SERVER } as const;

/**
 * Moves a project to another owner team (contract endpoints.md §6): the caller, a user of `internal`, needs
 * `team_admin` (directly or through contained permissions) in the current owner team and membership of the new one.
 * PROJECT_NOT_FOUND; a project without an owner team cannot be transferred (400 text).
 */
export const transferProjectRoute = defineRoute({
  method: "POST",
  path: "/internal/projects/transfer",
  summary: "Move a project to another of the caller's teams",
  tags: ["Projects (admin)"],
  access: ["client", "server", "admin"],
  project: "internal",
  schemas: { body: Obj({ project_id: Type.String(), new_team_id: Type.String() }) },
  async handler({ auth, body, clients, projects }) {
    const userId = requireInternalUser(auth);
    const { project } = await clients.projects.getProject({ projectId: body.project_id, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
    const ownerTeamId = project!.ownerTeamId;
    if (!ownerTeamId) throw statusError(400, "Project must have an owner team to be transferred");
    const check = await clients.permissions.checkTeamPermission({ projectId: "internal", teamId: ownerTeamId, userId, permissionId: "team_admin" });
    if (!check.isMember) await clients.teamMembers.getTeamMember({ projectId: "internal", caller: SERVER_CALLER, teamId: ownerTeamId, userId });
    if (!check.granted) throw knownError("TEAM_PERMISSION_REQUIRED", { team_id: ownerTeamId, user_id: userId, permission_id: "team_admin" });
    await clients.teamMembers.getTeamMember({ projectId: "internal", caller: SERVER_CALLER, teamId: body.new_team_id, userId });
    const updated = await clients.projects.updateProject({ projectId: body.project_id, ownerTeamId: body.new_team_id });
    projects.put(updated.project!);
    return { json: { success: "true" } };
  },
});
