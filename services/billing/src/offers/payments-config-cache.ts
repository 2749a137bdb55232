import type { Client } from "@connectrpc/connect";
import type { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ProjectConfigCache } from "@vestibule/shared/project-config";
import { readPaymentsConfig, type PaymentsConfig } from "./payments-config.ts";

/**
 * Each project's payments config (identity's rendered config), cached and dropped by identity.project.* events. Callers
 * pass the configuration version they have seen (`get(projectId, knownVersion)`): an older cached copy is read again,
 * so an update-quantity right after the item was configured does not answer ITEM_NOT_FOUND while the event is on its way.
 */
export class PaymentsConfigCache extends ProjectConfigCache<PaymentsConfig> {
  constructor(projects: Client<typeof ProjectService>, ttlMs?: number) {
    super(projects, (p) => readPaymentsConfig(p.renderedConfigJson, Number(p.version)), { ttlMs, versionOf: (c) => c.version });
  }
}
