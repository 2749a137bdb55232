/** Rendering: defaults with the override applied, completed to the schema's shape. */

import { cloneJson, isPlainObject } from "./json.ts";
import { renderOnto } from "./override.ts";
import { defaultRenderedConfig, type RenderedConfig } from "./rendered.ts";
import { SCHEMA, type SchemaNode } from "./schema.ts";
import type { ConfigObject, ConfigValue, OverrideInput } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------------------------

/** Brings a merged value back to the schema's shape: fills defaults, drops wrong-typed and unknown values. */
function complete(node: SchemaNode, value: unknown, fallback: unknown): ConfigValue | undefined {
  switch (node.kind) {
    case "boolean":
      return typeof value === "boolean" ? value : (fallback as ConfigValue | undefined);
    case "string":
      // `check` is deliberately not applied: an invalid trusted domain must still render so that the
      // production-mode checks can report it.
      if (typeof value === "string" && (!node.oneOf || node.oneOf.includes(value))) return value;
      return fallback as ConfigValue | undefined;
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? value : (fallback as ConfigValue | undefined);
    case "true":
      return value === true ? true : undefined;
    case "json":
      return value === undefined ? (fallback as ConfigValue | undefined) : cloneJson(value);
    case "object": {
      const source = isPlainObject(value) ? value : {};
      const defaults = isPlainObject(fallback) ? fallback : {};
      const out: ConfigObject = {};
      for (const [field, fieldNode] of Object.entries(node.fields)) {
        const v = complete(fieldNode, source[field], defaults[field]);
        if (v !== undefined) out[field] = v;
      }
      if (node.open) {
        for (const [k, v] of Object.entries(source)) if (!(k in node.fields) && v !== null) out[k] = cloneJson(v);
      }
      return out;
    }
    case "record": {
      // A collection that was deleted (null) is empty; it does not come back from the defaults.
      const source = isPlainObject(value) ? value : {};
      const out: ConfigObject = {};
      for (const [id, entry] of Object.entries(source)) {
        if (node.entry.kind === "object" && !isPlainObject(entry)) continue;
        const v = complete(node.entry, entry, node.entryDefaults);
        if (v !== undefined) out[id] = v;
      }
      return out;
    }
  }
}

/**
 * The rendered config of a project: `defaultRenderedConfig()` with the override document applied, then completed
 * (missing required settings back to their defaults, missing collection entries' fields filled with per-entry
 * defaults: trusted domain `handlerPath` "/handler", OAuth provider `isShared` true and `allowSignIn` /
 * `allowConnectedAccounts` false, permission `containedPermissionIds` {}), unknown keys outside `payments` and
 * `dataVault` (and the entries of e-mail themes/templates) dropped. `JSON.stringify` of it is `config_string`.
 */
export function renderConfig(overrideDoc: OverrideInput): RenderedConfig {
  const defaults = defaultRenderedConfig();
  const merged = renderOnto(defaults, overrideDoc);
  return complete(SCHEMA, merged, cloneJson(defaults)) as unknown as RenderedConfig;
}
