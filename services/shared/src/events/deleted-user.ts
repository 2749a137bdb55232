import { UserDeletedSchema } from "@vestibule/proto/identity/v1/events";
import type { Pool, PoolClient } from "../db/index.ts";
import { isUuid } from "../ids/index.ts";
import type { Logger } from "../log/index.ts";
import type { EventBus, Subscription } from "./bus.ts";
import { consumeEvents, defineEvent, type ReceivedEvent } from "./outbox.ts";

/** identity.user.deleted.v1, which every service that keeps per-user data follows. */
const USER_DELETED = defineEvent("identity.user.deleted.v1", UserDeletedSchema);

/** The user an identity.user.deleted.v1 event names, with the event's id (for logs). */
export interface DeletedUser {
  readonly projectId: string;
  readonly userId: string;
  readonly eventId: string;
}

/**
 * The project and user an identity.user.deleted.v1 event names (the payload's project, else the envelope's), or null
 * when either is unusable: then the event is logged at warn and ignored (a redelivery would not fix it).
 */
export function deletedUserOf({ envelope, payload }: ReceivedEvent<typeof UserDeletedSchema>, log: Logger): DeletedUser | null {
  const projectId = payload.projectId || envelope.projectId;
  const userId = payload.userId;
  if (!projectId || !isUuid(userId)) {
    log.warn({ event_id: envelope.id }, "identity.user.deleted.v1 without a usable project or user id; ignored");
    return null;
  }
  return { projectId, userId, eventId: envelope.id };
}

/**
 * A durable, idempotent consumer of identity.user.deleted.v1 (consumeEvents) whose handler gets the checked user: the
 * one guard every service that forgets a deleted user's data starts with (auth, teams-permissions, email).
 */
export function consumeDeletedUsers(opts: {
  bus: EventBus;
  pool: Pool;
  log: Logger;
  consumer: string;
  handler: (deleted: DeletedUser, tx: PoolClient) => Promise<void>;
}): Promise<Subscription> {
  const { handler, ...rest } = opts;
  return consumeEvents({
    ...rest,
    event: USER_DELETED,
    handler: async (event, tx) => {
      const deleted = deletedUserOf(event, opts.log);
      if (deleted) await handler(deleted, tx);
    },
  });
}
