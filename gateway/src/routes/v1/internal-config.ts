import { Type } from "typebox";
import { ConfigLevel } from "@vestibule/proto/identity/v1/project_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import { Obj, OneOf, Optional } from "../../validation/index.ts";
import type { RequestAuth } from "../../auth/request-auth.ts";
import { defineRoute } from "../route.ts";

/**
 * Config by level (latest-sdk.md D): `/internal/config/override/{project|branch|environment}` and
 * `/internal/config/source`. Levels render in the order defaults < project < branch < environment; the seed-era
 * `PATCH /internal/config/override` (internal-projects.ts) writes the environment level. Admin access for every
 * level; server access for `branch` only (a server key may push a branch config, as the current backend allows).
 */

const LEVELS = ["project", "branch", "environment"] as const;
type Level = (typeof LEVELS)[number];
const LEVEL: Record<Level, ConfigLevel> = {
  project: ConfigLevel.PROJECT,
  branch: ConfigLevel.BRANCH,
  environment: ConfigLevel.ENVIRONMENT,
};

const LevelParams = Obj({ level: OneOf(LEVELS, { description: "The config level: project < branch < environment." }) });

/** Where a pushed branch config came from (stack-shared's branchConfigSourceSchema). */
const BranchConfigSource = Type.Union([
  Obj({
    type: OneOf(["pushed-from-github"]),
    owner: Type.String(),
    repo: Type.String(),
    branch: Type.String(),
    commit_hash: Type.String(),
    config_file_path: Type.String(),
    workflow_path: Optional(Type.String()),
  }),
  Obj({ type: OneOf(["pushed-from-unknown"]) }),
  Obj({ type: OneOf(["unlinked"]) }),
]);

/** Server keys may only touch the branch level; admin may touch all (checked by the gateway after validation). */
const LEVEL_ACCESS = { param: "level", access: { project: ["admin"], environment: ["admin"] } } as const;

/** A JSON object string, or the contract's 400 text. */
function jsonObjectString(value: string, field: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw statusError(400, `${field} is not valid JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw statusError(400, `${field} must be a JSON object`);
}

export const getConfigOverrideRoute = defineRoute({
  method: "GET",
  path: "/internal/config/override/:level",
  summary: "One config level's override document",
  tags: ["Config (admin)"],
  access: ["server", "admin"],
  accessByParam: LEVEL_ACCESS,
  schemas: { params: LevelParams },
  async handler({ auth, params, clients }) {
    const { configOverrideJson } = await clients.projects.getConfigOverride({ projectId: auth.projectId, level: LEVEL[params.level] });
    return { json: { config_string: configOverrideJson } };
  },
});

export const setConfigOverrideRoute = defineRoute({
  method: "PUT",
  path: "/internal/config/override/:level",
  summary: "Replace one config level's override document (branch: optionally with where it was pushed from)",
  tags: ["Config (admin)"],
  access: ["server", "admin"],
  accessByParam: LEVEL_ACCESS,
  schemas: {
    params: LevelParams,
    body: Obj({ config_string: Type.String(), source: Optional(BranchConfigSource) }),
  },
  async handler({ auth, params, body, clients, projects }) {
    jsonObjectString(body.config_string, "config_string");
    const { project } = await clients.projects.setConfigOverride({
      projectId: auth.projectId,
      level: LEVEL[params.level],
      configOverrideJson: body.config_string,
      sourceJson: body.source ? JSON.stringify(body.source) : "",
    });
    projects.put(project!);
    return { json: {} };
  },
});

export const updateLevelConfigOverrideRoute = defineRoute({
  method: "PATCH",
  path: "/internal/config/override/:level",
  summary: "Deep-merge an override into one config level",
  tags: ["Config (admin)"],
  access: ["server", "admin"],
  accessByParam: LEVEL_ACCESS,
  schemas: { params: LevelParams, body: Obj({ config_override_string: Optional(Type.String()) }) },
  async handler({ auth, params, body, clients, projects }) {
    if (body.config_override_string === undefined) return { json: {} };
    jsonObjectString(body.config_override_string, "config_override_string");
    const { project } = await clients.projects.updateConfigOverride({
      projectId: auth.projectId,
      level: LEVEL[params.level],
      configOverrideJson: body.config_override_string,
    });
    projects.put(project!);
    return { json: {} };
  },
});

export const resetConfigOverrideKeysRoute = defineRoute({
  method: "POST",
  path: "/internal/config/override/:level/reset-keys",
  summary: "Remove keys (and everything below them) from one config level",
  tags: ["Config (admin)"],
  access: ["server", "admin"],
  accessByParam: LEVEL_ACCESS,
  schemas: { params: LevelParams, body: Obj({ keys: Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000 }) }) },
  async handler({ auth, params, body, clients, projects }) {
    const { project } = await clients.projects.resetConfigOverrideKeys({ projectId: auth.projectId, level: LEVEL[params.level], keys: body.keys });
    projects.put(project!);
    return { json: {} };
  },
});

export const getConfigSourceRoute = defineRoute({
  method: "GET",
  path: "/internal/config/source",
  summary: "Where the branch config was pushed from",
  tags: ["Config (admin)"],
  access: ["admin"],
  schemas: {},
  async handler({ auth, clients }) {
    const { sourceJson } = await clients.projects.getConfigSource({ projectId: auth.projectId });
    return { json: { source: JSON.parse(sourceJson) as unknown } };
  },
});

export const unlinkConfigSourceRoute = defineRoute({
  method: "DELETE",
  path: "/internal/config/source",
  summary: "Unlink the branch config from where it was pushed from (the config stays)",
  tags: ["Config (admin)"],
  access: ["admin"],
  schemas: {},
  async handler({ auth, clients, projects }) {
    const { project } = await clients.projects.unlinkConfigSource({ projectId: auth.projectId });
    projects.put(project!);
    return { json: {} };
  },
});
