import type { ServiceContext } from "@vestibule/shared/service";
import { withTransaction } from "@vestibule/shared/db";
import { mergeOverrides, overrideFromAdminConfigUpdate, internalProjectSeedConfig, type ConfigOverride } from "./domain/config/index.ts";
import { untouchedSeed } from "./domain/seeds.ts";
import { IdentityEvents } from "./events.ts";
import { projectEventMessage } from "./project-service.ts";
import { appliedSeedStore } from "./store/applied-seed-store.ts";
import { projectStore } from "./store/project-store.ts";
import { sealSecrets } from "./project-secrets.ts";

/**
 * The permission definitions of the `internal` project (contract endpoints.md §5): its `team_member` contains
 * $read_members and its `team_admin` $read_members, $remove_members and $update_team (a project owner's team admin may
 * transfer the team's projects). Written when the project is created; deployments from before it get it once from
 * `applyInternalRbacSeed`.
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

/** The applied_seeds id of INTERNAL_RBAC_SEED for deployments that existed before it (never renamed). */
export const INTERNAL_RBAC_SEED_ID = "internal-project-rbac-v1";

/**
 * Brings INTERNAL_RBAC_SEED to deployments whose `internal` project was created before the seed existed (a project
 * is seeded only when it is created). Once per deployment, forward only: the step is recorded in `applied_seeds` in
 * the transaction that applies it, with the internal project's row locked, so replicas starting together apply it
 * once, and a later start never applies it again (an operator may change or delete the definitions afterwards).
 * Each of the two definitions is written only when the stored override has never said anything about it
 * (domain/seeds.ts): an operator's own `team_member` or `team_admin` stays as it is. When something changed the
 * project's version goes up and identity.project.updated.v1 is published, like any configuration change, so every
 * cache of the project (gateway, teams-permissions' permission closure) drops it. Returns the definitions written.
 */
export async function applyInternalRbacSeed(ctx: ServiceContext): Promise<string[]> {
  const written = await withTransaction(ctx.pool, async (tx) => {
    const row = await projectStore.get(tx, "internal", true);
    if (!row) return [];
    if (!(await appliedSeedStore.record(tx, INTERNAL_RBAC_SEED_ID))) return [];
    const missing = untouchedSeed(row.config_override, INTERNAL_RBAC_SEED);
    if (Object.keys(missing).length === 0) return [];
    // Secret leaves stay sealed: the merge moves no existing leaf, and sealSecrets leaves ciphertexts as they are.
    const override = await sealSecrets(ctx.secrets, row.id, mergeOverrides(row.config_override, missing));
    const updated = await projectStore.update(tx, { ...row, config_override: override });
    await ctx.outbox.enqueue(tx, IdentityEvents.projectUpdated, { project: projectEventMessage(updated) }, { projectId: row.id });
    return [...new Set(Object.keys(missing).map((k) => k.split(".")[2]!))];
  });
  if (written.length > 0) ctx.log.info({ definitions: written }, "internal project: team permission definitions seeded");
  return written;
}
