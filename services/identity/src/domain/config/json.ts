/** JSON helpers shared by the config modules. */

import type { ConfigObject, ConfigValue, OverrideInput } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------------------------------------------

export function isPlainObject(value: unknown): value is ConfigObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deep copy of JSON-like data; `undefined` properties are dropped. */
export function cloneJson(value: unknown): ConfigValue {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v));
  if (typeof value === "object" && value !== null) {
    const out: ConfigObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = cloneJson(v);
    return out;
  }
  return value as ConfigValue;
}

export const depth = (key: string): number => key.split(".").length;

/** Entries sorted by path depth (fewer dots first), stable; `undefined` values skipped. */
export function entriesByDepth(o: OverrideInput): [string, ConfigValue][] {
  return Object.entries(o)
    .filter((e): e is [string, ConfigValue] => e[1] !== undefined)
    .map((e, i) => ({ e, i }))
    .sort((a, b) => depth(a.e[0]) - depth(b.e[0]) || a.i - b.i)
    .map(({ e }) => e);
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}
