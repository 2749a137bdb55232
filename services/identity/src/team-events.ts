import { MembershipRemovedSchema, TeamDeletedSchema } from "@vestibule/proto/teams_permissions/v1/events";
import type { PoolClient } from "@vestibule/shared/db";
import { consumeEvents, defineEvent, type Subscription } from "@vestibule/shared/events";
import { isUuid } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import { IdentityEvents } from "./events.ts";
import { selectedTeamStore } from "./store/selected-team-store.ts";
import { userStore } from "./store/user-store.ts";
import { toUserMessage } from "./users.ts";

/** The teams-permissions events identity follows. */
export const TeamEvents = {
  teamDeleted: defineEvent("teams_permissions.team.deleted.v1", TeamDeletedSchema),
  membershipRemoved: defineEvent("teams_permissions.membership.removed.v1", MembershipRemovedSchema),
} as const;

/** Durable consumer names: unique per (service, purpose) and never renamed (a new name replays the stream). */
export const TEAM_CONSUMERS = {
  teamDeleted: "identity-teams-team-deleted",
  membershipRemoved: "identity-teams-membership-removed",
} as const;

/**
 * Identity owns `selected_team_id`; the teams-permissions service owns teams and memberships. A selection must name a
 * team the user belongs to, so when a team is deleted it is unselected for everyone who had it selected, and when a
 * membership ends it is unselected for that user; each changed user gets identity.user.updated.v1 (caches, the
 * auth service's claims). Durable, idempotent consumers: a redelivery finds nothing left to clear.
 * (Selecting a team on creation is an UpdateUser call made by the teams-permissions service.)
 */
export async function startTeamEventConsumers(ctx: ServiceContext): Promise<() => Promise<void>> {
  const { bus, pool, log, outbox } = ctx;

  async function unselect(tx: PoolClient, projectId: string, teamId: string, userId?: string): Promise<void> {
    if (!projectId || !isUuid(teamId) || (userId !== undefined && !isUuid(userId))) return;
    const changed = await selectedTeamStore.clear(tx, projectId, teamId, userId);
    for (const id of changed) {
      const row = await userStore.get(tx, projectId, id);
      if (row) await outbox.enqueue(tx, IdentityEvents.userUpdated, { user: toUserMessage(row) }, { projectId });
    }
    if (changed.length > 0) log.info({ project_id: projectId, team_id: teamId, users: changed.length }, "selected team cleared");
  }

  const subs: Subscription[] = [];
  try {
    subs.push(
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: TEAM_CONSUMERS.teamDeleted,
        event: TeamEvents.teamDeleted,
        handler: ({ envelope, payload }, tx) => unselect(tx, payload.projectId || envelope.projectId, payload.teamId),
      }),
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: TEAM_CONSUMERS.membershipRemoved,
        event: TeamEvents.membershipRemoved,
        handler: ({ envelope, payload }, tx) => unselect(tx, payload.projectId || envelope.projectId, payload.teamId, payload.userId),
      }),
    );
  } catch (err) {
    await Promise.all(subs.map((s) => s.stop().catch(() => {})));
    throw err;
  }
  return async () => {
    await Promise.all(subs.map((s) => s.stop()));
  };
}
