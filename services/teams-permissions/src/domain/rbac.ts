/**
 * Permission definitions and their closure. Pure functions, no I/O.
 *
 * Source of truth. The definitions live in the project configuration owned by identity (`rbac.permissions.<id>` with
 * `description`, `scope` and `containedPermissionIds`, plus `rbac.defaultPermissions.{teamCreator,teamMember,signUp}`),
 * because a config override may set them and `GET /internal/config` and the admin project view render them. This
 * service reads that configuration (cached per project and version, dropped by identity.project.* events), validates
 * every write of the definition endpoints before handing it to identity as an override, and owns the grants.
 *
 * A definition without a scope (possible through a raw config override) belongs to neither scope and is invisible, as
 * in the reference. Contained ids that are unknown in the definition's scope are ignored when expanding (a config
 * override may leave such references behind); a cycle written through an override cannot loop either, since the
 * expansion visits each id once. The definition endpoints refuse both.
 */

import { ipFailuresPerDayFromRendered } from "@vestibule/shared/rate-limit";

export type Scope = "team" | "project";

/** The system team permissions (spec section 3) and their descriptions; they contain nothing and cannot be changed. */
export const TEAM_SYSTEM_PERMISSIONS: Readonly<Record<string, string>> = {
  $update_team: "Update the team information",
  $delete_team: "Delete the team",
  $read_members: "Read and list the other members of the team",
  $remove_members: "Remove other members from the team",
  $invite_members: "Invite other users to the team",
  $manage_api_keys: "Create and manage API keys for the team",
};

export function isSystemPermission(id: string): boolean {
  return Object.hasOwn(TEAM_SYSTEM_PERMISSIONS, id);
}

/** Spec section 5 messages. */
export const PERMISSION_ID_MESSAGES = {
  format: 'Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed',
  needsDollar: "System permissions must start with a dollar sign",
  invalidSystem: "Invalid system permission",
} as const;

const PERMISSION_ID = /^\$?[a-z0-9_:]+$/;

/**
 * Why a permission id (a grant, a filter, a contained id) is malformed, or undefined: not `[a-z0-9_:]+` with an
 * optional leading `$`, or a `$` id that is not a system permission.
 */
export function permissionIdProblem(id: string): string | undefined {
  if (!PERMISSION_ID.test(id)) return PERMISSION_ID_MESSAGES.format;
  if (id.startsWith("$") && !isSystemPermission(id)) return PERMISSION_ID_MESSAGES.invalidSystem;
  return undefined;
}

/**
 * Why an id cannot name a custom definition, or undefined. Besides `permissionIdProblem`: the bare name of a system
 * permission (`update_team`) is refused with "System permissions must start with a dollar sign", because a custom
 * definition named like a system permission would look like one while granting nothing of it. System ids themselves
 * are valid ids but protected (`isSystemPermission`), which the caller reports.
 */
export function definitionIdProblem(id: string): string | undefined {
  const problem = permissionIdProblem(id);
  if (problem) return problem;
  if (!id.startsWith("$") && isSystemPermission(`$${id}`)) return PERMISSION_ID_MESSAGES.needsDollar;
  return undefined;
}

export interface PermissionDefinition {
  readonly id: string;
  readonly description?: string;
  /** Sorted. */
  readonly containedPermissionIds: readonly string[];
  readonly scope: Scope;
  readonly isSystem: boolean;
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The definitions of one scope with their closure, computed once: `closureOf(id)` is every permission that holding
 * `id` gives (itself included). A check is then a set lookup per directly held permission.
 */
export class ScopeGraph {
  private readonly byId: ReadonlyMap<string, PermissionDefinition>;
  private readonly closures = new Map<string, ReadonlySet<string>>();

  constructor(
    readonly scope: Scope,
    definitions: readonly PermissionDefinition[],
  ) {
    this.byId = new Map(definitions.map((d) => [d.id, d]));
    for (const id of this.byId.keys()) this.closures.set(id, this.expandOne(id));
  }

  private expandOne(start: string): ReadonlySet<string> {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      const def = this.byId.get(id);
      if (!def) continue;
      seen.add(id);
      for (const c of def.containedPermissionIds) if (!seen.has(c)) stack.push(c);
    }
    return seen;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get(id: string): PermissionDefinition | undefined {
    return this.byId.get(id);
  }

  /** Sorted by id. */
  list(): PermissionDefinition[] {
    return [...this.byId.values()].sort((a, b) => byString(a.id, b.id));
  }

  get size(): number {
    return this.byId.size;
  }

  /** Everything `id` gives, itself included; empty for an unknown id. */
  closureOf(id: string): ReadonlySet<string> {
    return this.closures.get(id) ?? EMPTY;
  }

  /** True when holding `held` directly gives `target`. */
  implies(held: Iterable<string>, target: string): boolean {
    for (const id of held) if (this.closures.get(id)?.has(target)) return true;
    return false;
  }

  /** The permissions `held` gives: recursively (closures) or only the known ones themselves. */
  expand(held: Iterable<string>, recursive: boolean): Set<string> {
    const out = new Set<string>();
    for (const id of held) {
      if (!this.byId.has(id)) continue;
      if (!recursive) out.add(id);
      else for (const c of this.closures.get(id)!) out.add(c);
    }
    return out;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

// ---------------------------------------------------------------------------------------------------------------
// The project settings this service acts on, read from identity's rendered config.

export interface RedirectTrust {
  readonly allowLocalhost: boolean;
  readonly trustedDomains: readonly string[];
}

export interface ProjectSettings {
  readonly projectId: string;
  readonly displayName: string;
  /** identity Project.version this was read from. */
  readonly version: number;
  readonly createPersonalTeamOnSignUp: boolean;
  readonly allowClientTeamCreation: boolean;
  readonly redirectTrust: RedirectTrust;
  readonly team: ScopeGraph;
  readonly project: ScopeGraph;
  /** Every `rbac.permissions` id, whatever its scope (ids are unique across scopes). */
  readonly allDefinitionIds: ReadonlySet<string>;
  /** The raw `rbac.permissions` entries, for building overrides. */
  readonly rawDefinitions: Readonly<Record<string, RawDefinition>>;
  readonly defaults: { readonly teamCreator: readonly string[]; readonly teamMember: readonly string[]; readonly signUp: readonly string[] };
  /** auth.ipFailuresPerDay: the project's per-IP failure budget for invitation-code guesses, when it set one. */
  readonly ipFailuresPerDay?: number;
}

export interface RawDefinition {
  readonly description?: string;
  readonly scope?: string;
  readonly containedPermissionIds: readonly string[];
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function bool(value: unknown, fallback: boolean): boolean {
  return typeof value === "boolean" ? value : fallback;
}

function setKeys(value: unknown): string[] {
  return Object.entries(obj(value))
    .filter(([, on]) => on === true)
    .map(([id]) => id)
    .sort(byString);
}

/** The settings of a project from identity's `rendered_config_json`; malformed parts fall back to fresh-project defaults. */
export function projectSettingsFromRendered(p: { id: string; displayName: string; version: number; renderedConfigJson: string }): ProjectSettings {
  let rendered: Json = {};
  try {
    rendered = obj(JSON.parse(p.renderedConfigJson || "{}"));
  } catch {
    rendered = {};
  }
  const teams = obj(rendered.teams);
  const domains = obj(rendered.domains);
  const rbac = obj(rendered.rbac);
  const defaults = obj(rbac.defaultPermissions);
  const raw: Record<string, RawDefinition> = {};
  const team: PermissionDefinition[] = Object.entries(TEAM_SYSTEM_PERMISSIONS).map(([id, description]) => ({
    id,
    description,
    containedPermissionIds: [],
    scope: "team",
    isSystem: true,
  }));
  const project: PermissionDefinition[] = [];
  for (const [id, value] of Object.entries(obj(rbac.permissions))) {
    const entry = obj(value);
    const description = typeof entry.description === "string" ? entry.description : undefined;
    const scope = typeof entry.scope === "string" ? entry.scope : undefined;
    const contained = setKeys(entry.containedPermissionIds);
    raw[id] = { description, scope, containedPermissionIds: contained };
    if (isSystemPermission(id)) continue; // system ids cannot be redefined
    const def: PermissionDefinition = { id, description, containedPermissionIds: contained, scope: scope === "project" ? "project" : "team", isSystem: false };
    if (scope === "team") team.push(def);
    else if (scope === "project") project.push(def);
  }
  return {
    projectId: p.id,
    displayName: p.displayName,
    version: p.version,
    ipFailuresPerDay: ipFailuresPerDayFromRendered(rendered),
    createPersonalTeamOnSignUp: bool(teams.createPersonalTeamOnSignUp, false),
    allowClientTeamCreation: bool(teams.allowClientTeamCreation, false),
    redirectTrust: {
      allowLocalhost: bool(domains.allowLocalhost, true),
      trustedDomains: Object.values(obj(domains.trustedDomains))
        .map((d) => obj(d).baseUrl)
        .filter((u): u is string => typeof u === "string" && u !== ""),
    },
    team: new ScopeGraph("team", team),
    project: new ScopeGraph("project", project),
    allDefinitionIds: new Set(Object.keys(raw)),
    rawDefinitions: raw,
    defaults: { teamCreator: setKeys(defaults.teamCreator), teamMember: setKeys(defaults.teamMember), signUp: setKeys(defaults.signUp) },
  };
}

export function graphOf(settings: ProjectSettings, scope: Scope): ScopeGraph {
  return scope === "team" ? settings.team : settings.project;
}

// ---------------------------------------------------------------------------------------------------------------
// Definition writes: validation and the config override each one becomes.

export type DefinitionWriteProblem =
  | { kind: "id"; message: string }
  | { kind: "system"; id: string }
  | { kind: "not-found"; id: string }
  | { kind: "exists"; id: string }
  | { kind: "contained-not-found"; id: string }
  | { kind: "cycle"; path: string[] };

export interface DefinitionChange {
  /** The id before the change; undefined for a creation. */
  readonly oldId?: string;
  /** The id after the change (= oldId unless renamed). */
  readonly id: string;
  readonly description?: string;
  readonly containedPermissionIds: readonly string[];
}

/**
 * A path of contained permissions from `start` back to `start` in the graph where `start` contains `contained`,
 * or undefined. Edges of other definitions come from `graph` (ids unknown there end a path).
 */
export function findCycle(start: string, contained: readonly string[], edgesOf: (id: string) => readonly string[]): string[] | undefined {
  const visiting = new Set<string>();
  const done = new Set<string>();
  const path: string[] = [start];
  const visit = (id: string): boolean => {
    if (id === start) return true;
    if (done.has(id) || visiting.has(id)) return false;
    visiting.add(id);
    path.push(id);
    for (const next of edgesOf(id)) if (visit(next)) return true;
    path.pop();
    visiting.delete(id);
    done.add(id);
    return false;
  };
  for (const c of contained) {
    if (visit(c)) return [...path, start];
  }
  return undefined;
}

/**
 * Checks a creation (`oldId` undefined) or an update of a custom definition of `scope` against the current settings.
 * Order: id rules, system ids, existence (PERMISSION_NOT_FOUND / PERMISSION_ID_ALREADY_EXISTS), contained ids (must be
 * definitions of the same scope, or system permissions for team definitions), then cycles.
 */
export function checkDefinitionWrite(settings: ProjectSettings, scope: Scope, change: DefinitionChange): DefinitionWriteProblem | undefined {
  const graph = graphOf(settings, scope);
  if (change.oldId !== undefined) {
    if (isSystemPermission(change.oldId)) return { kind: "system", id: change.oldId };
    if (!graph.has(change.oldId)) return { kind: "not-found", id: change.oldId };
  }
  if (change.id !== change.oldId) {
    const problem = definitionIdProblem(change.id);
    if (problem) return { kind: "id", message: problem };
    if (isSystemPermission(change.id)) return { kind: "system", id: change.id };
    if (settings.allDefinitionIds.has(change.id)) return { kind: "exists", id: change.id };
  }
  for (const c of change.containedPermissionIds) {
    const problem = permissionIdProblem(c);
    if (problem) return { kind: "id", message: problem };
  }
  for (const c of change.containedPermissionIds) {
    const known = c === change.id || c === change.oldId || graph.has(c);
    if (!known) return { kind: "contained-not-found", id: c };
  }
  // The graph after the change: other definitions' references to the old id follow the rename.
  const rename = (id: string) => (change.oldId !== undefined && id === change.oldId ? change.id : id);
  const contained = change.containedPermissionIds.map(rename);
  const edgesOf = (id: string): readonly string[] => {
    if (id === change.id) return contained;
    return (graph.get(id)?.containedPermissionIds ?? []).map(rename);
  };
  const cycle = findCycle(change.id, contained, edgesOf);
  if (cycle) return { kind: "cycle", path: cycle };
  return undefined;
}

type Override = Record<string, unknown>;

const DEFAULT_LISTS = ["teamCreator", "teamMember", "signUp"] as const;

function defaultListsContaining(settings: ProjectSettings, id: string): (typeof DEFAULT_LISTS)[number][] {
  return DEFAULT_LISTS.filter((list) => settings.defaults[list].includes(id));
}

/**
 * The config override that writes a definition (created or updated): the entry is replaced as a whole (null first,
 * then its fields); on a rename the old entry goes and every reference to the old id (contained ids of other
 * definitions, the three default lists) follows.
 */
export function overrideForDefinitionWrite(settings: ProjectSettings, scope: Scope, change: DefinitionChange): Override {
  const out: Override = {};
  const base = `rbac.permissions.${change.id}`;
  if (change.oldId !== undefined && change.oldId !== change.id) out[`rbac.permissions.${change.oldId}`] = null;
  out[base] = null;
  if (change.description !== undefined && change.description !== "") out[`${base}.description`] = change.description;
  out[`${base}.scope`] = scope;
  out[`${base}.containedPermissionIds`] = Object.fromEntries([...new Set(change.containedPermissionIds)].map((c) => [c, true]));
  if (change.oldId !== undefined && change.oldId !== change.id) {
    const oldId = change.oldId;
    for (const [otherId, def] of Object.entries(settings.rawDefinitions)) {
      if (otherId === oldId || !def.containedPermissionIds.includes(oldId)) continue;
      out[`rbac.permissions.${otherId}.containedPermissionIds.${oldId}`] = null;
      out[`rbac.permissions.${otherId}.containedPermissionIds.${change.id}`] = true;
    }
    for (const list of defaultListsContaining(settings, oldId)) {
      out[`rbac.defaultPermissions.${list}.${oldId}`] = null;
      out[`rbac.defaultPermissions.${list}.${change.id}`] = true;
    }
  }
  return out;
}

/** The config override that deletes a definition and every reference to it. */
export function overrideForDefinitionDelete(settings: ProjectSettings, id: string): Override {
  const out: Override = { [`rbac.permissions.${id}`]: null };
  for (const [otherId, def] of Object.entries(settings.rawDefinitions)) {
    if (otherId !== id && def.containedPermissionIds.includes(id)) out[`rbac.permissions.${otherId}.containedPermissionIds.${id}`] = null;
  }
  for (const list of defaultListsContaining(settings, id)) out[`rbac.defaultPermissions.${list}.${id}`] = null;
  return out;
}
