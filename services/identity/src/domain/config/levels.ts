/**
 * Config levels. A project keeps one override document per level; rendering applies them in order on the
 * defaults: defaults < project < branch < environment (a later level wins at the same path, and its `null`
 * deletes what a lower level set). The seed-era `PATCH /internal/config/override`, `PATCH
 * /internal/projects/current` `config` and `POST /internal/projects` `config` write the environment level.
 */

import { applyOverride } from "./override.ts";
import { renderConfig } from "./render.ts";
import type { RenderedConfig } from "./rendered.ts";
import type { ConfigObject, OverrideInput } from "./types.ts";

export const CONFIG_LEVELS = ["project", "branch", "environment"] as const;
export type ConfigLevel = (typeof CONFIG_LEVELS)[number];

/** The override documents of a project, one per level. */
export interface ConfigLevels<T extends OverrideInput = OverrideInput> {
  readonly project: T;
  readonly branch: T;
  readonly environment: T;
}

/** One document that renders like the three levels applied in order. */
export function mergeLevels(levels: ConfigLevels): ConfigObject {
  return applyOverride(applyOverride(levels.project, levels.branch), levels.environment);
}

/** The rendered config of a project with these level documents. */
export function renderLevels(levels: ConfigLevels): RenderedConfig {
  return renderConfig(mergeLevels(levels));
}

/** Where a branch config came from (`GET /internal/config/source`), in the contract's snake_case shape. */
export type BranchConfigSource =
  | {
      type: "pushed-from-github";
      owner: string;
      repo: string;
      branch: string;
      commit_hash: string;
      config_file_path: string;
      workflow_path?: string;
    }
  | { type: "pushed-from-unknown" }
  | { type: "unlinked" };

const GITHUB_FIELDS = ["owner", "repo", "branch", "commit_hash", "config_file_path"] as const;

/** Problems of a `source` body field (empty when it is a valid branch config source). */
export function branchConfigSourceProblems(source: unknown, path = "body.source"): string[] {
  if (typeof source !== "object" || source === null || Array.isArray(source)) return [`${path} must be an object`];
  const o = source as Record<string, unknown>;
  if (o.type === "pushed-from-unknown" || o.type === "unlinked") {
    const extra = Object.keys(o).filter((k) => k !== "type");
    return extra.length > 0 ? [`${path} contains unknown properties: ${extra.join(", ")}`] : [];
  }
  if (o.type !== "pushed-from-github") {
    return [`${path}.type must be one of the following values: pushed-from-github, pushed-from-unknown, unlinked`];
  }
  const problems: string[] = [];
  for (const field of GITHUB_FIELDS) {
    if (typeof o[field] !== "string") problems.push(`${path}.${field} must be defined`);
  }
  if (o.workflow_path !== undefined && typeof o.workflow_path !== "string") problems.push(`${path}.workflow_path must be a string`);
  const extra = Object.keys(o).filter((k) => k !== "type" && k !== "workflow_path" && !(GITHUB_FIELDS as readonly string[]).includes(k));
  if (extra.length > 0) problems.push(`${path} contains unknown properties: ${extra.join(", ")}`);
  return problems;
}
