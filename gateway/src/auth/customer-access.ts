import { knownError, statusError } from "@vestibule/shared/errors";
import type { RequestAuth } from "./request-auth.ts";
import type { TeamAccess } from "./team-access.ts";

/** The team permission that lets a client act on a team's billing (Stack's rule: team admins). */
export const MANAGE_TEAM_BILLING = "team_admin";

/**
 * Which payments customers a caller may act on: server and admin callers any; a client only its signed-in user
 * (USER_AUTHENTICATION_REQUIRED without one; another user: a plain 403 with the route's `forbidden` text, e.g.
 * "Clients can only manage their own billing.")
 * and teams in which that user holds `team_admin`, contained permissions included (else TEAM_PERMISSION_REQUIRED,
 * which does not tell a missing team from a team the user may not manage). Custom customers: never for clients.
 */
export async function requireCustomerAccess(auth: RequestAuth, teams: TeamAccess, customerType: string, customerId: string, forbidden: string): Promise<void> {
  if (auth.type !== "client") return;
  const user = auth.user;
  if (!user) throw knownError("USER_AUTHENTICATION_REQUIRED");
  if (customerType === "user") {
    if (customerId !== user.id) throw statusError(403, forbidden);
    return;
  }
  if (customerType === "team") {
    if (!(await teams.hasTeamPermission(auth.projectId, customerId, user.id, MANAGE_TEAM_BILLING))) {
      throw knownError("TEAM_PERMISSION_REQUIRED", { team_id: customerId, user_id: user.id, permission_id: MANAGE_TEAM_BILLING });
    }
    return;
  }
  throw statusError(403, forbidden);
}
