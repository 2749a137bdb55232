import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ApiKeySetService } from "@vestibule/proto/identity/v1/api_key_service";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { createApiKeySetService } from "./api-key-set-service.ts";
import { createProjectService } from "./project-service.ts";
import { ensureInternalProject } from "./bootstrap.ts";

/** The identity service: projects and their configuration, internal API keys (users and contact channels next). */
export const identityService: ServiceDefinition = {
  name: "identity",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [ProjectService.typeName, ApiKeySetService.typeName],
  routes(router, ctx) {
    router.service(ProjectService, createProjectService(ctx));
    router.service(ApiKeySetService, createApiKeySetService(ctx));
  },
  async start(ctx) {
    await ensureInternalProject(ctx);
  },
};
