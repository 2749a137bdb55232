import type { ServiceContext } from "@vestibule/shared/service";
import { withTransaction } from "@vestibule/shared/db";
import { overrideFromAdminConfigUpdate, internalProjectSeedConfig } from "./domain/config.ts";
import { projectStore } from "./store/project-store.ts";
import { sealSecrets } from "./project-secrets.ts";

/**
 * The `internal` project (the dashboard's own project, whose users own all other projects) exists in every
 * deployment. Created once, on the first start of any identity replica; a no-op afterwards. Its keys are minted by
 * whoever operates the deployment (`npm start` does it for the embedded default).
 */
export async function ensureInternalProject(ctx: ServiceContext): Promise<void> {
  const existing = await projectStore.get(ctx.pool, "internal");
  if (existing) return;
  await withTransaction(ctx.pool, async (tx) => {
    const override = overrideFromAdminConfigUpdate(internalProjectSeedConfig());
    const inserted = await projectStore.insert(tx, {
      id: "internal",
      display_name: "Vestibule Dashboard",
      description: "The dashboard's own project: its users are the owners of every other project.",
      logo_url: null,
      full_logo_url: null,
      is_production_mode: false,
      owner_team_id: null,
      config_override: await sealSecrets(ctx.secrets, "internal", override),
    });
    if (inserted) ctx.log.info("created the internal project");
  });
}
