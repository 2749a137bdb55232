import { consumeDeletedUsers, consumeEvents, openFields, type Subscription } from "@vestibule/shared/events";
import { PayloadOpenError } from "@vestibule/shared/secrets";
import { CONSUMERS, ConsumedEvents, EMAIL_REQUEST_SOURCES, SEALED_EMAIL_FIELDS } from "./events.ts";
import type { EmailRuntime } from "./runtime.ts";
import { preferenceStore } from "./store/preference-store.ts";
import { templateStore } from "./store/template-store.ts";

/**
 * The e-mail service's event consumers, each durable and idempotent (consumeEvents records the event id in the
 * handler's transaction, so a redelivery changes nothing; the unique `emails.event_id` keeps it so even across a
 * consumer rename):
 *  - every EMAIL_REQUEST_SOURCES subject → one rendered, queued e-mail (EmailRequests.record), its sealed content
 *    opened first (SEALED_EMAIL_FIELDS). Sealed content that does not open (its master key is not configured here, or
 *    it does not authenticate) is recorded as a failed e-mail saying why, like any request that cannot be sent: a
 *    handler that throws would be redelivered forever and, on the embedded bus, hold up every later e-mail;
 *  - identity.user.deleted.v1 → the user's notification preferences and unsubscribe links;
 *  - identity.project.deleted.v1 → the project's themes, templates, drafts and preferences.
 * Bodies carry one-time codes, so only ids and metadata are logged.
 */
export async function startEventConsumers(rt: EmailRuntime): Promise<() => Promise<void>> {
  const { bus, pool, log } = rt.ctx;
  const subs: Subscription[] = [];
  try {
    for (const source of EMAIL_REQUEST_SOURCES) {
      subs.push(
        await consumeEvents({
          bus,
          pool,
          log,
          consumer: source.consumer,
          event: source.event,
          handler: async ({ envelope, payload }, tx) => {
            let request = payload;
            const problems: string[] = [];
            try {
              request = openFields(rt.sealer, SEALED_EMAIL_FIELDS, source.event.type, payload);
            } catch (err) {
              if (!(err instanceof PayloadOpenError)) throw err;
              log.error({ event_id: envelope.id, reason: err.reason, key_id: err.keyId }, "the sealed content of an e-mail request does not open");
              problems.push(`its sealed content cannot be opened (${err.message})`);
            }
            const outcome = await rt.requests.record(tx, request, { eventId: envelope.id, envelopeProjectId: envelope.projectId, problems });
            if ("row" in outcome && !outcome.row) log.debug({ event_id: envelope.id }, "e-mail for this event already recorded");
          },
        }),
      );
    }
    subs.push(
      await consumeDeletedUsers({
        bus,
        pool,
        log,
        consumer: CONSUMERS.userDeleted,
        handler: ({ projectId, userId }, tx) => preferenceStore.deleteUser(tx, projectId, userId),
      }),
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: CONSUMERS.projectDeleted,
        event: ConsumedEvents.projectDeleted,
        handler: async ({ payload }, tx) => {
          await templateStore.deleteProject(tx, payload.projectId);
          rt.templates.forget(payload.projectId);
        },
      }),
    );
  } catch (err) {
    for (const sub of subs) await sub.stop().catch(() => {});
    throw err;
  }
  return async () => {
    for (const sub of subs) await sub.stop().catch((err: unknown) => log.warn({ err: (err as Error).message }, "e-mail request consumers: one did not stop cleanly"));
  };
}
