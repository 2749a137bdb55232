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

/** The user search connections of each running service (created by start, which runs before routes). */
const searchPools = new WeakMap<ServiceContext, SearchPools>();

/**
 * The identity service: projects and their configuration, internal API keys, users and their contact channels.
 * Consumes teams_permissions.team.deleted.v1 and .membership.removed.v1 to keep users' selected_team_id valid
 * (team-events.ts).
 */
export const identityService: ServiceDefinition = {
  name: "identity",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [ProjectService.typeName, ApiKeySetService.typeName, UserService.typeName, ContactChannelService.typeName, AiChatService.typeName],
  routes(router, ctx) {
    router.service(ProjectService, createProjectService(ctx));
    router.service(ApiKeySetService, createApiKeySetService(ctx));
    const pools = searchPools.get(ctx);
    if (!pools) throw new Error("identity routes registered before start()");
    router.service(UserService, createUserService(ctx, pools));
    router.service(ContactChannelService, createContactChannelService(ctx));
    router.service(AiChatService, createAiChatService(ctx));
  },
  async start(ctx) {
    await ensureInternalProject(ctx);
    await applyInternalRbacSeed(ctx);
    const pools = createSearchPools(ctx);
    searchPools.set(ctx, pools);
    const stopTeamEvents = await startTeamEventConsumers(ctx);
    return async () => {
      await stopTeamEvents();
      await pools.end();
    };
  },
};
