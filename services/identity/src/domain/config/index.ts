/**
 * Project configuration: the rendered config, its override document, and the contract views built from it.
 *
 * Layering. A project keeps one override document per level (project, branch, environment; `levels.ts`), and its
 * rendered config is `defaultRenderedConfig()` with the three applied in that order (defaults < project < branch <
 * environment). The environment document collects what the seed-era routes write: the `config` of
 * `POST /internal/projects` and `PATCH /internal/projects/current` (turned into an override by
 * `overrideFromAdminConfigUpdate`) and `PATCH /internal/config/override` bodies, each folded in with
 * `applyOverride(stored, patch)`. Later writes win. `/internal/config/override/{level}` reads, replaces, patches or
 * resets keys of one level.
 *
 * Override format (Stack Auth's config JSON format). An override is a JSON object whose keys are property names or
 * dotted paths (`"payments.items.credits"`); values may again be objects with plain or dotted keys. Semantics:
 *  - a plain object deep-merges into what is already at its path;
 *  - a string, number, boolean or array replaces what is at its path;
 *  - `null` deletes what is at its path. When rendering, a required setting that ends up missing falls back to its
 *    default (so `{"auth.allowSignUp": null}` means "back to the default"), while a collection (a record keyed by
 *    ids: trusted domains, OAuth providers, permission sets, payments items, ...) that ends up missing is empty.
 *  - Entries apply in order of path depth (fewer dots first), so `{"a": null, "a.b": 1}` means "replace `a` by
 *    `{b: 1}`". This is how `overrideFromAdminConfigUpdate` makes a list field replace the whole list.
 *  - Folding a patch into the stored document (`applyOverride`) keeps a patch's `null` as a marker in the
 *    document, since it must still delete the default when rendering.
 *
 * Key names follow Stack Auth's rendered config (`packages/stack-shared/src/config/schema.ts` and the backend's
 * rendered-config-to-project conversion at the pinned commit). Vestibule additions, absent from Stack Auth:
 * `auth.refreshTokenRotation` (default false) and `auth.accessTokenLifetimeSeconds` (default 600, 60 to 3600:
 * the SDK refreshes when fewer than 20 s remain; the cap bounds how long a token outlives sign-out), and
 * `auth.ipFailuresPerDay` (no default; 10 to 1,000,000: the per-IP failure budget of the project's sign-in checks).
 *
 * Pure functions: no I/O.
 */

export * from "./types.ts";
export * from "./rendered.ts";
export { applyOverride, flattenOverride, mergeOverrides, resetOverrideKeys } from "./override.ts";
export * from "./levels.ts";
export { renderConfig } from "./render.ts";
export { parseConfigOverride, validateOverride } from "./validate.ts";
export * from "./secrets.ts";
export * from "./views.ts";
export * from "./admin-update.ts";
export * from "./admin-update-validation.ts";
export * from "./seed-configs.ts";
