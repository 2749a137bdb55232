/**
 * The published backend's answers to a bad config override document (issue 13): "Invalid config JSON" for text that
 * does not parse, `[ERROR] The key "x" is not valid for the schema.` for a key that names no config path (reported as
 * given), and the first other problem as `[ERROR] <problem>`.
 */
import { isStatusError, statusError } from "@vestibule/shared/errors";
import { validateOverride, type ConfigOverride } from "./domain/config/index.ts";
import { PROBLEM_SEPARATOR } from "./project-checks.ts";

const CONFIG_PROBLEMS = "Invalid project configuration: ";

/** Parses an override document; an empty text is `{}`. */
export function parseOverrideDocument(json: string): ConfigOverride {
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw statusError(400, "Invalid config JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw statusError(400, "[ERROR] Config override must be a JSON object.");
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const unknown = validateOverride({ [key]: value })
      .map((p) => /^Unknown config key: (.*)$/.exec(p)?.[1])
      .find((k) => k !== undefined);
    if (unknown !== undefined && (key === unknown || key.startsWith(`${unknown}.`))) {
      throw statusError(400, `[ERROR] The key ${JSON.stringify(key)} is not valid for the schema.`);
    }
  }
  return parsed as ConfigOverride;
}

/** Runs a write; a config check's "Invalid project configuration: a\nb" becomes `[ERROR] a`. */
export async function withOverrideWording<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isStatusError(err) && err.httpStatus === 400 && err.message.startsWith(CONFIG_PROBLEMS)) {
      const first = err.message.slice(CONFIG_PROBLEMS.length).split(PROBLEM_SEPARATOR)[0]!;
      const unknown = /^Unknown config key: (.*)$/.exec(first);
      throw statusError(400, unknown ? `[ERROR] The key ${JSON.stringify(unknown[1])} is not valid for the schema.` : `[ERROR] ${first}`);
    }
    throw err;
  }
}
