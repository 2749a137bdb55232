import type { Client } from "@connectrpc/connect";
import type { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ProjectConfigCache } from "@vestibule/shared/project-config";
import { declaredStores } from "./domain/stores.ts";

/**
 * The data-vault stores each project declares (identity's rendered config), cached per project and dropped by
 * identity.project.* events (see ProjectConfigCache).
 */
export class ProjectStoresCache extends ProjectConfigCache<ReadonlySet<string>> {
  constructor(projects: Client<typeof ProjectService>, ttlMs?: number) {
    super(projects, (p) => declaredStores(p.renderedConfigJson), { ttlMs });
  }
}
