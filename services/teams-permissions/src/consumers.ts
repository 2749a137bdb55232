import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import { consumeEvents, type Subscription } from "@vestibule/shared/events";
import { isKnownError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { personalTeamId, personalTeamName } from "./domain/teams.ts";
import { CONSUMERS, ConsumedEvents, TeamsEvents } from "./events.ts";
import { isPeerError } from "./peers.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { createTeam } from "./team-ops.ts";
import { deletedUserStore } from "./store/deleted-user-store.ts";
import { grantStore } from "./store/grant-store.ts";
import { memberStore } from "./store/member-store.ts";
import { teamStore } from "./store/team-store.ts";

/**
 * The identity events this service follows, each a durable, idempotent consumer (consumeEvents records the event id
 * in the handler's transaction, so a redelivered event changes nothing, however often it comes):
 *  - identity.user.created.v1 → the project's user_default_permissions (rbac.defaultPermissions.signUp), and with
 *    create_team_on_sign_up a personal team ("<name or e-mail>'s Team") with the user as creator, selected for them
 *    unless they selected a team in the meantime;
 *  - identity.user.deleted.v1 → the user's memberships (their grants with them) and project grants go, and a tombstone
 *    keeps a late or concurrent request from adding them back;
 *  - identity.project.deleted.v1 → every team, membership, grant and invitation of the project goes.
 * A handler that fails (e.g. identity unreachable) rolls back and the event is delivered again later.
 */
export async function startConsumers(rt: TeamsRuntime): Promise<() => Promise<void>> {
  const { ctx, settings } = rt;
  const { bus, pool, log, outbox } = ctx;
  const subs: Subscription[] = [];
  try {
    subs.push(
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: CONSUMERS.userCreated,
        event: ConsumedEvents.userCreated,
        handler: async ({ envelope, payload }, tx) => {
          const user = payload.user;
          const projectId = user?.projectId || envelope.projectId;
          if (!user || !projectId || !isUuid(user.id)) {
            log.warn({ event_id: envelope.id }, "identity.user.created.v1 without a usable user; ignored");
            return;
          }
          if (await deletedUserStore.isDeleted(tx, projectId, user.id)) return;
          let s;
          try {
            s = await settings.get(projectId);
          } catch (err) {
            if (isPeerError(err, "PROJECT_NOT_FOUND")) return; // the project is gone
            throw err;
          }
          for (const permissionId of s.defaults.signUp) {
            if (!s.project.has(permissionId)) {
              log.warn({ project_id: projectId, permission_id: permissionId }, "user default permission is not a project permission definition; skipped");
              continue;
            }
            if (await grantStore.grantProject(tx, { projectId, userId: user.id, permissionId })) {
              await outbox.enqueue(tx, TeamsEvents.permissionGranted, { projectId, scope: PermissionScope.PROJECT, teamId: "", userId: user.id, permissionId }, { projectId });
            }
          }
          if (!s.createPersonalTeamOnSignUp) return;
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
            log.info({ event_id: envelope.id, project_id: projectId, user_id: user.id, team_id: team.id }, "personal team created");
          } catch (err) {
            // The user was deleted meanwhile (identity cannot select the team for them): no personal team. A personal
            // team that already exists (same derived id): nothing to do.
            const gone = isPeerError(err, "USER_NOT_FOUND") || (isKnownError(err) && err.code === "USER_NOT_FOUND");
            if (!gone && !(isKnownError(err) && err.code === "TEAM_ALREADY_EXISTS")) throw err;
            await tx.query("ROLLBACK TO SAVEPOINT personal_team");
          }
        },
      }),
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: CONSUMERS.userDeleted,
        event: ConsumedEvents.userDeleted,
        handler: async ({ envelope, payload }, tx) => {
          const projectId = payload.projectId || envelope.projectId;
          const userId = payload.userId;
          if (!projectId || !isUuid(userId)) {
            log.warn({ event_id: envelope.id }, "identity.user.deleted.v1 without a usable project or user id; ignored");
            return;
          }
          await deletedUserStore.insert(tx, projectId, userId);
          const teams = await memberStore.deleteForUser(tx, projectId, userId);
          for (const teamId of teams) await outbox.enqueue(tx, TeamsEvents.membershipRemoved, { projectId, teamId, userId }, { projectId });
          const grants = await grantStore.deleteProjectGrantsOfUser(tx, projectId, userId);
          for (const permissionId of grants) {
            await outbox.enqueue(tx, TeamsEvents.permissionRevoked, { projectId, scope: PermissionScope.PROJECT, teamId: "", userId, permissionId }, { projectId });
          }
          log.info({ event_id: envelope.id, project_id: projectId, user_id: userId, memberships: teams.length }, "deleted user's memberships and grants removed");
        },
      }),
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: CONSUMERS.projectDeleted,
        event: ConsumedEvents.projectDeleted,
        handler: async ({ envelope, payload }, tx) => {
          const projectId = payload.projectId || envelope.projectId;
          if (!projectId) return;
          const teams = await teamStore.deleteProject(tx, projectId);
          settings.invalidate(projectId);
          log.info({ event_id: envelope.id, project_id: projectId, teams }, "deleted project's teams and grants removed");
        },
      }),
    );
    const projectEvents = await settings.subscribe(bus);
    subs.push(projectEvents);
  } catch (err) {
    await Promise.all(subs.map((s) => s.stop().catch(() => {})));
    throw err;
  }
  return async () => {
    await Promise.all(subs.map((s) => s.stop()));
  };
}
