/**
 * Setting up a user who was just created (identity.user.created.v1, or identity's SetUpNewUser call while the sign-up
 * is answered): the project's user_default_permissions (rbac.defaultPermissions.signUp) and, with
 * create_team_on_sign_up, a personal team ("<name or e-mail>'s Team") with the user as creator, selected for them
 * unless they selected a team in the meantime. Each user is set up once (set_up_users), so whichever of the two paths
 * comes second changes nothing, and neither recreates a personal team the user deleted since.
 */
import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import type { PoolClient } from "@vestibule/shared/db";
import { isKnownError } from "@vestibule/shared/errors";
import { personalTeamId, personalTeamName } from "./domain/teams.ts";
import { TeamsEvents } from "./events.ts";
import { isPeerError } from "./peers.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { createTeam } from "./team-ops.ts";
import { deletedUserStore } from "./store/deleted-user-store.ts";
import { grantStore } from "./store/grant-store.ts";
import { setUpUserStore } from "./store/set-up-user-store.ts";

export interface NewUser {
  readonly projectId: string;
  readonly id: string;
  readonly displayName?: string;
  readonly primaryEmail?: string;
}

export interface SetUpOutcome {
  readonly alreadySetUp: boolean;
  /** The personal team created now, if any. */
  readonly personalTeamId?: string;
}

/** Sets the user up in the caller's transaction (events in the outbox). A deleted user or project: nothing. */
export async function setUpNewUser(rt: TeamsRuntime, tx: PoolClient, user: NewUser): Promise<SetUpOutcome> {
  const { settings, ctx } = rt;
  const { log, outbox } = ctx;
  const { projectId } = user;
  if (await deletedUserStore.isDeleted(tx, projectId, user.id)) return { alreadySetUp: false };
  let s;
  try {
    s = await settings.get(projectId);
  } catch (err) {
    if (isPeerError(err, "PROJECT_NOT_FOUND")) return { alreadySetUp: false }; // the project is gone
    throw err;
  }
  if (!(await setUpUserStore.claim(tx, projectId, user.id))) return { alreadySetUp: true };
  for (const permissionId of s.defaults.signUp) {
    if (!s.project.has(permissionId)) {
      log.warn({ project_id: projectId, permission_id: permissionId }, "user default permission is not a project permission definition; skipped");
      continue;
    }
    if (await grantStore.grantProject(tx, { projectId, userId: user.id, permissionId })) {
      await outbox.enqueue(tx, TeamsEvents.permissionGranted, { projectId, scope: PermissionScope.PROJECT, teamId: "", userId: user.id, permissionId }, { projectId });
    }
  }
  if (!s.createPersonalTeamOnSignUp) return { alreadySetUp: false };
  await tx.query("SAVEPOINT personal_team");
  try {
    const team = await createTeam(rt, tx, s, {
      id: personalTeamId(projectId, user.id),
      projectId,
      creatorUserId: user.id,
      select: "if-none",
      display_name: personalTeamName({ displayName: user.displayName, primaryEmail: user.primaryEmail }),
      profile_image_url: null,
      client_metadata: null,
      client_read_only_metadata: null,
      server_metadata: null,
    });
    await tx.query("RELEASE SAVEPOINT personal_team");
    log.info({ project_id: projectId, user_id: user.id, team_id: team.id }, "personal team created");
    return { alreadySetUp: false, personalTeamId: team.id };
  } catch (err) {
    // The user was deleted meanwhile (identity cannot select the team for them): no personal team. A personal team
    // that already exists (same derived id): nothing to do.
    const gone = isPeerError(err, "USER_NOT_FOUND") || (isKnownError(err) && err.code === "USER_NOT_FOUND");
    if (!gone && !(isKnownError(err) && err.code === "TEAM_ALREADY_EXISTS")) throw err;
    await tx.query("ROLLBACK TO SAVEPOINT personal_team");
    return { alreadySetUp: false };
  }
}
