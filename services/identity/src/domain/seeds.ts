import { flattenOverride, type ConfigOverride } from "./config/index.ts";

/** The definition a seed key belongs to: `rbac.permissions.<id>` (the first three segments). */
function definitionRoot(path: string): string {
  return path.split(".").slice(0, 3).join(".");
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/**
 * The part of a permission-definition seed (flat keys under `rbac.permissions.<id>`) that a stored override has never
 * spoken about: a definition is left out as soon as the override has any key at it or below it (the operator defined,
 * changed or deleted it), or a key above it that replaces or deletes it (`rbac.permissions: null`, `rbac: {...}` with
 * content). An empty object above it only makes sure the path exists and does not count. Pure.
 */
export function untouchedSeed(override: ConfigOverride, seed: ConfigOverride): ConfigOverride {
  const flat = Object.entries(flattenOverride(override));
  const out: ConfigOverride = {};
  for (const [key, value] of Object.entries(seed)) {
    const root = definitionRoot(key);
    const touched = flat.some(([k, v]) => k === root || k.startsWith(`${root}.`) || (root.startsWith(`${k}.`) && !isEmptyObject(v)));
    if (!touched) out[key] = value;
  }
  return out;
}
