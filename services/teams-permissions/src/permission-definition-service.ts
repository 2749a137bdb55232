import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { PermissionDefinitionSchema, PermissionScope, type PermissionDefinition } from "@vestibule/proto/teams_permissions/v1/permission";
import { PermissionDefinitionService } from "@vestibule/proto/teams_permissions/v1/permission_definition_service";
import { withTransaction, type PoolClient } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import {
  checkDefinitionWrite,
  graphOf,
  isSystemPermission,
  overrideForDefinitionDelete,
  overrideForDefinitionWrite,
  type DefinitionChange,
  type DefinitionWriteProblem,
  type PermissionDefinition as Definition,
  type ProjectSettings,
  type Scope,
} from "./domain/rbac.ts";
import { TeamsEvents } from "./events.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { grantStore, type TeamGrantRow } from "./store/grant-store.ts";

function scopeOf(scope: PermissionScope): Scope {
  if (scope === PermissionScope.TEAM) return "team";
  if (scope === PermissionScope.PROJECT) return "project";
  throw statusError(400, "scope must be team or project.");
}

function definitionMessage(d: Definition): PermissionDefinition {
  return create(PermissionDefinitionSchema, {
    id: d.id,
    description: d.description,
    containedPermissionIds: [...d.containedPermissionIds],
    scope: d.scope === "team" ? PermissionScope.TEAM : PermissionScope.PROJECT,
    isSystem: d.isSystem,
  });
}

function systemPermissionError(id: string): Error {
  return statusError(400, `${id} is a system permission: system permissions are predefined and cannot be created, changed or deleted.`);
}

function raise(problem: DefinitionWriteProblem): never {
  switch (problem.kind) {
    case "id":
      throw statusError(400, problem.message);
    case "system":
      throw systemPermissionError(problem.id);
    case "not-found":
      throw knownError("PERMISSION_NOT_FOUND", { permission_id: problem.id });
    case "exists":
      throw knownError("PERMISSION_ID_ALREADY_EXISTS", { permission_id: problem.id });
    case "contained-not-found":
      throw knownError("CONTAINED_PERMISSION_NOT_FOUND", { permission_id: problem.id });
    case "cycle":
      throw statusError(
        400,
        `Permission "${problem.path[0]}" would contain itself (${problem.path.join(" → ")}); contained permissions must not form a cycle.`,
      );
  }
}

/**
 * Permission definitions (admin). The definitions are stored in identity's project configuration (see
 * domain/rbac.ts for why); each write here runs under a per-project advisory lock, validates against the latest
 * configuration (read from identity, not the cache), changes the grants in this service's transaction (a rename
 * moves them to the new id, a deletion removes them, a creation clears stale grants of a formerly deleted id) and
 * writes the configuration through identity's UpdateConfigOverride before committing. Should the commit fail after
 * identity accepted the change, grants would point at ids that are no longer defined; listings and checks ignore such
 * grants, and creating the id again clears them first.
 */
export function createPermissionDefinitionService(rt: TeamsRuntime): ServiceImpl<typeof PermissionDefinitionService> {
  const { ctx, identity, settings } = rt;
  const { pool, outbox } = ctx;

  async function locked<T>(projectId: string, fn: (tx: PoolClient, current: ProjectSettings) => Promise<T>): Promise<T> {
    return withTransaction(pool, async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`teams_permissions:definitions:${projectId}`]);
      return fn(tx, await settings.reload(projectId));
    });
  }

  async function writeConfig(projectId: string, override: Record<string, unknown>): Promise<ProjectSettings> {
    const { project } = await identity.projects.updateConfigOverride({ projectId, configOverrideJson: JSON.stringify(override) });
    return settings.put(project!);
  }

  async function emitGrantChanges(tx: PoolClient, projectId: string, scope: Scope, revoked: TeamGrantRow[], grantedId?: string): Promise<void> {
    const protoScope = scope === "team" ? PermissionScope.TEAM : PermissionScope.PROJECT;
    for (const g of revoked) {
      const base = { projectId, scope: protoScope, teamId: g.team_id, userId: g.user_id };
      await outbox.enqueue(tx, TeamsEvents.permissionRevoked, { ...base, permissionId: g.permission_id }, { projectId });
      if (grantedId) await outbox.enqueue(tx, TeamsEvents.permissionGranted, { ...base, permissionId: grantedId }, { projectId });
    }
  }

  /** Grants of an id that is not defined (left behind by a deletion through a raw config override): dropped. */
  async function clearStaleGrants(tx: PoolClient, projectId: string, id: string): Promise<void> {
    for (const scope of ["team", "project"] as const) {
      const stale = await grantStore.deleteAllOf(tx, projectId, scope, id);
      await emitGrantChanges(tx, projectId, scope, stale);
    }
  }

  return {
    async listPermissionDefinitions(req) {
      const s = await settings.get(req.projectId, Number(req.knownConfigVersion));
      return { definitions: graphOf(s, scopeOf(req.scope)).list().map(definitionMessage) };
    },

    async createPermissionDefinition(req) {
      const scope = scopeOf(req.scope);
      const change: DefinitionChange = { id: req.id, description: req.description, containedPermissionIds: req.containedPermissionIds };
      const after = await locked(req.projectId, async (tx, current) => {
        const problem = checkDefinitionWrite(current, scope, change);
        if (problem) raise(problem);
        await clearStaleGrants(tx, req.projectId, change.id);
        return writeConfig(req.projectId, overrideForDefinitionWrite(current, scope, change));
      });
      return { definition: definitionMessage(graphOf(after, scope).get(change.id)!), configVersion: BigInt(after.version) };
    },

    async updatePermissionDefinition(req) {
      const scope = scopeOf(req.scope);
      const oldId = req.permissionId;
      const after = await locked(req.projectId, async (tx, current) => {
        const existing = graphOf(current, scope).get(oldId);
        if (isSystemPermission(oldId)) throw systemPermissionError(oldId);
        const change: DefinitionChange = {
          oldId,
          id: req.newId ?? oldId,
          description: req.description ?? existing?.description,
          containedPermissionIds: req.updateContainedPermissionIds ? req.containedPermissionIds : (existing?.containedPermissionIds ?? []),
        };
        const problem = checkDefinitionWrite(current, scope, change);
        if (problem) raise(problem);
        if (change.id !== oldId) {
          await clearStaleGrants(tx, req.projectId, change.id);
          const moved = await grantStore.rename(tx, req.projectId, scope, oldId, change.id);
          await emitGrantChanges(tx, req.projectId, scope, moved.map((g) => ({ ...g, permission_id: oldId })), change.id);
        }
        return { settings: await writeConfig(req.projectId, overrideForDefinitionWrite(current, scope, change)), id: change.id };
      });
      return {
        definition: definitionMessage(graphOf(after.settings, scope).get(after.id)!),
        configVersion: BigInt(after.settings.version),
      };
    },

    async deletePermissionDefinition(req) {
      const scope = scopeOf(req.scope);
      const id = req.permissionId;
      const after = await locked(req.projectId, async (tx, current) => {
        if (isSystemPermission(id)) throw systemPermissionError(id);
        if (!graphOf(current, scope).has(id)) throw knownError("PERMISSION_NOT_FOUND", { permission_id: id });
        const removed = await grantStore.deleteAllOf(tx, req.projectId, scope, id);
        await emitGrantChanges(tx, req.projectId, scope, removed);
        return writeConfig(req.projectId, overrideForDefinitionDelete(current, id));
      });
      return { configVersion: BigInt(after.version) };
    },
  };
}
