import { statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { paymentsConfigProblems } from "@vestibule/shared/payments";
import {
  renderLevels,
  validateAdminConfigUpdate,
  validateOverride,
  type AdminConfigUpdate,
  type ConfigLevels,
  type ConfigOverride,
} from "./domain/config/index.ts";
import { trustedDomainProblem } from "./domain/domains.ts";

/**
 * Between the problems of "Invalid project configuration: ..." (one per line: a problem's own text may contain "; ",
 * as the spec's "Too many decimals; USD only has 2 decimals" does). The gateway and override-wording.ts split on it.
 */
export const PROBLEM_SEPARATOR = "\n";

/** Project ids are `internal` or a UUID; anything else cannot exist. */
export function isProjectId(id: string): boolean {
  return id === "internal" || isUuid(id);
}

export function parseJsonObject(json: string, what: string): Record<string, unknown> {
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw statusError(400, `${what} is not valid JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw statusError(400, `${what} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** Parses and checks the contract's admin `config` update object; problems are a 400 listing them all. */
export function parseAdminConfigUpdate(json: string): AdminConfigUpdate {
  const update = parseJsonObject(json, "config");
  const problems = validateAdminConfigUpdate(update);
  if (problems.length > 0) throw statusError(400, `Invalid project configuration: ${problems.join(PROBLEM_SEPARATOR)}`);
  return update as AdminConfigUpdate;
}

/**
 * Checks a project's config levels after one of them changed (`changed`, the new document of that level): the
 * document against the schema, the trusted domains of the rendered result, and its `payments` section (ids, prices
 * and money amounts, included items that exist: the spec's payments rules, shared with billing). Any problem is a 400
 * with every message, and nothing is stored. With `before` (the levels before the change), payments problems the
 * project already had are not held against an unrelated change: only new ones refuse it.
 */
export function checkLevels(levels: ConfigLevels<ConfigOverride>, changed: ConfigOverride, before?: ConfigLevels<ConfigOverride>): void {
  const problems = [...validateOverride(changed)];
  if (problems.length > 0) throw statusError(400, `Invalid project configuration: ${problems.join(PROBLEM_SEPARATOR)}`);
  const rendered = renderLevels(levels);
  const known = new Set(before ? paymentsConfigProblems(renderLevels(before).payments) : []);
  problems.push(...paymentsConfigProblems(rendered.payments).filter((p) => !known.has(p)));
  const trusted = rendered.domains.trustedDomains as Record<string, { baseUrl?: string }>;
  for (const d of Object.values(trusted)) {
    const problem = d?.baseUrl !== undefined ? trustedDomainProblem(d.baseUrl) : null;
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw statusError(400, `Invalid project configuration: ${problems.join(PROBLEM_SEPARATOR)}`);
}
