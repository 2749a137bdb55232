import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ProjectDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { AnalyticsService } from "@vestibule/proto/analytics/v1/analytics_service";
import { consumeEvents, defineEvent } from "@vestibule/shared/events";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { createAnalyticsService } from "./analytics-service.ts";
import { readAnalyticsConfig } from "./config.ts";
import { startJanitor } from "./janitor.ts";
import { eventStore } from "./store/event-store.ts";
import { replayStore } from "./store/replay-store.ts";

const projectDeleted = defineEvent("identity.project.deleted.v1", ProjectDeletedSchema);

/**
 * The analytics service: browser events and session replays of the current SDK generation, in its own schema
 * (`analytics`). Write-heavy, append-only data with its own retention and quotas, kept apart from the services
 * that answer sign-ins, so a flood of page views never slows authentication and the data can be scaled or dropped
 * on its own. It needs no other service: the gateway passes the verified session. Consumes
 * identity.project.deleted.v1 (the project's events and replays are deleted).
 */
export const analyticsService: ServiceDefinition = {
  name: "analytics",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [AnalyticsService.typeName],
  routes(router, ctx) {
    router.service(AnalyticsService, createAnalyticsService(ctx, readAnalyticsConfig(ctx.env)));
  },
  async start(ctx) {
    const config = readAnalyticsConfig(ctx.env);
    const stopJanitor = startJanitor(ctx, config);
    const sub = await consumeEvents({
      bus: ctx.bus,
      pool: ctx.pool,
      log: ctx.log,
      consumer: "analytics-identity-project-deleted",
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
  },
};
