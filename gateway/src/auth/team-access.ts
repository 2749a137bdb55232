/**
 * What the gateway needs to know about teams to guard team API keys: whether a team exists in a project, and whether
 * a user holds a permission in it (`$manage_api_keys`, contained permissions included). Teams and permissions live
 * in the teams-permissions service; pass an implementation backed by it as `GatewayDeps.teams`.
 *
 * `noTeamAccess` is the stand-in while no teams service is wired: it knows no team, so every team-key request that
 * depends on a team is refused the way the contract refuses an unknown team: a server or admin caller gets
 * TEAM_NOT_FOUND, a client gets API_KEY_NOT_FOUND (the contract's answer for a missing `$manage_api_keys`, which does
 * not reveal whether the team exists). Team keys that already exist are still checked and managed by server callers.
 */
export interface TeamAccess {
  teamExists(projectId: string, teamId: string): Promise<boolean>;
  hasTeamPermission(projectId: string, teamId: string, userId: string, permissionId: string): Promise<boolean>;
}

export const noTeamAccess: TeamAccess = {
  async teamExists() {
    return false;
  },
  async hasTeamPermission() {
    return false;
  },
};
