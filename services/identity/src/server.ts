import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ApiKeySetService } from "@vestibule/proto/identity/v1/api_key_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { ContactChannelService } from "@vestibule/proto/identity/v1/contact_channel_service";
import { AiChatService } from "@vestibule/proto/identity/v1/ai_chat_service";
import { createAiChatService } from "./ai-chat-service.ts";
import type { ServiceContext, ServiceDefinition } from "@vestibule/shared/service";
import { createApiKeySetService } from "./api-key-set-service.ts";
import { createContactChannelService } from "./contact-channel-service.ts";
import { createProjectService } from "./project-service.ts";
import { createUserService } from "./user-service.ts";
import { applyInternalRbacSeed, ensureInternalProject } from "./bootstrap.ts";
import { createSearchPools, type SearchPools } from "./store/search-pools.ts";
import { startTeamEventConsumers } from "./team-events.ts";
import { analyticsServiceNames, registerAnalytics, startAnalytics } from "./analytics/capability.ts";
import { auditServiceNames, registerAudit } from "./audit/capability.ts";

/** The user search connections of each running service (created by start, which runs before routes). */
const searchPools = new WeakMap<ServiceContext, SearchPools>();

/**
 * The identity service: projects and their configuration, internal API keys, users and their contact channels.
 * Consumes teams_permissions.team.deleted.v1 and .membership.removed.v1 to keep users' selected_team_id valid
 * (team-events.ts). Also serves analytics events and session replays (AnalyticsService), a separate capability with
 * its own tables, quotas and retention (analytics/, see its README).
 */
export const identityService: ServiceDefinition = {
  name: "identity",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [ProjectService.typeName, ApiKeySetService.typeName, UserService.typeName, ContactChannelService.typeName, AiChatService.typeName, ...analyticsServiceNames, ...auditServiceNames],
  routes(router, ctx) {
    router.service(ProjectService, createProjectService(ctx));
    router.service(ApiKeySetService, createApiKeySetService(ctx));
    const pools = searchPools.get(ctx);
    if (!pools) throw new Error("identity routes registered before start()");
    router.service(UserService, createUserService(ctx, pools));
    router.service(ContactChannelService, createContactChannelService(ctx));
    router.service(AiChatService, createAiChatService(ctx));
    registerAnalytics(router, ctx);
    registerAudit(router, ctx);
  },
  async start(ctx) {
    await ensureInternalProject(ctx);
    await applyInternalRbacSeed(ctx);
    const pools = createSearchPools(ctx);
    searchPools.set(ctx, pools);
    const stopTeamEvents = await startTeamEventConsumers(ctx).catch(async (err: unknown) => {
      await pools.end();
      throw err;
    });
    const stopAnalytics = await startAnalytics(ctx).catch(async (err: unknown) => {
      await stopTeamEvents();
      await pools.end();
      throw err;
    });
    return async () => {
      await stopAnalytics();
      await stopTeamEvents();
      await pools.end();
    };
  },
};
