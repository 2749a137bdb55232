/** Validation of override documents against the schema. */

import { describe, isPlainObject } from "./json.ts";
import { SCHEMA, type SchemaNode } from "./schema.ts";
import type { ConfigOverride, ConfigValue } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------------

const KEY_SEGMENT = /^[A-Za-z0-9_$:][A-Za-z0-9_$:-]*$/;

function validateValue(node: SchemaNode, value: ConfigValue, path: string, problems: string[]): void {
  if (value === null) return; // null deletes; allowed everywhere
  switch (node.kind) {
    case "boolean":
      if (typeof value !== "boolean") problems.push(`${path} must be a boolean, but got ${describe(value)}`);
      return;
    case "string":
      if (typeof value !== "string") {
        problems.push(`${path} must be a string, but got ${describe(value)}`);
      } else if (node.oneOf && !node.oneOf.includes(value)) {
        problems.push(`${path} must be one of ${node.oneOf.join(", ")}, but got ${JSON.stringify(value)}`);
      } else if (node.check) {
        const problem = node.check(value);
        if (problem) problems.push(`${path}: ${problem}`);
      }
      return;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) {
        problems.push(`${path} must be an integer, but got ${describe(value)}`);
      } else if (node.min !== undefined && value < node.min) {
        problems.push(`${path} must be at least ${node.min}, but got ${value}`);
      } else if (node.max !== undefined && value > node.max) {
        problems.push(`${path} must be at most ${node.max}, but got ${value}`);
      }
      return;
    case "true":
      if (value !== true) problems.push(`${path} must be true (use null to remove it), but got ${describe(value)}`);
      return;
    case "json":
      return;
    case "object":
    case "record":
      if (!isPlainObject(value)) {
        problems.push(`${path} must be an object, but got ${describe(value)}`);
        return;
      }
      for (const [key, v] of Object.entries(value)) validateKey(node, path, key, v, problems);
      return;
  }
}

/** Validates `value` written at the (possibly dotted) `key` below `node`, whose own path is `basePath`. */
function validateKey(node: SchemaNode, basePath: string, key: string, value: ConfigValue, problems: string[]): void {
  const segments = key.split(".");
  const fullPath = basePath === "" ? key : `${basePath}.${key}`;
  if (segments.some((s) => !KEY_SEGMENT.test(s))) {
    problems.push(
      `Invalid config key ${JSON.stringify(fullPath)}: each dot-separated part must be non-empty and consist of letters, digits, "_", "$", ":" or "-" (not starting with "-")`,
    );
    return;
  }
  let current = node;
  let path = basePath;
  for (const segment of segments) {
    path = path === "" ? segment : `${path}.${segment}`;
    if (current.kind === "object") {
      const field = current.fields[segment];
      if (field) {
        current = field;
      } else if (current.open) {
        return; // free-form area: anything goes below
      } else {
        problems.push(`Unknown config key: ${path}`);
        return;
      }
    } else if (current.kind === "record") {
      if (current.keyPattern && !current.keyPattern.test(segment)) {
        problems.push(`Invalid id ${JSON.stringify(segment)} in ${path}`);
        return;
      }
      current = current.entry;
    } else if (current.kind === "json") {
      return;
    } else {
      problems.push(`${path.slice(0, path.length - segment.length - 1)} is not an object, so it has no key ${JSON.stringify(segment)}`);
      return;
    }
  }
  validateValue(current, value, fullPath, problems);
}

/**
 * Human-readable problems of an override (empty when it is acceptable): not an object, malformed keys, unknown
 * keys (anything is allowed below the free-form parts of `payments`, `dataVault` and e-mail theme/template entries),
 * and values of the wrong type at known keys (including enum values, integer ranges, trusted-domain URLs, handler
 * paths, permission ids). `null` is accepted anywhere (it deletes).
 */
export function validateOverride(override: unknown): string[] {
  if (!isPlainObject(override)) return ["Config override must be a JSON object"];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    validateKey(SCHEMA, "", key, value as ConfigValue, problems);
  }
  return problems;
}

/**
 * Parses a `config_override_string` (`PATCH /internal/config/override`). On success `problems` is empty; otherwise
 * it says why ("is not valid JSON", or `validateOverride`'s problems).
 */
export function parseConfigOverride(json: string): { override: ConfigOverride; problems: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { override: {}, problems: ["config_override_string is not valid JSON"] };
  }
  const problems = validateOverride(parsed);
  return { override: problems.length === 0 ? (parsed as ConfigOverride) : {}, problems };
}
