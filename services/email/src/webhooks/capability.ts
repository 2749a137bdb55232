import { ProjectDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { consumeEvents, defineEvent, type Subscription } from "@vestibule/shared/events";
import type { EmailRuntime } from "../runtime.ts";
import { WebhookDelivery } from "./delivery.ts";
import { WEBHOOK_SOURCES } from "./events.ts";
import { ownerNotifier } from "./owners.ts";
import { webhookAllowList, webhookRuntime } from "./runtime.ts";
import { webhookStore } from "./store.ts";

/**
 * Starts the webhook capability: one durable, idempotent consumer per platform event that has a webhook event
 * (WEBHOOK_SOURCES), each queueing one message per matching endpoint in the same transaction that records the event
 * as processed (events of stateless sources for a project with no enabled endpoint are skipped before any
 * transaction); and the deliverer. Returns the stop function.
 */
export async function startWebhooks(rt: EmailRuntime): Promise<() => Promise<void>> {
  const { bus, pool, log } = rt.ctx;
  const wh = webhookRuntime(rt);
  const subs: Subscription[] = [];
  const stop = async () => {
    for (const sub of subs) await sub.stop().catch((err: unknown) => log.warn({ err: (err as Error).message }, "webhooks: a consumer did not stop cleanly"));
    await wh.delivery?.stop();
  };
  try {
    subs.push(await wh.userViewProjects.subscribe(bus));
    for (const src of WEBHOOK_SOURCES) {
      subs.push(
        await consumeEvents({
          bus,
          pool,
          log,
          consumer: src.consumer,
          event: src.event,
          skip: src.statelessProjectOf
            ? async ({ envelope, payload }) => {
                const projectId = src.statelessProjectOf!(payload, envelope);
                return !projectId || !(await webhookStore.hasEnabledEndpoint(pool, projectId));
              }
            : undefined,
          handler: async ({ envelope, payload }, tx) => {
            const event = await src.map(payload, { tx, envelope, userViewProject: (projectId) => wh.userViewProjects.get(projectId) });
            if (!event || !event.projectId) return;
            const queued = await webhookStore.enqueueForEvent(tx, {
              projectId: event.projectId,
              eventId: envelope.id,
              eventType: event.type,
              payload: { type: event.type, data: event.data },
            });
            if (queued > 0) log.debug({ event_id: envelope.id, type: event.type, queued }, "webhook messages queued");
          },
        }),
      );
    }
    // A deleted project's endpoints go, with their messages and attempts.
    subs.push(
      await consumeEvents({
        bus,
        pool,
        log,
        consumer: "email-webhooks-project-deleted",
        event: defineEvent("identity.project.deleted.v1", ProjectDeletedSchema),
        handler: async ({ payload }, tx) => {
          await webhookStore.deleteProject(tx, payload.projectId);
        },
      }),
    );
    const delivery = new WebhookDelivery({
      pool,
      connectionString: rt.ctx.config.databaseUrl,
      log,
      secrets: rt.ctx.secrets,
      config: wh.config,
      schedule: wh.schedule,
      allow: webhookAllowList(rt),
      onDisabled: ownerNotifier(rt),
    });
    await delivery.start();
    wh.delivery = delivery;
  } catch (err) {
    await stop();
    throw err;
  }
  return stop;
}
