import type { UserDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { isUuid } from "../ids/index.ts";
import type { Logger } from "../log/index.ts";
import type { ReceivedEvent } from "./outbox.ts";

/**
 * The project and user an identity.user.deleted.v1 event names (the payload's project, else the envelope's), or null
 * when either is unusable: then the event is logged at warn and the consumer ignores it (a redelivery would not fix it).
 * Every service that forgets a deleted user's data starts its handler with this one guard.
 */
export function deletedUserOf(
  { envelope, payload }: ReceivedEvent<typeof UserDeletedSchema>,
  log: Logger,
): { readonly projectId: string; readonly userId: string } | null {
  const projectId = payload.projectId || envelope.projectId;
  const userId = payload.userId;
  if (!projectId || !isUuid(userId)) {
    log.warn({ event_id: envelope.id }, "identity.user.deleted.v1 without a usable project or user id; ignored");
    return null;
  }
  return { projectId, userId };
}
