import type { ServiceImpl } from "@connectrpc/connect";
import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import { PermissionService } from "@vestibule/proto/teams_permissions/v1/permission_service";
import { withTransaction, type Queryable } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { clientUser, isClient, requireMembership } from "./access.ts";
import type { ProjectSettings, Scope } from "./domain/rbac.ts";
import { TeamsEvents } from "./events.ts";
import { requireUser } from "./peers.ts";
import type { TeamsRuntime } from "./runtime.ts";
import { deletedUserStore } from "./store/deleted-user-store.ts";
import { grantStore } from "./store/grant-store.ts";

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** PERMISSION_NOT_FOUND, or WRONG_PERMISSION_SCOPE when the id is defined in the other scope (or without one). */
export function requireDefinition(settings: ProjectSettings, scope: Scope, permissionId: string): void {
  const graph = scope === "team" ? settings.team : settings.project;
  if (graph.has(permissionId)) return;
  const other = scope === "team" ? settings.project : settings.team;
  if (other.has(permissionId)) {
    throw knownError("WRONG_PERMISSION_SCOPE", { permission_id: permissionId, expected_scope: scope, actual_scope: other.scope });
  }
  if (settings.allDefinitionIds.has(permissionId)) {
    throw knownError("WRONG_PERMISSION_SCOPE", { permission_id: permissionId, expected_scope: scope, actual_scope: null });
  }
  throw knownError("PERMISSION_NOT_FOUND", { permission_id: permissionId });
}

/** Client callers may only list their own permissions (a plain 403, as the contract says). */
function listFilterUser(caller: Parameters<typeof isClient>[0], userId: string): string | undefined {
  if (!isClient(caller)) return userId || undefined;
  const me = clientUser(caller, () => knownError("CANNOT_GET_OWN_USER_WITHOUT_USER"));
  if (userId !== me) {
    throw statusError(403, 'Client can only list permissions for their own user. user_id must be either "me" or the ID of the current user');
  }
  return me;
}

/**
 * Grants, listing and checks (endpoints.md §5). Listing and checks expand through the closure of the project's
 * definition graph (ProjectSettings), computed once per configuration version; grants of ids that are no longer
 * defined are left out, as in the reference.
 */
export function createPermissionService(rt: TeamsRuntime): ServiceImpl<typeof PermissionService> {
  const { ctx, identity, settings } = rt;
  const { pool, outbox } = ctx;

  async function projectGrantsAllowed(db: Queryable, projectId: string, userId: string): Promise<void> {
    if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
    if (await deletedUserStore.isDeleted(db, projectId, userId)) throw knownError("USER_NOT_FOUND");
    await requireUser(identity, projectId, userId);
  }

  return {
    async grantTeamPermission(req) {
      const { projectId, teamId, userId, permissionId } = req;
      const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
      await withTransaction(pool, async (tx) => {
        await requireMembership(identity, tx, projectId, teamId, userId, true);
        requireDefinition(s, "team", permissionId);
        if (await grantStore.grantTeam(tx, { projectId, teamId, userId, permissionId })) {
          await outbox.enqueue(tx, TeamsEvents.permissionGranted, { projectId, scope: PermissionScope.TEAM, teamId, userId, permissionId }, { projectId });
        }
      });
      return { permission: { id: permissionId, teamId, userId } };
    },

    async revokeTeamPermission(req) {
      const { projectId, teamId, userId, permissionId } = req;
      await withTransaction(pool, async (tx) => {
        await requireMembership(identity, tx, projectId, teamId, userId, true);
        if (!(await grantStore.revokeTeam(tx, { projectId, teamId, userId, permissionId }))) {
          throw knownError("TEAM_PERMISSION_NOT_FOUND", { team_id: teamId, user_id: userId, permission_id: permissionId });
        }
        await outbox.enqueue(tx, TeamsEvents.permissionRevoked, { projectId, scope: PermissionScope.TEAM, teamId, userId, permissionId }, { projectId });
      });
      return {};
    },

    async listTeamPermissions(req) {
      const userId = listFilterUser(req.caller, req.userId);
      const teamId = req.teamId || undefined;
      if ((teamId && !isUuid(teamId)) || (userId && !isUuid(userId))) return { permissions: [] };
      const s = await settings.get(req.projectId, Number(req.caller?.knownConfigVersion ?? 0));
      const rows = await grantStore.listTeam(pool, req.projectId, { teamId, userId });
      const held = new Map<string, { teamId: string; userId: string; ids: string[] }>();
      for (const r of rows) {
        const key = `${r.team_id}|${r.user_id}`;
        let entry = held.get(key);
        if (!entry) held.set(key, (entry = { teamId: r.team_id, userId: r.user_id, ids: [] }));
        entry.ids.push(r.permission_id);
      }
      const permissions: { id: string; teamId: string; userId: string }[] = [];
      for (const entry of held.values()) {
        for (const id of s.team.expand(entry.ids, req.recursive)) {
          if (!req.permissionId || id === req.permissionId) permissions.push({ id, teamId: entry.teamId, userId: entry.userId });
        }
      }
      permissions.sort((a, b) => byString(a.teamId, b.teamId) || byString(a.userId, b.userId) || byString(a.id, b.id));
      return { permissions };
    },

    async checkTeamPermission(req) {
      return rt.checker.checkTeam(req.projectId, req.teamId, req.userId, req.permissionId, Number(req.knownConfigVersion));
    },

    async grantProjectPermission(req) {
      const { projectId, userId, permissionId } = req;
      const s = await settings.get(projectId, Number(req.caller?.knownConfigVersion ?? 0));
      await projectGrantsAllowed(pool, projectId, userId);
      requireDefinition(s, "project", permissionId);
      await withTransaction(pool, async (tx) => {
        if (await grantStore.grantProject(tx, { projectId, userId, permissionId })) {
          await outbox.enqueue(tx, TeamsEvents.permissionGranted, { projectId, scope: PermissionScope.PROJECT, teamId: "", userId, permissionId }, { projectId });
        }
      });
      return { permission: { id: permissionId, userId } };
    },

    async revokeProjectPermission(req) {
      const { projectId, userId, permissionId } = req;
      await withTransaction(pool, async (tx) => {
        if (!isUuid(userId) || !(await grantStore.revokeProject(tx, { projectId, userId, permissionId }))) {
          if (!isUuid(userId)) throw knownError("USER_NOT_FOUND");
          await requireUser(identity, projectId, userId);
          throw knownError("PERMISSION_NOT_FOUND", { permission_id: permissionId });
        }
        await outbox.enqueue(tx, TeamsEvents.permissionRevoked, { projectId, scope: PermissionScope.PROJECT, teamId: "", userId, permissionId }, { projectId });
      });
      return {};
    },

    async listProjectPermissions(req) {
      const userId = listFilterUser(req.caller, req.userId);
      if (userId && !isUuid(userId)) return { permissions: [] };
      const s = await settings.get(req.projectId, Number(req.caller?.knownConfigVersion ?? 0));
      const rows = await grantStore.listProject(pool, req.projectId, userId);
      const byUser = new Map<string, string[]>();
      for (const r of rows) {
        const list = byUser.get(r.user_id);
        if (list) list.push(r.permission_id);
        else byUser.set(r.user_id, [r.permission_id]);
      }
      const permissions: { id: string; userId: string }[] = [];
      for (const [user, ids] of byUser) {
        for (const id of s.project.expand(ids, req.recursive)) if (!req.permissionId || id === req.permissionId) permissions.push({ id, userId: user });
      }
      permissions.sort((a, b) => byString(a.userId, b.userId) || byString(a.id, b.id));
      return { permissions };
    },

    async checkProjectPermission(req) {
      return { granted: await rt.checker.checkProject(req.projectId, req.userId, req.permissionId, Number(req.knownConfigVersion)) };
    },
  };
}
