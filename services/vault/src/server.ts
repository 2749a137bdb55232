import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ProjectDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { DataVaultService } from "@vestibule/proto/vault/v1/data_vault_service";
import { consumeEvents, defineEvent, type Subscription } from "@vestibule/shared/events";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { createDataVaultService } from "./data-vault-service.ts";
import { vaultRuntime } from "./runtime.ts";
import { vaultStore } from "./store/vault-store.ts";

const projectDeleted = defineEvent("identity.project.deleted.v1", ProjectDeletedSchema);

/**
 * The vault service: data-vault stores of client-encrypted values (public contract §11), encrypted again at rest
 * with envelope encryption: master keys (VESTIBULE_MASTER_KEYS) wrap the service's data keys, which encrypt one key
 * per project, which encrypts the values. On start it re-wraps data keys still wrapped by an older master key (after
 * a master-key rotation), which rewrites those few rows and nothing else. Consumes identity.project.deleted.v1 (the
 * project's values and keys are deleted) and follows identity.project.* to know each project's stores.
 */
export const vaultService: ServiceDefinition = {
  name: "vault",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [DataVaultService.typeName],
  routes(router, ctx) {
    router.service(DataVaultService, createDataVaultService(vaultRuntime(ctx)));
  },
  async start(ctx) {
    const rt = vaultRuntime(ctx);
    const rewrapped = await ctx.secrets.rewrapDataKeys();
    if (rewrapped > 0) ctx.log.info({ data_keys: rewrapped }, "data keys re-wrapped with the current master key");
    const subs: Subscription[] = [];
    try {
      subs.push(await rt.stores.subscribe(ctx.bus));
      subs.push(
        await consumeEvents({
          bus: ctx.bus,
          pool: ctx.pool,
          log: ctx.log,
          consumer: "vault-identity-project-deleted",
          event: projectDeleted,
          handler: async ({ payload, envelope }, tx) => {
            const projectId = payload.projectId || envelope.projectId;
            if (!projectId) return;
            const values = await vaultStore.deleteProject(tx, projectId);
            rt.keys.forget(projectId);
            ctx.log.info({ project_id: projectId, values }, "deleted project's vault values and keys removed");
          },
        }),
      );
    } catch (err) {
      await Promise.all(subs.map((s) => s.stop().catch(() => {})));
      throw err;
    }
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
    };
  },
};
