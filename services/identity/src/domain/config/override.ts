/** Applying, merging and flattening override documents (semantics in `index.ts`). */

import { cloneJson, depth, entriesByDepth, isPlainObject } from "./json.ts";
import type { ConfigObject, ConfigOverride, ConfigValue, OverrideInput } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Applying and merging overrides
// ---------------------------------------------------------------------------------------------------------------

/** Writes one override entry onto a config object in place (render-time application). */
function applyAt(target: ConfigObject, segments: readonly string[], value: ConfigValue): void {
  let current = target;
  for (const segment of segments.slice(0, -1)) {
    const next = current[segment];
    if (isPlainObject(next)) {
      current = next;
    } else {
      if (value === null) return; // deleting below something that does not exist: nothing to do
      const created: ConfigObject = {};
      current[segment] = created;
      current = created;
    }
  }
  const last = segments[segments.length - 1]!;
  if (value === null) {
    delete current[last];
  } else if (isPlainObject(value)) {
    let existing = current[last];
    if (!isPlainObject(existing)) {
      existing = {};
      current[last] = existing;
    }
    for (const [k, v] of entriesByDepth(value)) applyAt(existing, k.split("."), v);
  } else {
    current[last] = cloneJson(value);
  }
}

/** A copy of `base` with the override written onto it; nulls delete and leave nothing behind. */
export function renderOnto(base: object, override: OverrideInput): ConfigObject {
  const result = cloneJson(base);
  const target: ConfigObject = isPlainObject(result) ? result : {};
  for (const [key, value] of entriesByDepth(override)) applyAt(target, key.split("."), value);
  return target;
}

/** Puts one leaf (full dotted path) into a flat override, keeping the flat form's meaning. */
function putLeaf(flat: ConfigObject, path: string, value: ConfigValue): void {
  // An ancestor holding a plain value would be replaced by an object anyway: drop it. A null ancestor stays
  // (it means "replace the ancestor", and this leaf becomes part of the replacement).
  const segments = path.split(".");
  for (let i = 1; i < segments.length; i++) {
    const ancestor = segments.slice(0, i).join(".");
    if (ancestor in flat && flat[ancestor] !== null) delete flat[ancestor];
  }
  const prefix = `${path}.`;
  if (isPlainObject(value)) {
    // An empty object only makes sure the path exists; it changes nothing that is already there.
    if (!(path in flat) && !Object.keys(flat).some((k) => k.startsWith(prefix))) flat[path] = {};
    return;
  }
  for (const k of Object.keys(flat)) if (k.startsWith(prefix)) delete flat[k];
  delete flat[path];
  flat[path] = cloneJson(value);
}

function flattenInto(flat: ConfigObject, prefix: string, o: OverrideInput): void {
  for (const [key, value] of entriesByDepth(o)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (isPlainObject(value) && Object.keys(value).length > 0) flattenInto(flat, path, value);
    else putLeaf(flat, path, value);
  }
}

/**
 * The flat form of an override: every key is a full dotted path to a leaf (a string, number, boolean, array,
 * `null` or `{}`), in the order the leaves were written. Renders exactly like the input.
 */
export function flattenOverride(override: OverrideInput): ConfigOverride {
  const flat: ConfigObject = {};
  flattenInto(flat, "", override);
  return flat;
}

/**
 * Nests a flat override back into objects. Below a `null` marker the leaves stay dotted keys of the marker's parent
 * (`{teamCreator: null, "teamCreator.foo": true}`), because one JSON key cannot hold both the deletion and the
 * new content.
 */
function nestFlat(flat: ConfigObject): ConfigObject {
  const markers = Object.keys(flat)
    .filter((k) => flat[k] === null)
    .sort((a, b) => depth(a) - depth(b));
  const out: ConfigObject = {};
  for (const [key, value] of Object.entries(flat)) {
    const segments = key.split(".");
    const marker = markers.find((m) => key === m || key.startsWith(`${m}.`));
    const parentLength = marker === undefined ? segments.length - 1 : depth(marker) - 1;
    let target = out;
    for (const segment of segments.slice(0, parentLength)) {
      const next = target[segment];
      if (isPlainObject(next)) {
        target = next;
      } else {
        const created: ConfigObject = {};
        target[segment] = created;
        target = created;
      }
    }
    target[segments.slice(parentLength).join(".")] = cloneJson(value);
  }
  return out;
}

/**
 * Folds an override into a base (a stored override document, or any config object) and returns the new document;
 * neither input is modified. Semantics (see the module comment): plain objects deep-merge, other values replace,
 * `null` deletes, shallower paths apply first, dotted and nested keys mean the same. The result is itself an
 * override: rendering it equals rendering `base` and then `override` on top, which is why a `null` from the
 * override stays in the result as a marker (it still has to delete the default when rendering):
 *   applyOverride({a: {b: 1}}, {"a.c": 2})          -> {a: {b: 1, c: 2}}
 *   applyOverride({a: {b: 1}}, {"a.b": null})       -> {a: {b: null}}
 *   applyOverride({r: {x: true}}, {r: null, "r.y": true}) -> {r: null, "r.y": true}   (r replaced by {y: true})
 */
export function applyOverride(base: OverrideInput, override: OverrideInput): ConfigObject {
  const flat: ConfigObject = {};
  flattenInto(flat, "", base);
  flattenInto(flat, "", override);
  return nestFlat(flat);
}

/**
 * Same function as `applyOverride`, under the name that reads better at call sites folding a patch into the stored
 * document: `doc = mergeOverrides(doc, patch)`.
 */
export const mergeOverrides: (stored: OverrideInput, patch: OverrideInput) => ConfigObject = applyOverride;

/**
 * A copy of an override document without the given keys: each key (a dotted path) is removed with everything
 * below it, however it was written (nested or dotted). What the document said elsewhere stays, so rendering falls
 * back to the lower levels (or the defaults) at those paths. `POST /internal/config/override/{level}/reset-keys`.
 */
export function resetOverrideKeys(doc: OverrideInput, keys: readonly string[]): ConfigObject {
  const flat = flattenOverride(doc);
  for (const path of Object.keys(flat)) {
    if (keys.some((key) => path === key || path.startsWith(`${key}.`))) delete flat[path];
  }
  return nestFlat(flat);
}
