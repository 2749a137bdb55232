import type { ServiceImpl } from "@connectrpc/connect";
import { ConfigLevel, type ProjectService } from "@vestibule/proto/identity/v1/project_service";
import type { Project } from "@vestibule/proto/identity/v1/project";
import { withTransaction, type Queryable } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { ServiceContext } from "@vestibule/shared/service";
import {
  branchConfigSourceProblems,
  mergeOverrides,
  resetOverrideKeys,
  type ConfigLevels,
  type ConfigOverride,
} from "./domain/config/index.ts";
import { IdentityEvents } from "./events.ts";
import { openLevels, sealSecrets } from "./project-secrets.ts";
import { checkLevels, isProjectId, parseJsonObject } from "./project-checks.ts";
import { parseOverrideDocument, withOverrideWording } from "./override-wording.ts";
import { projectStore, type ProjectRow } from "./store/project-store.ts";

type LevelName = keyof ConfigLevels;

/** The level a request names; unspecified = environment (the seed-era unlevelled route). */
function levelName(level: ConfigLevel): LevelName {
  switch (level) {
    case ConfigLevel.PROJECT:
      return "project";
    case ConfigLevel.BRANCH:
      return "branch";
    default:
      return "environment";
  }
}

/** The row column holding a level's document. */
const COLUMN = {
  project: "project_config_override",
  branch: "branch_config_override",
  environment: "config_override",
} as const satisfies Record<LevelName, keyof ProjectRow>;

const UNLINKED = { type: "unlinked" } as const;

type ConfigRpcs = Pick<
  ServiceImpl<typeof ProjectService>,
  "updateConfigOverride" | "getConfigOverride" | "setConfigOverride" | "resetConfigOverrideKeys" | "getConfigSource" | "unlinkConfigSource"
>;

/** The ProjectService RPCs about config levels (`/internal/config/override[/{level}]`, `/internal/config/source`). */
export function createConfigOverrideRpcs(
  ctx: ServiceContext,
  messages: { toMessage(row: ProjectRow): Promise<Project>; eventMessage(row: ProjectRow): Project },
): ConfigRpcs {
  const { pool, outbox, secrets } = ctx;

  async function load(db: Queryable, projectId: string, forUpdate: boolean): Promise<ProjectRow> {
    const row = isProjectId(projectId) ? await projectStore.get(db, projectId, forUpdate) : undefined;
    if (!row) throw knownError("PROJECT_NOT_FOUND", { project_id: projectId });
    return row;
  }

  /**
   * Replaces one level's document with `next(current levels)` (checked against the schema and the rendered
   * result), optionally changing the branch source, and publishes identity.project.updated.v1.
   */
  async function writeLevel(
    projectId: string,
    level: LevelName,
    next: (levels: ConfigLevels<ConfigOverride>) => ConfigOverride,
    source?: Record<string, unknown> | null,
  ): Promise<Project> {
    return withTransaction(pool, async (tx) => {
      const row = await load(tx, projectId, true);
      const levels = await openLevels(secrets, row);
      const doc = next(levels);
      checkLevels({ ...levels, [level]: doc }, doc, levels);
      const updated = await projectStore.update(tx, {
        ...row,
        [COLUMN[level]]: await sealSecrets(secrets, row.id, doc),
        branch_config_source: source === undefined ? row.branch_config_source : source,
      });
      await outbox.enqueue(tx, IdentityEvents.projectUpdated, { project: messages.eventMessage(updated) }, { projectId: row.id });
      return messages.toMessage(updated);
    });
  }

  return {
    async updateConfigOverride(req) {
      const patch = parseOverrideDocument(req.configOverrideJson);
      const level = levelName(req.level);
      return { project: await withOverrideWording(writeLevel(req.projectId, level, (levels) => mergeOverrides(levels[level], patch))) };
    },

    async getConfigOverride(req) {
      const row = await load(pool, req.projectId, false);
      const levels = await openLevels(secrets, row);
      return { configOverrideJson: JSON.stringify(levels[levelName(req.level)]) };
    },

    async setConfigOverride(req) {
      const doc = parseJsonObject(req.configOverrideJson, "config_string") as ConfigOverride;
      const level = levelName(req.level);
      let source: Record<string, unknown> | undefined;
      if (req.sourceJson && level === "branch") {
        source = parseJsonObject(req.sourceJson, "source");
        const problems = branchConfigSourceProblems(source);
        if (problems.length > 0) throw statusError(400, `Invalid config source: ${problems.join("; ")}`);
      }
      return { project: await writeLevel(req.projectId, level, () => doc, source) };
    },

    async resetConfigOverrideKeys(req) {
      const level = levelName(req.level);
      return { project: await writeLevel(req.projectId, level, (levels) => resetOverrideKeys(levels[level], req.keys)) };
    },

    async getConfigSource(req) {
      const row = await load(pool, req.projectId, false);
      return { sourceJson: JSON.stringify(row.branch_config_source ?? UNLINKED) };
    },

    async unlinkConfigSource(req) {
      return { project: await writeLevel(req.projectId, "branch", (levels) => levels.branch, null) };
    },
  };
}
