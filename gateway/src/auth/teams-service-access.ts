import type { ServiceClients } from "../clients.ts";
import type { TeamAccess } from "./team-access.ts";
import type { TeamCache } from "./team-cache.ts";

/**
 * The TeamAccess of the teams-permissions service (team API keys ask it): a team exists when the team cache finds it
 * (one BatchGetTeams on a miss, dropped by teams_permissions.team.* events); a permission is held when the service's
 * CheckTeamPermission says so (the precomputed closure plus one indexed read there).
 */
export function teamsServiceAccess(clients: Pick<ServiceClients, "permissions">, teams: TeamCache): TeamAccess {
  return {
    async teamExists(projectId, teamId) {
      return (await teams.get(projectId, teamId)) !== null;
    },
    async hasTeamPermission(projectId, teamId, userId, permissionId) {
      return (await clients.permissions.checkTeamPermission({ projectId, teamId, userId, permissionId })).granted;
    },
  };
}
