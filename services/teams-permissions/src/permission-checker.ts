import type { Pool } from "@vestibule/shared/db";
import { isUuid } from "@vestibule/shared/ids";
import type { ProjectSettingsCache } from "./project-settings.ts";
import { grantStore } from "./store/grant-store.ts";
import { memberStore } from "./store/member-store.ts";

/**
 * The hot path "may this user do X in team T / in the project": the project's settings (definitions with their
 * closures, computed once per configuration version) come from memory, the user's direct grants from one indexed read
 * (a prepared statement on the primary keys of team_members and team_permission_grants), and the answer is a set
 * lookup per direct grant. No recursive query, whatever the depth of the definition graph or the size of the team.
 */
export class PermissionChecker {
  constructor(
    private readonly pool: Pool,
    private readonly settings: ProjectSettingsCache,
  ) {}

  async checkTeam(projectId: string, teamId: string, userId: string, permissionId: string, knownConfigVersion = 0): Promise<{ granted: boolean; isMember: boolean }> {
    const s = await this.settings.get(projectId, knownConfigVersion);
    if (!isUuid(teamId) || !isUuid(userId)) return { granted: false, isMember: false };
    const direct = await memberStore.directTeamPermissions(this.pool, projectId, teamId, userId);
    if (direct === null) return { granted: false, isMember: false };
    return { granted: s.team.implies(direct, permissionId), isMember: true };
  }

  async checkProject(projectId: string, userId: string, permissionId: string, knownConfigVersion = 0): Promise<boolean> {
    if (!isUuid(userId)) return false;
    const s = await this.settings.get(projectId, knownConfigVersion);
    return s.project.implies(await grantStore.directProjectPermissions(this.pool, projectId, userId), permissionId);
  }
}
