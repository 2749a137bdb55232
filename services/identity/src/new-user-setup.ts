import type { Client } from "@connectrpc/connect";
import type { User } from "@vestibule/proto/identity/v1/user";
import { TeamService } from "@vestibule/proto/teams_permissions/v1/team_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";

/** How long a sign-up waits for teams-permissions before answering without the personal team (the event still comes). */
const SET_UP_TIMEOUT_MS = 5_000;

/**
 * Sets up a user identity has just created (committed) in teams-permissions: default permissions and the personal
 * team, selected for them (issue 13: `GET /users/me` right after a sign-up shows the team, and a dashboard user can
 * create a project at once). Every sign-up path (password, OTP, anonymous, OAuth, server `POST /users`) creates its
 * user through CreateUser, so this one call covers them all.
 *
 * Returns whether the user may have changed meanwhile (the caller then re-reads it): a personal team was created
 * and selected now, or the identity.user.created.v1 consumer had already set the user up (the event leaves the moment
 * the user commits and can win the race with this call; teams-permissions answers only after that set-up committed,
 * so the re-read sees its selection). A failure (teams-permissions down or slow) is logged and the sign-up goes on: the identity.user.created.v1 consumer
 * does the same work once it runs, and whichever path comes second changes nothing.
 */
export function createNewUserSetup(ctx: Pick<ServiceContext, "env" | "config" | "log">) {
  let teams: Client<typeof TeamService> | undefined;
  return async function setUpNewUser(user: User): Promise<boolean> {
    teams ??= createServiceClient(TeamService, { baseUrl: peerUrl("teams_permissions", ctx.env), caller: "identity", secret: ctx.config.serviceSecret });
    try {
      const res = await teams.setUpNewUser(
        { projectId: user.projectId, userId: user.id, displayName: user.displayName, primaryEmail: user.primaryEmail },
        { timeoutMs: SET_UP_TIMEOUT_MS },
      );
      return res.personalTeamId !== "" || res.alreadySetUp;
    } catch (err) {
      ctx.log.warn({ project_id: user.projectId, user_id: user.id, err: (err as Error)?.message }, "setting up the new user in teams-permissions failed; the user.created consumer will");
      return false;
    }
  };
}
