import type { User } from "@vestibule/proto/identity/v1/user";
import type { TeamCache } from "../auth/team-cache.ts";
import type { SelectedTeam } from "../views/user.ts";

/** The selected team of a user for its view (see SelectedTeam): from the team cache, no RPC when it is warm. */
export async function selectedTeamOf(teams: TeamCache, user: User): Promise<SelectedTeam> {
  if (!user.selectedTeamId) return undefined;
  return teams.get(user.projectId, user.selectedTeamId);
}

/** The selected teams of many users (one BatchGetTeams for the cache misses), by user id. */
export async function selectedTeamsOf(teams: TeamCache, projectId: string, users: readonly User[]): Promise<Map<string, SelectedTeam>> {
  const ids = users.map((u) => u.selectedTeamId).filter((id): id is string => !!id);
  const found = ids.length > 0 ? await teams.getMany(projectId, ids) : new Map();
  return new Map(users.map((u) => [u.id, u.selectedTeamId ? (found.get(u.selectedTeamId) ?? null) : undefined]));
}
