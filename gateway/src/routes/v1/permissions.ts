import { Type } from "typebox";
import type { PermissionDefinition } from "@vestibule/proto/teams_permissions/v1/permission";
import { PermissionScope } from "@vestibule/proto/teams_permissions/v1/permission";
import { knownError } from "@vestibule/shared/errors";
import { formatValidationMessage, Obj, Optional, QueryBoolean, QueryInteger, UserIdOrMe, Uuid } from "../../validation/index.ts";
import { resolveUserId } from "../helpers.ts";
import { defineRoute } from "../route.ts";
import { callerOf } from "../teams-caller.ts";

const ANY = ["client", "server", "admin"] as const;
const SERVER = ["server", "admin"] as const;

// ---------------------------------------------------------------------------------------------------------------
// Permission ids (spec section 5), checked after the schema with the contract's three messages.

const SYSTEM_PERMISSIONS = new Set(["$update_team", "$delete_team", "$read_members", "$remove_members", "$invite_members", "$manage_api_keys"]);
const PERMISSION_ID = /^\$?[a-z0-9_:]+$/;

function permissionIdProblem(id: string): string | undefined {
  if (!PERMISSION_ID.test(id)) return 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed';
  if (id.startsWith("$") && !SYSTEM_PERMISSIONS.has(id)) return "Invalid system permission";
  return undefined;
}

/** A custom definition may not take a system permission's name without its `$`. */
function definitionIdProblem(id: string): string | undefined {
  return permissionIdProblem(id) ?? (!id.startsWith("$") && SYSTEM_PERMISSIONS.has(`$${id}`) ? "System permissions must start with a dollar sign" : undefined);
}

/** SCHEMA_ERROR listing every malformed permission id (undefined values are skipped). */
function checkPermissionIds(method: string, url: string, ids: readonly (string | undefined)[], rule = permissionIdProblem): void {
  const lines = ids.map((id) => (id === undefined ? undefined : rule(id))).filter((l): l is string => l !== undefined);
  if (lines.length > 0) throw knownError("SCHEMA_ERROR", { message: formatValidationMessage(method, url.split("?")[0]!, lines) });
}

// ---------------------------------------------------------------------------------------------------------------
// Grants

const ListQuery = {
  user_id: Optional(UserIdOrMe()),
  permission_id: Optional(Type.String()),
  recursive: Optional(QueryBoolean()),
};

export const listTeamPermissionsRoute = defineRoute({
  method: "GET",
  path: "/team-permissions",
  summary: "Team permissions of users (a client only its own); recursive adds the contained permissions",
  tags: ["Permissions"],
  access: ANY,
  schemas: { query: Obj({ team_id: Optional(Uuid()), ...ListQuery }) },
  async handler({ auth, query, clients, req }) {
    checkPermissionIds("GET", req.url, [query.permission_id]);
    const { permissions } = await clients.permissions.listTeamPermissions({
      projectId: auth.projectId,
      caller: callerOf(auth),
      teamId: query.team_id ?? "",
      userId: query.user_id === undefined ? "" : resolveUserId(auth, query.user_id),
      permissionId: query.permission_id ?? "",
      recursive: query.recursive === true,
    });
    return { json: { items: permissions.map((p) => ({ id: p.id, user_id: p.userId, team_id: p.teamId })), is_paginated: false } };
  },
});

const TeamGrantParams = Obj({ team_id: Uuid(), user_id: UserIdOrMe(), permission_id: Type.String() });

export const grantTeamPermissionRoute = defineRoute({
  method: "POST",
  path: "/team-permissions/:team_id/:user_id/:permission_id",
  summary: "Grant a team permission to a member (idempotent)",
  tags: ["Permissions"],
  access: SERVER,
  schemas: { params: TeamGrantParams, body: Optional(Obj({})) },
  async handler({ auth, params, clients, req }) {
    checkPermissionIds("POST", req.url, [params.permission_id]);
    const userId = resolveUserId(auth, params.user_id);
    await clients.permissions.grantTeamPermission({ projectId: auth.projectId, caller: callerOf(auth), teamId: params.team_id, userId, permissionId: params.permission_id });
    return { status: 201, json: { id: params.permission_id, user_id: userId, team_id: params.team_id } };
  },
});

export const revokeTeamPermissionRoute = defineRoute({
  method: "DELETE",
  path: "/team-permissions/:team_id/:user_id/:permission_id",
  summary: "Revoke a team permission the member holds directly",
  tags: ["Permissions"],
  access: SERVER,
  schemas: { params: TeamGrantParams },
  async handler({ auth, params, clients, req }) {
    checkPermissionIds("DELETE", req.url, [params.permission_id]);
    const userId = resolveUserId(auth, params.user_id);
    await clients.permissions.revokeTeamPermission({ projectId: auth.projectId, caller: callerOf(auth), teamId: params.team_id, userId, permissionId: params.permission_id });
    return { json: { success: true } };
  },
});

export const listProjectPermissionsRoute = defineRoute({
  method: "GET",
  path: "/project-permissions",
  summary: "Project permissions of users (a client only its own); recursive adds the contained permissions",
  tags: ["Permissions"],
  access: ANY,
  schemas: { query: Obj(ListQuery) },
  async handler({ auth, query, clients, req }) {
    checkPermissionIds("GET", req.url, [query.permission_id]);
    const { permissions } = await clients.permissions.listProjectPermissions({
      projectId: auth.projectId,
      caller: callerOf(auth),
      userId: query.user_id === undefined ? "" : resolveUserId(auth, query.user_id),
      permissionId: query.permission_id ?? "",
      recursive: query.recursive === true,
    });
    return { json: { items: permissions.map((p) => ({ id: p.id, user_id: p.userId })), is_paginated: false } };
  },
});

const ProjectGrantParams = Obj({ user_id: UserIdOrMe(), permission_id: Type.String() });

export const grantProjectPermissionRoute = defineRoute({
  method: "POST",
  path: "/project-permissions/:user_id/:permission_id",
  summary: "Grant a project permission to a user (idempotent)",
  tags: ["Permissions"],
  access: SERVER,
  schemas: { params: ProjectGrantParams, body: Optional(Obj({})) },
  async handler({ auth, params, clients, req }) {
    checkPermissionIds("POST", req.url, [params.permission_id]);
    const userId = resolveUserId(auth, params.user_id);
    await clients.permissions.grantProjectPermission({ projectId: auth.projectId, caller: callerOf(auth), userId, permissionId: params.permission_id });
    return { status: 201, json: { id: params.permission_id, user_id: userId } };
  },
});

export const revokeProjectPermissionRoute = defineRoute({
  method: "DELETE",
  path: "/project-permissions/:user_id/:permission_id",
  summary: "Revoke a project permission the user holds directly",
  tags: ["Permissions"],
  access: SERVER,
  schemas: { params: ProjectGrantParams },
  async handler({ auth, params, clients, req }) {
    checkPermissionIds("DELETE", req.url, [params.permission_id]);
    const userId = resolveUserId(auth, params.user_id);
    await clients.permissions.revokeProjectPermission({ projectId: auth.projectId, caller: callerOf(auth), userId, permissionId: params.permission_id });
    return { json: { success: true } };
  },
});

// ---------------------------------------------------------------------------------------------------------------
// Definitions (admin). They live in the project configuration (GET /internal/config), written through the
// teams-permissions service, which validates them; the gateway's cached project is dropped after each write.

function definitionView(d: PermissionDefinition): Record<string, unknown> {
  return { id: d.id, ...(d.description !== undefined ? { description: d.description } : {}), contained_permission_ids: [...d.containedPermissionIds] };
}

const DefinitionCreate = Obj({
  id: Type.String(),
  description: Optional(Type.String()),
  contained_permission_ids: Optional(Type.Array(Type.String())),
});
const DefinitionUpdate = Obj({
  id: Optional(Type.String()),
  description: Optional(Type.String()),
  contained_permission_ids: Optional(Type.Array(Type.String())),
});
const DefinitionParams = Obj({ permission_id: Type.String() });

function definitionRoutes(kind: "team" | "project") {
  const scope = kind === "team" ? PermissionScope.TEAM : PermissionScope.PROJECT;
  const base = `/${kind}-permission-definitions`;
  const tags = ["Permission definitions (admin)"];
  return {
    list: defineRoute({
      method: "GET",
      path: base,
      summary: `List ${kind} permission definitions${kind === "team" ? " (the system $ permissions included)" : ""}`,
      tags,
      access: ["admin"],
      // The current SDK pages team definitions (limit, cursor = a definition id, query); without them, all at once.
      schemas: {
        query: Obj({
          limit: Optional(QueryInteger({ minimum: 1, maximum: 1000 })),
          cursor: Optional(Type.String({ maxLength: 255 })),
          query: Optional(Type.String({ maxLength: 255 })),
        }),
      },
      async handler({ auth, clients, query }) {
        const { definitions } = await clients.permissionDefinitions.listPermissionDefinitions({
          projectId: auth.projectId,
          scope,
          knownConfigVersion: auth.project.project.version,
        });
        if (query.limit === undefined && query.cursor === undefined && query.query === undefined) {
          return { json: { items: definitions.map(definitionView), is_paginated: false } };
        }
        const term = query.query?.toLowerCase();
        const matching = term ? definitions.filter((d) => d.id.toLowerCase().includes(term) || (d.description ?? "").toLowerCase().includes(term)) : definitions;
        const start = query.cursor === undefined ? 0 : matching.findIndex((d) => d.id === query.cursor);
        // An unknown cursor (a definition deleted between two pages) ends the listing.
        const rest = start < 0 ? [] : matching.slice(start);
        const page = query.limit === undefined ? rest : rest.slice(0, query.limit);
        const next = query.limit !== undefined && rest.length > query.limit ? rest[query.limit]!.id : null;
        return { json: { items: page.map(definitionView), is_paginated: true, pagination: { next_cursor: next } } };
      },
    }),
    create: defineRoute({
      method: "POST",
      path: base,
      summary: `Create a ${kind} permission definition`,
      tags,
      access: ["admin"],
      schemas: { body: DefinitionCreate },
      async handler({ auth, body, clients, projects, req }) {
        checkPermissionIds("POST", req.url, [body.id], definitionIdProblem);
        checkPermissionIds("POST", req.url, body.contained_permission_ids ?? []);
        const { definition } = await clients.permissionDefinitions.createPermissionDefinition({
          projectId: auth.projectId,
          scope,
          id: body.id,
          description: body.description,
          containedPermissionIds: body.contained_permission_ids ?? [],
        });
        projects.invalidate(auth.projectId);
        return { status: 201, json: definitionView(definition!) };
      },
    }),
    update: defineRoute({
      method: "PATCH",
      path: `${base}/:permission_id`,
      summary: `Change a ${kind} permission definition; a new id renames it in grants, definitions and default lists`,
      tags,
      access: ["admin"],
      schemas: { params: DefinitionParams, body: DefinitionUpdate },
      async handler({ auth, params, body, clients, projects, req }) {
        checkPermissionIds("PATCH", req.url, [params.permission_id]);
        checkPermissionIds("PATCH", req.url, [body.id], definitionIdProblem);
        checkPermissionIds("PATCH", req.url, body.contained_permission_ids ?? []);
        const { definition } = await clients.permissionDefinitions.updatePermissionDefinition({
          projectId: auth.projectId,
          scope,
          permissionId: params.permission_id,
          newId: body.id,
          description: body.description,
          updateContainedPermissionIds: body.contained_permission_ids !== undefined,
          containedPermissionIds: body.contained_permission_ids ?? [],
        });
        projects.invalidate(auth.projectId);
        return { json: definitionView(definition!) };
      },
    }),
    delete: defineRoute({
      method: "DELETE",
      path: `${base}/:permission_id`,
      summary: `Delete a ${kind} permission definition with its grants`,
      tags,
      access: ["admin"],
      schemas: { params: DefinitionParams },
      async handler({ auth, params, clients, projects, req }) {
        checkPermissionIds("DELETE", req.url, [params.permission_id]);
        await clients.permissionDefinitions.deletePermissionDefinition({ projectId: auth.projectId, scope, permissionId: params.permission_id });
        projects.invalidate(auth.projectId);
        return { json: { success: true } };
      },
    }),
  };
}

const team = definitionRoutes("team");
const project = definitionRoutes("project");

export const listTeamPermissionDefinitionsRoute = team.list;
export const createTeamPermissionDefinitionRoute = team.create;
export const updateTeamPermissionDefinitionRoute = team.update;
export const deleteTeamPermissionDefinitionRoute = team.delete;
export const listProjectPermissionDefinitionsRoute = project.list;
export const createProjectPermissionDefinitionRoute = project.create;
export const updateProjectPermissionDefinitionRoute = project.update;
export const deleteProjectPermissionDefinitionRoute = project.delete;
