import { ProjectDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { AnalyticsService } from "@vestibule/proto/analytics/v1/analytics_service";
import type { ConnectRouter } from "@connectrpc/connect";
import { consumeEvents, defineEvent } from "@vestibule/shared/events";
import type { ServiceContext } from "@vestibule/shared/service";
import { createAnalyticsService } from "./analytics-service.ts";
import { readAnalyticsConfig } from "./config.ts";
import { startJanitor } from "./janitor.ts";
import { eventStore } from "./store/event-store.ts";
import { replayStore } from "./store/replay-store.ts";

const projectDeleted = defineEvent("identity.project.deleted.v1", ProjectDeletedSchema);

/**
 * The analytics capability of the identity service: browser events and session replays of the current SDK
 * generation (`vestibule.analytics.v1.AnalyticsService`), in identity's schema but in tables of its own
 * (`analytics_*`, migration 0008), with its own retention and quotas. It shares no code or table with the rest of
 * identity, so it could be split out into its own process later: it needs no other service (the gateway passes the
 * verified session) and learns of deleted projects from identity.project.deleted.v1 like any other consumer.
 */
export const analyticsServiceNames = [AnalyticsService.typeName];

/** Registers AnalyticsService on identity's router. */
export function registerAnalytics(router: ConnectRouter, ctx: ServiceContext): void {
  router.service(AnalyticsService, createAnalyticsService(ctx, readAnalyticsConfig(ctx.env)));
}

/**
 * Starts the retention janitor and the consumer of identity.project.deleted.v1 (the project's events and replays
 * are deleted); resolves to their stop function.
 */
export async function startAnalytics(ctx: ServiceContext): Promise<() => Promise<void>> {
  const config = readAnalyticsConfig(ctx.env);
  const stopJanitor = startJanitor(ctx, config);
  const sub = await consumeEvents({
    bus: ctx.bus,
    pool: ctx.pool,
    log: ctx.log,
    consumer: "identity-analytics-project-deleted",
    event: projectDeleted,
    handler: async ({ payload, envelope }, tx) => {
      const projectId = payload.projectId || envelope.projectId;
      if (!projectId) return;
      const events = await eventStore.deleteProject(tx, projectId);
      const replays = await replayStore.deleteProject(tx, projectId);
      ctx.log.info({ project_id: projectId, events, replays }, "deleted project's analytics removed");
    },
  }).catch(async (err: unknown) => {
    await stopJanitor();
    throw err;
  });
  return async () => {
    await sub.stop();
    await stopJanitor();
  };
}
