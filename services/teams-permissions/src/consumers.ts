import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import { consumeDeletedUsers, consumeEvents, type Subscription } from "@vestibule/shared/events";
import { isUuid } from "@vestibule/shared/ids";
import { CONSUMERS, ConsumedEvents, TeamsEvents } from "./events.ts";
import { setUpNewUser } from "./new-users.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { deletedUserStore } from "./store/deleted-user-store.ts";
import { grantStore } from "./store/grant-store.ts";
import { memberStore } from "./store/member-store.ts";
import { setUpUserStore } from "./store/set-up-user-store.ts";
import { teamStore } from "./store/team-store.ts";

/**
 * The identity events this service follows, each a durable, idempotent consumer (consumeEvents records the event id
 * in the handler's transaction, so a redelivered event changes nothing, however often it comes):
 *  - identity.user.created.v1 → setUpNewUser (new-users.ts): the default permissions and the personal team, unless
 *    identity's SetUpNewUser call did it while the sign-up was answered;
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
          const outcome = await setUpNewUser(rt, tx, {
            projectId,
            id: user.id,
            displayName: user.displayName,
            primaryEmail: user.primaryEmail,
          });
          if (outcome.alreadySetUp) log.debug({ event_id: envelope.id, user_id: user.id }, "user already set up at sign-up");
        },
      }),
      await consumeDeletedUsers({
        bus,
        pool,
        log,
        consumer: CONSUMERS.userDeleted,
        handler: async ({ projectId, userId, eventId }, tx) => {
          await deletedUserStore.insert(tx, projectId, userId);
          await setUpUserStore.deleteUser(tx, projectId, userId);
          const teams = await memberStore.deleteForUser(tx, projectId, userId);
          for (const teamId of teams) await outbox.enqueue(tx, TeamsEvents.membershipRemoved, { projectId, teamId, userId }, { projectId });
          const grants = await grantStore.deleteProjectGrantsOfUser(tx, projectId, userId);
          for (const permissionId of grants) {
            await outbox.enqueue(tx, TeamsEvents.permissionRevoked, { projectId, scope: PermissionScope.PROJECT, teamId: "", userId, permissionId }, { projectId });
          }
          log.info({ event_id: eventId, project_id: projectId, user_id: userId, memberships: teams.length }, "deleted user's memberships and grants removed");
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
          await setUpUserStore.deleteProject(tx, projectId);
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
