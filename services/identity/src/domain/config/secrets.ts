/** Secret leaves of the config (encrypted at rest, left out of events). */

import { cloneJson, isPlainObject } from "./json.ts";
import type { RenderedConfig } from "./rendered.ts";
import type { ConfigObject, ConfigOverride, OverrideInput } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------------------------------

/** Config leaves that hold secrets (`*` = any id). The store encrypts these leaves of the override at rest. */
export const secretConfigPaths: readonly string[] = ["auth.oauth.providers.*.clientSecret", "emails.server.password"];

/** True when a full dotted path names a secret leaf. */
export function isSecretConfigPath(path: string): boolean {
  const segments = path.split(".");
  return secretConfigPaths.some((pattern) => {
    const parts = pattern.split(".");
    return parts.length === segments.length && parts.every((p, i) => p === "*" || p === segments[i]);
  });
}

function mapLeaves(o: OverrideInput, prefix: string, visit: (value: string, path: string) => string): ConfigObject {
  const out: ConfigObject = {};
  for (const [key, value] of Object.entries(o)) {
    if (value === undefined) continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (typeof value === "string" && isSecretConfigPath(path)) out[key] = visit(value, path);
    else if (isPlainObject(value)) out[key] = mapLeaves(value, path, visit);
    else out[key] = cloneJson(value);
  }
  return out;
}

/**
 * Every secret leaf of an override document or rendered config, wherever it is written (nested or dotted keys),
 * with its full dotted path (e.g. "auth.oauth.providers.github.clientSecret").
 */
export function listSecretLeaves(doc: OverrideInput | RenderedConfig): { path: string; value: string }[] {
  const found: { path: string; value: string }[] = [];
  mapLeaves(doc as OverrideInput, "", (value, path) => {
    found.push({ path, value });
    return value;
  });
  return found;
}

/** A copy of the document with every secret leaf replaced by `fn(value, path)` (e.g. encrypt or decrypt). */
export function mapSecretLeaves(doc: OverrideInput, fn: (value: string, path: string) => string): ConfigOverride {
  return mapLeaves(doc, "", fn);
}

function withoutSecrets(o: OverrideInput, prefix: string): ConfigObject {
  const out: ConfigObject = {};
  for (const [key, value] of Object.entries(o)) {
    if (value === undefined) continue;
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (isSecretConfigPath(path)) continue;
    out[key] = isPlainObject(value) ? withoutSecrets(value, path) : cloneJson(value);
  }
  return out;
}

/**
 * A copy of an override document or rendered config without its secret leaves (whatever their value), for copies
 * that leave the service's encrypted storage: the project events. `undefined` properties are dropped.
 */
export function withoutSecretLeaves<T extends OverrideInput | RenderedConfig>(doc: T): T {
  return withoutSecrets(doc as OverrideInput, "") as unknown as T;
}

/** Async `mapSecretLeaves`, for async ciphers. Leaves are processed concurrently. */
export async function mapSecretLeavesAsync(
  doc: OverrideInput,
  fn: (value: string, path: string) => Promise<string>,
): Promise<ConfigOverride> {
  const leaves = listSecretLeaves(doc);
  const results = await Promise.all(leaves.map(({ path, value }) => fn(value, path)));
  let i = 0;
  // mapLeaves visits the leaves in the same order as listSecretLeaves found them
  return mapLeaves(doc, "", () => results[i++]!);
}
