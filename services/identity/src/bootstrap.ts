import type { ServiceContext } from "@vestibule/shared/service";
import { withTransaction } from "@vestibule/shared/db";
import { mergeOverrides, overrideFromAdminConfigUpdate, internalProjectSeedConfig, type ConfigOverride } from "./domain/config.ts";
import { projectStore } from "./store/project-store.ts";
import { sealSecrets } from "./project-secrets.ts";

/**
 * The permission definitions of the `internal` project (contract endpoints.md §5): its `team_member` contains
 * $read_members and its `team_admin` $read_members, $remove_members and $update_team (a project owner's team admin may
 * transfer the team's projects).
 */
export const INTERNAL_RBAC_SEED: ConfigOverride = {
  "rbac.permissions.team_member": null,
  "rbac.permissions.team_member.description": "Default permission for team members",
  "rbac.permissions.team_member.scope": "team",
  "rbac.permissions.team_member.containedPermissionIds": { $read_members: true },
  "rbac.permissions.team_admin": null,
  "rbac.permissions.team_admin.description": "Default permission for team admins",
  "rbac.permissions.team_admin.scope": "team",
  "rbac.permissions.team_admin.containedPermissionIds": { $read_members: true, $remove_members: true, $update_team: true },
};

/**
 * The `internal` project (the dashboard's own project, whose users own all other projects) exists in every
 * deployment. Created once, on the first start of any identity replica; a no-op afterwards. Its keys are minted by
 * whoever operates the deployment (`npm start` does it for the embedded default).
 */
export async function ensureInternalProject(ctx: ServiceContext): Promise<void> {
  const existing = await projectStore.get(ctx.pool, "internal");
  if (existing) return;
  await withTransaction(ctx.pool, async (tx) => {
    const override = mergeOverrides(overrideFromAdminConfigUpdate(internalProjectSeedConfig()), INTERNAL_RBAC_SEED);
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
