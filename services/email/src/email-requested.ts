import { consumeEvents } from "@vestibule/shared/events";
import { newId } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import { emailFromRequest } from "./domain/email-request.ts";
import { CONSUMERS, ConsumedEvents } from "./events.ts";
import { emailStore } from "./store/email-store.ts";

/**
 * Records every `auth.email.requested.v1` (and `teams_permissions.email.requested.v1`, the same payload) as one message
 * in `emails`. Durable and idempotent: a redelivered event (same envelope id) finds its processed_events row and
 * changes nothing, and the unique `event_id` column keeps it so even across a consumer rename.
 *
 * Development: the message is `sent` at once (the dev mailbox is the delivery). Production: it is left `queued`; the
 * SMTP sender of a later issue picks queued messages up (index emails_queued) and delivers them.
 *
 * Bodies carry one-time codes, so only ids and metadata are logged.
 */
export async function startEmailRequestedConsumer(ctx: ServiceContext): Promise<() => Promise<void>> {
  const { bus, pool, log, config } = ctx;
  const consume = (consumer: string, event: typeof ConsumedEvents.emailRequested) => consumeEvents({
    bus,
    pool,
    log,
    consumer,
    event,
    handler: async ({ envelope, payload }, client) => {
      const email = emailFromRequest(payload, { mode: config.mode, envelopeProjectId: envelope.projectId });
      const row = await emailStore.insert(client, { ...email, id: newId(), eventId: envelope.id });
      if (!row) {
        log.debug({ event_id: envelope.id }, "e-mail for this event already recorded");
        return;
      }
      const fields = { email_id: row.id, event_id: envelope.id, project_id: row.project_id, template: row.template, status: row.status };
      if (row.status === "failed") log.warn({ ...fields, error: row.error }, "requested e-mail cannot be sent");
      else log.info(fields, row.status === "sent" ? "e-mail delivered to the dev mailbox" : "e-mail queued");
    },
  });
  const subs = [await consume(CONSUMERS.emailRequested, ConsumedEvents.emailRequested)];
  try {
    // Team invitations (same payload shape, own stream).
    subs.push(await consume(CONSUMERS.teamsEmailRequested, ConsumedEvents.teamsEmailRequested));
  } catch (err) {
    await Promise.all(subs.map((s) => s.stop().catch(() => {})));
    throw err;
  }
  return async () => {
    await Promise.all(subs.map((s) => s.stop()));
  };
}
