import { knownError, statusError } from "@vestibule/shared/errors";
import type { RequestAuth } from "./request-auth.ts";
import type { TeamAccess } from "./team-access.ts";

/** The team permission that lets a client act on a team's billing (Stack's rule: team admins). */
export const MANAGE_TEAM_BILLING = "team_admin";

/**
 * Which payments customers a caller may act on: server and admin callers any; a client only its signed-in user
 * (USER_AUTHENTICATION_REQUIRED without one; another user: a plain 403 "Clients can only manage their own <what>.")
 * and teams in which that user holds `team_admin`, contained permissions included (else TEAM_PERMISSION_REQUIRED,
 * which does not tell a missing team from a team the user may not manage). Custom customers: never for clients.
 */
export async function requireCustomerAccess(auth: RequestAuth, teams: TeamAccess, customerType: string, customerId: string, what: string): Promise<void> {
  if (auth.type !== "client") return;
  const user = auth.user;
  if (!user) throw knownError("USER_AUTHENTICATION_REQUIRED");
  const forbidden = () => statusError(403, `Clients can only manage their own ${what}.`);
  if (customerType === "user") {
    if (customerId !== user.id) throw forbidden();
    return;
  }
  if (customerType === "team") {
    if (!(await teams.hasTeamPermission(auth.projectId, customerId, user.id, MANAGE_TEAM_BILLING))) {
      throw knownError("TEAM_PERMISSION_REQUIRED", { team_id: customerId, user_id: user.id, permission_id: MANAGE_TEAM_BILLING });
    }
    return;
  }
  throw forbidden();
}
