/**
 * Project configuration: the rendered config, its override document, and the contract views built from it.
 *
 * Layering. A project's rendered config is `defaultRenderedConfig()` with ONE stored override document applied on
 * top (defaults < override). The document collects everything that was ever written for the project: the `config`
 * of `POST /internal/projects` and `PATCH /internal/projects/current` (turned into an override by
 * `overrideFromAdminConfigUpdate`) and `PATCH /internal/config/override` bodies, each folded in with
 * `applyOverride(stored, patch)`. Later writes win.
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
 * `auth.refreshTokenRotation` (default false) and `auth.accessTokenLifetimeSeconds` (default 600, must be > 20:
 * the SDK refreshes when fewer than 20 s remain).
 *
 * Pure functions: no I/O.
 */

import { trustedDomainProblem } from "./domains.ts";
import type { RedirectTrustOptions } from "./domains.ts";

// ---------------------------------------------------------------------------------------------------------------
// JSON and override types
// ---------------------------------------------------------------------------------------------------------------

export type ConfigValue = string | number | boolean | null | ConfigValue[] | ConfigObject;
export interface ConfigObject {
  [key: string]: ConfigValue;
}
/** An override document or patch: keys are property names or dotted paths. */
export type ConfigOverride = ConfigObject;
/**
 * What the functions accept as an override (e.g. a parsed JSON column typed `Record<string, unknown>`). Values are
 * expected to be JSON; `undefined` properties are ignored.
 */
export type OverrideInput = { readonly [key: string]: unknown };

// ---------------------------------------------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------------------------------------------

export const OAUTH_PROVIDER_TYPES = [
  "google",
  "github",
  "microsoft",
  "spotify",
  "facebook",
  "discord",
  "gitlab",
  "bitbucket",
  "linkedin",
  "apple",
  "x",
  "twitch",
] as const;
export type OAuthProviderType = (typeof OAUTH_PROVIDER_TYPES)[number];

export const OAUTH_ACCOUNT_MERGE_STRATEGIES = ["link_method", "raise_error", "allow_duplicates"] as const;
export type OAuthAccountMergeStrategy = (typeof OAUTH_ACCOUNT_MERGE_STRATEGIES)[number];

export const CUSTOMER_TYPES = ["user", "team", "custom"] as const;

/** Stack Auth's built-in "Default Light" e-mail theme id, selected by default. */
export const DEFAULT_EMAIL_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";

/** Permission ids (spec section 5): lowercase letters, digits, `:` and `_`, optional leading `$` (system). */
const PERMISSION_ID = /^\$?[a-z0-9_:]+$/;
/** Ids of custom permission definitions: no `$`. */
const CUSTOM_PERMISSION_ID = /^[a-z0-9_:]+$/;

// ---------------------------------------------------------------------------------------------------------------
// Rendered config
// ---------------------------------------------------------------------------------------------------------------

export interface RenderedOAuthProvider {
  /** The provider kind; entries without a type are not shown in the admin view. */
  type?: OAuthProviderType;
  /** Shared (Vestibule's development keys) vs standard (the project's own client id and secret). */
  isShared: boolean;
  allowSignIn: boolean;
  allowConnectedAccounts: boolean;
  clientId?: string;
  /** Secret: encrypted at rest (see `secretConfigPaths`). */
  clientSecret?: string;
  facebookConfigId?: string;
  microsoftTenantId?: string;
}

export interface RenderedTrustedDomain {
  /** An http(s) URL, `*` wildcards allowed in the host. Entries without one are ignored. */
  baseUrl?: string;
  handlerPath: string;
}

export interface RenderedPermissionDefinition {
  description?: string;
  scope?: "team" | "project";
  containedPermissionIds: Record<string, true>;
}

export interface RenderedEmailServer {
  isShared: boolean;
  host?: string;
  port?: number;
  username?: string;
  /** Secret: encrypted at rest (see `secretConfigPaths`). */
  password?: string;
  senderName?: string;
  senderEmail?: string;
}

export interface RenderedConfig {
  auth: {
    allowSignUp: boolean;
    password: { allowSignIn: boolean };
    otp: { allowSignIn: boolean };
    passkey: { allowSignIn: boolean };
    oauth: {
      accountMergeStrategy: OAuthAccountMergeStrategy;
      providers: Record<string, RenderedOAuthProvider>;
    };
    /** Vestibule addition: issue a new refresh token on every refresh (Stack Auth never rotates). */
    refreshTokenRotation: boolean;
    /** Vestibule addition: access-token lifetime in seconds (Stack Auth: 10 minutes). */
    accessTokenLifetimeSeconds: number;
  };
  teams: { createPersonalTeamOnSignUp: boolean; allowClientTeamCreation: boolean };
  users: { allowClientUserDeletion: boolean };
  domains: { allowLocalhost: boolean; trustedDomains: Record<string, RenderedTrustedDomain> };
  apiKeys: { enabled: { user: boolean; team: boolean } };
  rbac: {
    permissions: Record<string, RenderedPermissionDefinition>;
    defaultPermissions: {
      teamCreator: Record<string, true>;
      teamMember: Record<string, true>;
      signUp: Record<string, true>;
    };
  };
  emails: {
    server: RenderedEmailServer;
    selectedThemeId: string;
    themes: Record<string, ConfigObject>;
    templates: Record<string, ConfigObject>;
  };
  /** Owned by billing; free-form beyond the few keys checked by `validateOverride`. */
  payments: ConfigObject & {
    groups: Record<string, ConfigObject>;
    offers: Record<string, ConfigObject>;
    items: Record<string, ConfigObject>;
  };
  /** Owned by the vault service; free-form beyond `stores.<id>.displayName`. */
  dataVault: ConfigObject & { stores: Record<string, ConfigObject> };
}

/**
 * The config of a project whose override document is empty. Besides Stack Auth's schema defaults it includes what
 * Stack Auth writes when it creates a project (password sign-in on, `allow_localhost` on, the `team_admin` and
 * `team_member` permission definitions and the default permission sets that use them), so that a fresh project
 * renders like a fresh Stack Auth project. E-mail themes and templates are rendered by the e-mail service, not here.
 */
export function defaultRenderedConfig(): RenderedConfig {
  return {
    auth: {
      allowSignUp: true,
      password: { allowSignIn: true },
      otp: { allowSignIn: false },
      passkey: { allowSignIn: false },
      oauth: { accountMergeStrategy: "link_method", providers: {} },
      refreshTokenRotation: false,
      accessTokenLifetimeSeconds: 600,
    },
    teams: { createPersonalTeamOnSignUp: false, allowClientTeamCreation: false },
    users: { allowClientUserDeletion: false },
    domains: { allowLocalhost: true, trustedDomains: {} },
    apiKeys: { enabled: { user: false, team: false } },
    rbac: {
      permissions: {
        team_admin: {
          description: "Default permission for team admins",
          scope: "team",
          containedPermissionIds: {
            $update_team: true,
            $delete_team: true,
            $read_members: true,
            $remove_members: true,
            $invite_members: true,
            $manage_api_keys: true,
          },
        },
        team_member: {
          description: "Default permission for team members",
          scope: "team",
          containedPermissionIds: { $read_members: true, $invite_members: true },
        },
      },
      defaultPermissions: {
        teamCreator: { team_admin: true },
        teamMember: { team_member: true },
        signUp: {},
      },
    },
    emails: {
      server: { isShared: true },
      selectedThemeId: DEFAULT_EMAIL_THEME_ID,
      themes: {},
      templates: {},
    },
    payments: { groups: {}, offers: {}, items: {} },
    dataVault: { stores: {} },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Schema (drives validation and rendering)
// ---------------------------------------------------------------------------------------------------------------

type SchemaNode =
  | { kind: "boolean" }
  | { kind: "string"; oneOf?: readonly string[]; check?: (value: string) => string | null }
  | { kind: "integer"; min?: number; max?: number }
  /** A set member: only `true` is stored (use null to remove). */
  | { kind: "true" }
  /** Fixed fields; `open` objects also accept (and keep) other keys with any value. */
  | { kind: "object"; fields: Readonly<Record<string, SchemaNode>>; open?: boolean }
  /** A collection keyed by ids; each entry gets `entryDefaults` for fields it lacks. */
  | { kind: "record"; entry: SchemaNode; entryDefaults?: ConfigObject; keyPattern?: RegExp }
  | { kind: "json" };

const bool: SchemaNode = { kind: "boolean" };
const str: SchemaNode = { kind: "string" };
const oneOf = (values: readonly string[]): SchemaNode => ({ kind: "string", oneOf: values });
const obj = (fields: Record<string, SchemaNode>, open = false): SchemaNode => ({ kind: "object", fields, open });
const permissionSet: SchemaNode = { kind: "record", entry: { kind: "true" }, keyPattern: PERMISSION_ID };

const SCHEMA: SchemaNode = obj({
  auth: obj({
    allowSignUp: bool,
    password: obj({ allowSignIn: bool }),
    otp: obj({ allowSignIn: bool }),
    passkey: obj({ allowSignIn: bool }),
    oauth: obj({
      accountMergeStrategy: oneOf(OAUTH_ACCOUNT_MERGE_STRATEGIES),
      providers: {
        kind: "record",
        entry: obj({
          type: oneOf(OAUTH_PROVIDER_TYPES),
          isShared: bool,
          allowSignIn: bool,
          allowConnectedAccounts: bool,
          clientId: str,
          clientSecret: str,
          facebookConfigId: str,
          microsoftTenantId: str,
        }),
        entryDefaults: { isShared: true, allowSignIn: false, allowConnectedAccounts: false },
        keyPattern: PERMISSION_ID,
      },
    }),
    refreshTokenRotation: bool,
    accessTokenLifetimeSeconds: { kind: "integer", min: 21 },
  }),
  teams: obj({ createPersonalTeamOnSignUp: bool, allowClientTeamCreation: bool }),
  users: obj({ allowClientUserDeletion: bool }),
  domains: obj({
    allowLocalhost: bool,
    trustedDomains: {
      kind: "record",
      entry: obj({
        baseUrl: { kind: "string", check: trustedDomainProblem },
        handlerPath: {
          kind: "string",
          check: (v) => (v.startsWith("/") ? null : `Handler path must start with /: ${v}`),
        },
      }),
      entryDefaults: { handlerPath: "/handler" },
    },
  }),
  apiKeys: obj({ enabled: obj({ user: bool, team: bool }) }),
  rbac: obj({
    permissions: {
      kind: "record",
      entry: obj({
        description: str,
        scope: oneOf(["team", "project"]),
        containedPermissionIds: permissionSet,
      }),
      entryDefaults: { containedPermissionIds: {} },
      keyPattern: CUSTOM_PERMISSION_ID,
    },
    defaultPermissions: obj({ teamCreator: permissionSet, teamMember: permissionSet, signUp: permissionSet }),
  }),
  emails: obj({
    server: obj({
      isShared: bool,
      host: str,
      port: { kind: "integer", min: 0, max: 65535 },
      username: str,
      password: str,
      senderName: str,
      senderEmail: str,
    }),
    selectedThemeId: str,
    themes: { kind: "record", entry: obj({ displayName: str, tsxSource: str }, true) },
    templates: { kind: "record", entry: obj({ displayName: str, tsxSource: str }, true) },
  }),
  payments: obj(
    {
      groups: { kind: "record", entry: obj({ displayName: str }, true) },
      offers: {
        kind: "record",
        entry: obj(
          { displayName: str, groupId: str, customerType: oneOf(CUSTOMER_TYPES), serverOnly: bool, stackable: bool },
          true,
        ),
      },
      items: { kind: "record", entry: obj({ displayName: str, customerType: oneOf(CUSTOMER_TYPES) }, true) },
      autoPay: { kind: "json" },
    },
    true,
  ),
  dataVault: obj({ stores: { kind: "record", entry: obj({ displayName: str }, true) } }, true),
});

// ---------------------------------------------------------------------------------------------------------------
// JSON helpers
// ---------------------------------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is ConfigObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deep copy of JSON-like data; `undefined` properties are dropped. */
function cloneJson(value: unknown): ConfigValue {
  if (Array.isArray(value)) return value.map((v) => cloneJson(v));
  if (typeof value === "object" && value !== null) {
    const out: ConfigObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = cloneJson(v);
    return out;
  }
  return value as ConfigValue;
}

const depth = (key: string): number => key.split(".").length;

/** Entries sorted by path depth (fewer dots first), stable; `undefined` values skipped. */
function entriesByDepth(o: OverrideInput): [string, ConfigValue][] {
  return Object.entries(o)
    .filter((e): e is [string, ConfigValue] => e[1] !== undefined)
    .map((e, i) => ({ e, i }))
    .sort((a, b) => depth(a.e[0]) - depth(b.e[0]) || a.i - b.i)
    .map(({ e }) => e);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}

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
function renderOnto(base: object, override: OverrideInput): ConfigObject {
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

// ---------------------------------------------------------------------------------------------------------------
// Contract views
// ---------------------------------------------------------------------------------------------------------------

export interface AdminOAuthProvider {
  /** The provider's key in `auth.oauth.providers`. */
  provider_config_id: string;
  /** The provider type, e.g. "github". */
  id: string;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
  facebook_config_id?: string;
  microsoft_tenant_id?: string;
}

export interface AdminEmailConfig {
  type: "shared" | "standard";
  host?: string;
  port?: number;
  username?: string;
  password?: string;
  sender_name?: string;
  sender_email?: string;
}

export interface AdminDomain {
  domain: string;
  handler_path: string;
}

/** The `config` object of the admin project shape (endpoints.md section 6). */
export interface AdminProjectConfig {
  allow_localhost: boolean;
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  oauth_providers: AdminOAuthProvider[];
  enabled_oauth_providers: { id: string }[];
  domains: AdminDomain[];
  email_config: AdminEmailConfig;
  email_theme: string;
  create_team_on_sign_up: boolean;
  team_creator_default_permissions: { id: string }[];
  team_member_default_permissions: { id: string }[];
  user_default_permissions: { id: string }[];
  oauth_account_merge_strategy: OAuthAccountMergeStrategy;
}

/** One OAuth provider in a config update. `enabled` (default true) is accepted from older dashboards. */
export interface AdminOAuthProviderUpdate {
  id: string;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
  facebook_config_id?: string;
  microsoft_tenant_id?: string;
  enabled?: boolean;
}

/** The `config` of `POST /internal/projects` / `PATCH /internal/projects/current`: any subset of these fields. */
export interface AdminConfigUpdate {
  sign_up_enabled?: boolean;
  credential_enabled?: boolean;
  magic_link_enabled?: boolean;
  passkey_enabled?: boolean;
  client_team_creation_enabled?: boolean;
  client_user_deletion_enabled?: boolean;
  allow_localhost?: boolean;
  allow_user_api_keys?: boolean;
  allow_team_api_keys?: boolean;
  email_config?: AdminEmailConfig;
  email_theme?: string;
  domains?: AdminDomain[];
  oauth_providers?: AdminOAuthProviderUpdate[];
  create_team_on_sign_up?: boolean;
  team_creator_default_permissions?: { id: string }[];
  team_member_default_permissions?: { id: string }[];
  user_default_permissions?: { id: string }[];
  oauth_account_merge_strategy?: OAuthAccountMergeStrategy;
}

/** The `config` of `GET /projects/current`. */
export interface ClientProjectConfig {
  sign_up_enabled: boolean;
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  client_team_creation_enabled: boolean;
  client_user_deletion_enabled: boolean;
  allow_user_api_keys: boolean;
  allow_team_api_keys: boolean;
  enabled_oauth_providers: { id: string }[];
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function permissionList(set: Record<string, true>): { id: string }[] {
  return Object.entries(set)
    .filter(([, on]) => on === true)
    .map(([id]) => ({ id }))
    .sort((a, b) => byString(a.id, b.id));
}

/**
 * The providers shown by the admin view: those with a type and sign-in enabled, sorted by type. A provider with
 * `allowSignIn: false` stays in the rendered config (`auth.oauth.providers.<id>`, credentials kept) but, as in
 * Stack Auth at the pinned commit, is left out of both admin lists: the 2.8.41 admin shape has no `enabled` field,
 * so listing it would make the SDK show it as enabled.
 */
function adminOAuthProviders(rendered: RenderedConfig): AdminOAuthProvider[] {
  return Object.entries(rendered.auth.oauth.providers)
    .filter(([, p]) => p.type !== undefined && p.allowSignIn)
    .map(([providerConfigId, p]) =>
      withoutUndefined<AdminOAuthProvider>({
        provider_config_id: providerConfigId,
        id: p.type!,
        type: p.isShared ? "shared" : "standard",
        client_id: p.clientId,
        client_secret: p.clientSecret,
        facebook_config_id: p.facebookConfigId,
        microsoft_tenant_id: p.microsoftTenantId,
      }),
    )
    .sort((a, b) => byString(a.id, b.id) || byString(a.provider_config_id, b.provider_config_id));
}

/** The trusted domains as the admin view lists them: entries with a base URL, sorted by domain. */
export function adminDomainsFromRendered(rendered: RenderedConfig): AdminDomain[] {
  return Object.values(rendered.domains.trustedDomains)
    .filter((d): d is RenderedTrustedDomain & { baseUrl: string } => d.baseUrl !== undefined)
    .map((d) => ({ domain: d.baseUrl, handler_path: d.handlerPath }))
    .sort((a, b) => byString(a.domain, b.domain));
}

/** The admin project's `config` (endpoints.md section 6). Secrets appear in clear: admin callers only. */
export function adminConfigFromRendered(rendered: RenderedConfig): AdminProjectConfig {
  const providers = adminOAuthProviders(rendered);
  const server = rendered.emails.server;
  return {
    allow_localhost: rendered.domains.allowLocalhost,
    sign_up_enabled: rendered.auth.allowSignUp,
    credential_enabled: rendered.auth.password.allowSignIn,
    magic_link_enabled: rendered.auth.otp.allowSignIn,
    passkey_enabled: rendered.auth.passkey.allowSignIn,
    client_team_creation_enabled: rendered.teams.allowClientTeamCreation,
    client_user_deletion_enabled: rendered.users.allowClientUserDeletion,
    allow_user_api_keys: rendered.apiKeys.enabled.user,
    allow_team_api_keys: rendered.apiKeys.enabled.team,
    oauth_providers: providers,
    enabled_oauth_providers: providers.map((p) => ({ id: p.id })),
    domains: adminDomainsFromRendered(rendered),
    email_config: server.isShared
      ? { type: "shared" }
      : withoutUndefined<AdminEmailConfig>({
          type: "standard",
          host: server.host,
          port: server.port,
          username: server.username,
          password: server.password,
          sender_name: server.senderName,
          sender_email: server.senderEmail,
        }),
    email_theme: rendered.emails.selectedThemeId,
    create_team_on_sign_up: rendered.teams.createPersonalTeamOnSignUp,
    team_creator_default_permissions: permissionList(rendered.rbac.defaultPermissions.teamCreator),
    team_member_default_permissions: permissionList(rendered.rbac.defaultPermissions.teamMember),
    user_default_permissions: permissionList(rendered.rbac.defaultPermissions.signUp),
    oauth_account_merge_strategy: rendered.auth.oauth.accountMergeStrategy,
  };
}

/** The `config` of `GET /projects/current` (client view). */
export function clientProjectConfig(rendered: RenderedConfig): ClientProjectConfig {
  return {
    sign_up_enabled: rendered.auth.allowSignUp,
    credential_enabled: rendered.auth.password.allowSignIn,
    magic_link_enabled: rendered.auth.otp.allowSignIn,
    passkey_enabled: rendered.auth.passkey.allowSignIn,
    client_team_creation_enabled: rendered.teams.allowClientTeamCreation,
    client_user_deletion_enabled: rendered.users.allowClientUserDeletion,
    allow_user_api_keys: rendered.apiKeys.enabled.user,
    allow_team_api_keys: rendered.apiKeys.enabled.team,
    enabled_oauth_providers: adminOAuthProviders(rendered).map((p) => ({ id: p.id })),
  };
}

/** The inputs of `isRedirectUrlTrusted` for a project. */
export function redirectTrustFromRendered(rendered: RenderedConfig): RedirectTrustOptions {
  return {
    trustedDomains: Object.values(rendered.domains.trustedDomains).map((d) => ({ baseUrl: d.baseUrl })),
    allowLocalhost: rendered.domains.allowLocalhost,
  };
}

/** Writes `value` as the whole new content of `path`: `null` first (drops the old content and the defaults). */
function replaceAt(out: ConfigOverride, path: string, value: ConfigObject): void {
  out[path] = null;
  for (const [key, v] of Object.entries(value)) out[`${path}.${key}`] = v;
}

function definedOnly(o: Record<string, ConfigValue | undefined>): ConfigObject {
  const out: ConfigObject = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

function permissionSetOverride(list: readonly { id: string }[]): ConfigObject {
  return Object.fromEntries(list.map((p) => [p.id, true]));
}

/**
 * The override a config update (contract field names, any subset) produces. Scalars become dotted paths; list
 * fields (`domains`, `oauth_providers`, the three default permission lists) and `email_config` replace their
 * whole target (`null` at the path, then the new entries), so what was there before, defaults included, is gone.
 * Trusted domains get the ids "0", "1", ... in list order (pure and deterministic). OAuth providers are keyed by
 * their type id; `enabled: false` keeps a provider with `allowSignIn`/`allowConnectedAccounts` false.
 * Does not validate; use `validateAdminConfigUpdate` first.
 */
export function overrideFromAdminConfigUpdate(update: AdminConfigUpdate): ConfigOverride {
  const out: ConfigOverride = {};
  const scalar = (path: string, value: boolean | string | undefined): void => {
    if (value !== undefined) out[path] = value;
  };
  scalar("auth.allowSignUp", update.sign_up_enabled);
  scalar("auth.password.allowSignIn", update.credential_enabled);
  scalar("auth.otp.allowSignIn", update.magic_link_enabled);
  scalar("auth.passkey.allowSignIn", update.passkey_enabled);
  scalar("auth.oauth.accountMergeStrategy", update.oauth_account_merge_strategy);
  scalar("teams.allowClientTeamCreation", update.client_team_creation_enabled);
  scalar("teams.createPersonalTeamOnSignUp", update.create_team_on_sign_up);
  scalar("users.allowClientUserDeletion", update.client_user_deletion_enabled);
  scalar("domains.allowLocalhost", update.allow_localhost);
  scalar("apiKeys.enabled.user", update.allow_user_api_keys);
  scalar("apiKeys.enabled.team", update.allow_team_api_keys);
  scalar("emails.selectedThemeId", update.email_theme);

  if (update.oauth_providers !== undefined) {
    const providers: ConfigObject = {};
    for (const p of update.oauth_providers) {
      const enabled = p.enabled ?? true;
      const standard = p.type === "standard";
      providers[p.id] = definedOnly({
        type: p.id,
        isShared: !standard,
        allowSignIn: enabled,
        allowConnectedAccounts: enabled,
        // credentials only for standard providers; a shared provider's old credentials are dropped with the list
        clientId: standard ? p.client_id : undefined,
        clientSecret: standard ? p.client_secret : undefined,
        facebookConfigId: standard ? p.facebook_config_id : undefined,
        microsoftTenantId: standard ? p.microsoft_tenant_id : undefined,
      });
    }
    replaceAt(out, "auth.oauth.providers", providers);
  }

  if (update.domains !== undefined) {
    replaceAt(
      out,
      "domains.trustedDomains",
      Object.fromEntries(update.domains.map((d, i) => [String(i), { baseUrl: d.domain, handlerPath: d.handler_path }])),
    );
  }

  if (update.email_config !== undefined) {
    const e = update.email_config;
    replaceAt(
      out,
      "emails.server",
      e.type === "shared"
        ? { isShared: true }
        : definedOnly({
            isShared: false,
            host: e.host,
            port: e.port,
            username: e.username,
            password: e.password,
            senderName: e.sender_name,
            senderEmail: e.sender_email,
          }),
    );
  }

  if (update.team_creator_default_permissions !== undefined) {
    replaceAt(out, "rbac.defaultPermissions.teamCreator", permissionSetOverride(update.team_creator_default_permissions));
  }
  if (update.team_member_default_permissions !== undefined) {
    replaceAt(out, "rbac.defaultPermissions.teamMember", permissionSetOverride(update.team_member_default_permissions));
  }
  if (update.user_default_permissions !== undefined) {
    replaceAt(out, "rbac.defaultPermissions.signUp", permissionSetOverride(update.user_default_permissions));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Config update validation (request bodies)
// ---------------------------------------------------------------------------------------------------------------

const UPDATE_BOOLEAN_FIELDS = [
  "sign_up_enabled",
  "credential_enabled",
  "magic_link_enabled",
  "passkey_enabled",
  "client_team_creation_enabled",
  "client_user_deletion_enabled",
  "allow_localhost",
  "allow_user_api_keys",
  "allow_team_api_keys",
  "create_team_on_sign_up",
] as const;
const UPDATE_PERMISSION_FIELDS = [
  "team_creator_default_permissions",
  "team_member_default_permissions",
  "user_default_permissions",
] as const;
const UPDATE_FIELDS: readonly string[] = [
  ...UPDATE_BOOLEAN_FIELDS,
  ...UPDATE_PERMISSION_FIELDS,
  "email_config",
  "email_theme",
  "domains",
  "oauth_providers",
  "oauth_account_merge_strategy",
];

function unknownKeys(o: ConfigObject, allowed: readonly string[], path: string, problems: string[]): void {
  const extra = Object.keys(o).filter((k) => !allowed.includes(k));
  if (extra.length > 0) problems.push(`${path} contains unknown properties: ${extra.join(", ")}`);
}

function optionalString(o: ConfigObject, key: string, path: string, problems: string[]): void {
  if (o[key] !== undefined && typeof o[key] !== "string") {
    problems.push(`${path}.${key} must be a string, but got ${describe(o[key])}`);
  }
}

/**
 * Problems of a config update object (the `config` of the project create/update bodies), empty when acceptable:
 * unknown properties, wrong types, enum values, domains (http(s) URL with a valid host pattern, handler path
 * starting with /), OAuth providers (known provider id, shared|standard, standard needs client_id and
 * client_secret), standard e-mail config (host, port 0-65535, username, password, sender_name, sender_email all
 * required), permission ids.
 */
export function validateAdminConfigUpdate(update: unknown, path = "config"): string[] {
  if (!isPlainObject(update)) return [`${path} must be an object`];
  const problems: string[] = [];
  unknownKeys(update, UPDATE_FIELDS, path, problems);
  for (const field of UPDATE_BOOLEAN_FIELDS) {
    const v = update[field];
    if (v !== undefined && typeof v !== "boolean") problems.push(`${path}.${field} must be a boolean, but got ${describe(v)}`);
  }
  optionalString(update, "email_theme", path, problems);
  const merge = update.oauth_account_merge_strategy;
  if (merge !== undefined && !(OAUTH_ACCOUNT_MERGE_STRATEGIES as readonly unknown[]).includes(merge)) {
    problems.push(`${path}.oauth_account_merge_strategy must be one of ${OAUTH_ACCOUNT_MERGE_STRATEGIES.join(", ")}`);
  }
  for (const field of UPDATE_PERMISSION_FIELDS) {
    const list = update[field];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`${path}.${field} must be an array`);
      continue;
    }
    list.forEach((item, i) => {
      const p = `${path}.${field}[${i}]`;
      if (!isPlainObject(item)) return problems.push(`${p} must be an object`);
      unknownKeys(item, ["id"], p, problems);
      if (typeof item.id !== "string" || !PERMISSION_ID.test(item.id)) {
        problems.push(`${p}.id: Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed`);
      }
    });
  }
  const domains = update.domains;
  if (domains !== undefined) {
    if (!Array.isArray(domains)) problems.push(`${path}.domains must be an array`);
    else
      domains.forEach((item, i) => {
        const p = `${path}.domains[${i}]`;
        if (!isPlainObject(item)) return problems.push(`${p} must be an object`);
        unknownKeys(item, ["domain", "handler_path"], p, problems);
        if (typeof item.domain !== "string") problems.push(`${p}.domain must be a string`);
        else {
          const problem = trustedDomainProblem(item.domain);
          if (problem) problems.push(`${p}.domain: ${problem}`);
        }
        if (typeof item.handler_path !== "string") problems.push(`${p}.handler_path must be a string`);
        else if (!item.handler_path.startsWith("/")) problems.push(`${p}.handler_path must start with /`);
      });
  }
  const providers = update.oauth_providers;
  if (providers !== undefined) {
    if (!Array.isArray(providers)) problems.push(`${path}.oauth_providers must be an array`);
    else
      providers.forEach((item, i) => {
        const p = `${path}.oauth_providers[${i}]`;
        if (!isPlainObject(item)) return problems.push(`${p} must be an object`);
        unknownKeys(
          item,
          ["id", "type", "client_id", "client_secret", "facebook_config_id", "microsoft_tenant_id", "enabled"],
          p,
          problems,
        );
        if (typeof item.id !== "string" || !(OAUTH_PROVIDER_TYPES as readonly string[]).includes(item.id)) {
          problems.push(`${p}.id must be one of ${OAUTH_PROVIDER_TYPES.join(", ")}`);
        }
        if (item.type !== "shared" && item.type !== "standard") problems.push(`${p}.type must be shared or standard`);
        for (const k of ["client_id", "client_secret", "facebook_config_id", "microsoft_tenant_id"]) optionalString(item, k, p, problems);
        if (item.enabled !== undefined && typeof item.enabled !== "boolean") problems.push(`${p}.enabled must be a boolean`);
        if (item.type === "standard") {
          if (typeof item.client_id !== "string" || item.client_id === "") problems.push(`${p}.client_id is required for standard providers`);
          if (typeof item.client_secret !== "string" || item.client_secret === "") {
            problems.push(`${p}.client_secret is required for standard providers`);
          }
        }
      });
    if (Array.isArray(providers)) {
      const ids = providers.filter(isPlainObject).map((item) => item.id);
      const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
      if (dup.length > 0) problems.push(`${path}.oauth_providers lists a provider twice: ${[...new Set(dup)].join(", ")}`);
    }
  }
  const email = update.email_config;
  if (email !== undefined) {
    const p = `${path}.email_config`;
    if (!isPlainObject(email)) problems.push(`${p} must be an object`);
    else {
      unknownKeys(email, ["type", "host", "port", "username", "password", "sender_name", "sender_email"], p, problems);
      if (email.type !== "shared" && email.type !== "standard") problems.push(`${p}.type must be shared or standard`);
      for (const k of ["host", "username", "password", "sender_name", "sender_email"]) {
        optionalString(email, k, p, problems);
        if (email.type === "standard" && (typeof email[k] !== "string" || email[k] === "")) {
          problems.push(`${p}.${k} is required for a standard e-mail server`);
        }
      }
      const port = email.port;
      if (port !== undefined && (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65535)) {
        problems.push(`${p}.port must be an integer from 0 to 65535`);
      } else if (email.type === "standard" && port === undefined) {
        problems.push(`${p}.port is required for a standard e-mail server`);
      }
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------------------------------------------

/**
 * Config of the `internal` (dashboard) project in development (headers-and-auth.md section 4): sign-up, password
 * and OTP on, localhost allowed, a personal team on sign-up, client team creation. Stack's seed also enables shared
 * GitHub, Spotify, Google and Microsoft sign-in; here `npm start` enables them in development only, where its
 * development identity provider stands behind the shared keys (deploy/src/dev-idp/launch.ts): a production deployment
 * has shared keys only once VESTIBULE_OAUTH_SHARED_KEYS is configured, so the seed leaves them out.
 * Store it with `overrideFromAdminConfigUpdate`.
 */
export function internalProjectSeedConfig(): AdminConfigUpdate {
  return {
    sign_up_enabled: true,
    credential_enabled: true,
    magic_link_enabled: true,
    allow_localhost: true,
    create_team_on_sign_up: true,
    client_team_creation_enabled: true,
  };
}

/**
 * Config of the local-development demo project: password and magic link on, localhost allowed, client team
 * creation, a personal team on sign-up, user and team API keys. Store it with `overrideFromAdminConfigUpdate`.
 */
export function demoProjectSeedConfig(): AdminConfigUpdate {
  return {
    sign_up_enabled: true,
    credential_enabled: true,
    magic_link_enabled: true,
    allow_localhost: true,
    client_team_creation_enabled: true,
    create_team_on_sign_up: true,
    allow_user_api_keys: true,
    allow_team_api_keys: true,
  };
}
