import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { ProjectSchema, type Project } from "@vestibule/proto/identity/v1/project";
import { NotFoundError, ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import type { SecretBox } from "@vestibule/shared/secrets";
import type { ServiceContext } from "@vestibule/shared/service";
import {
  adminConfigFromRendered,
  mergeOverrides,
  overrideFromAdminConfigUpdate,
  renderConfig,
  validateAdminConfigUpdate,
  validateOverride,
  withoutSecretLeaves,
  type AdminConfigUpdate,
  type ConfigOverride,
  type RenderedConfig,
} from "./domain/config.ts";
import { trustedDomainProblem } from "./domain/domains.ts";
import { productionModeProblems } from "./domain/production-checks.ts";
import { IdentityEvents } from "./events.ts";
import { projectStore, type ProjectRow } from "./store/project-store.ts";
import { openSecrets, sealSecrets } from "./project-secrets.ts";

/** Project ids are `internal` or a UUID; anything else cannot exist. */
function isProjectId(id: string): boolean {
  return id === "internal" || isUuid(id);
}

function parseJsonObject(json: string, what: string): Record<string, unknown> {
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw statusError(400, `${what} is not valid JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw statusError(400, `${what} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** Parses and checks the contract's admin `config` update object; problems are a 400 listing them all. */
function parseAdminConfigUpdate(json: string): AdminConfigUpdate {
  const update = parseJsonObject(json, "config");
  const problems = validateAdminConfigUpdate(update);
  if (problems.length > 0) throw statusError(400, `Invalid project configuration: ${problems.join("; ")}`);
  return update as AdminConfigUpdate;
}

/**
 * The published backend's answers to a bad `PATCH /internal/config/override` (issue 13): "Invalid config JSON", and
 * the first problem in its `[ERROR] ...` form, e.g. `[ERROR] The key "x" is not valid for the schema.`.
 */
function parseOverridePatch(json: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw statusError(400, "Invalid config JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw statusError(400, "[ERROR] Config override must be a JSON object.");
  return parsed as Record<string, unknown>;
}

function overrideProblemText(problems: readonly string[]): string {
  const first = problems[0]!;
  const unknown = /^Unknown config key: (.*)$/.exec(first);
  return unknown ? `[ERROR] The key ${JSON.stringify(unknown[1])} is not valid for the schema.` : `[ERROR] ${first}`;
}

/** Checks a config override document after merging; any problem is a 400 with every message (or `text`'s). */
function checkOverride(override: ConfigOverride, text?: (problems: readonly string[]) => string): void {
  const problems = [...validateOverride(override)];
  const rendered = renderConfig(override);
  const trusted = rendered.domains.trustedDomains as Record<string, { baseUrl?: string }>;
  for (const d of Object.values(trusted)) {
    const problem = d?.baseUrl !== undefined ? trustedDomainProblem(d.baseUrl) : null;
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw statusError(400, text ? text(problems) : `Invalid project configuration: ${problems.join("; ")}`);
}

/** The wire message of a stored project, secrets included (RPC answers). Events carry `projectEventMessage`. */
export async function projectMessage(secrets: SecretBox, row: ProjectRow): Promise<Project> {
  return messageOf(row, renderConfig(await openSecrets(secrets, row.id, row.config_override)));
}

/**
 * The project as the identity.project.created/updated.v1 events carry it: the secret leaves of its configuration
 * (OAuth client secrets, the SMTP password) left out, since events are kept in the outbox table and in the bus's log.
 * They stay sealed in the row, so nothing is decrypted. Consumers that need a secret call GetProject.
 */
export function projectEventMessage(row: ProjectRow): Project {
  return messageOf(row, renderConfig(withoutSecretLeaves(row.config_override)));
}

function messageOf(row: ProjectRow, rendered: RenderedConfig): Project {
  return create(ProjectSchema, {
    id: row.id,
    displayName: row.display_name,
    description: row.description,
    logoUrl: row.logo_url ?? undefined,
    fullLogoUrl: row.full_logo_url ?? undefined,
    createdAtMillis: BigInt(row.created_at.getTime()),
    isProductionMode: row.is_production_mode,
    ownerTeamId: row.owner_team_id ?? undefined,
    adminConfigJson: JSON.stringify(adminConfigFromRendered(rendered)),
    renderedConfigJson: JSON.stringify(rendered),
    version: BigInt(row.version),
  });
}

export function createProjectService(ctx: ServiceContext): ServiceImpl<typeof ProjectService> {
  const { pool, outbox, secrets } = ctx;

  const toMessage = (row: ProjectRow): Promise<Project> => projectMessage(secrets, row);

  function notFound(projectId: string, kind: NotFoundError = NotFoundError.PROJECT_NOT_FOUND): never {
    if (kind === NotFoundError.CURRENT_PROJECT_NOT_FOUND) throw knownError("CURRENT_PROJECT_NOT_FOUND", { project_id: projectId });
    throw knownError("PROJECT_NOT_FOUND", { project_id: projectId });
  }

  return {
    async createProject(req) {
      const id = req.id || newId();
      if (!isProjectId(id)) throw statusError(400, "A project id must be a UUID or 'internal'.");
      const override = overrideFromAdminConfigUpdate(parseAdminConfigUpdate(req.configUpdateJson));
      checkOverride(override);
      const row = await withTransaction(pool, async (tx) => {
        const inserted = await projectStore.insert(tx, {
          id,
          display_name: req.displayName,
          description: req.description,
          logo_url: req.logoUrl ?? null,
          full_logo_url: req.fullLogoUrl ?? null,
          is_production_mode: req.isProductionMode,
          owner_team_id: req.ownerTeamId ?? null,
          config_override: await sealSecrets(secrets, id, override),
        });
        if (!inserted) throw statusError(409, `A project with id ${id} already exists.`);
        await outbox.enqueue(tx, IdentityEvents.projectCreated, { project: projectEventMessage(inserted) }, { projectId: id });
        return inserted;
      });
      return { project: await toMessage(row) };
    },

    async getProject(req) {
      const row = isProjectId(req.projectId) ? await projectStore.get(pool, req.projectId) : undefined;
      if (!row) notFound(req.projectId, req.notFoundError);
      return { project: await toMessage(row) };
    },

    async listProjects(req) {
      const rows = await projectStore.listByOwnerTeams(pool, req.ownerTeamIds.filter(isUuid));
      return { projects: await Promise.all(rows.map(toMessage)) };
    },

    async updateProject(req) {
      if (!isProjectId(req.projectId)) notFound(req.projectId);
      const project = await withTransaction(pool, async (tx) => {
        const row = await projectStore.get(tx, req.projectId, true);
        if (!row) notFound(req.projectId);
        let override = await openSecrets(secrets, row.id, row.config_override);
        if (req.configUpdateJson) {
          override = mergeOverrides(override, overrideFromAdminConfigUpdate(parseAdminConfigUpdate(req.configUpdateJson)));
          checkOverride(override);
        }
        if (req.ownerTeamId !== undefined && req.ownerTeamId !== "" && !isUuid(req.ownerTeamId)) {
          throw statusError(400, "owner_team_id must be a UUID.");
        }
        const updated = await projectStore.update(tx, {
          id: row.id,
          display_name: req.displayName ?? row.display_name,
          description: req.description ?? row.description,
          logo_url: req.clearLogoUrl ? null : (req.logoUrl ?? row.logo_url),
          full_logo_url: req.clearFullLogoUrl ? null : (req.fullLogoUrl ?? row.full_logo_url),
          is_production_mode: req.isProductionMode ?? row.is_production_mode,
          owner_team_id: req.ownerTeamId === undefined ? row.owner_team_id : req.ownerTeamId || null,
          config_override: await sealSecrets(secrets, row.id, override),
        });
        await outbox.enqueue(tx, IdentityEvents.projectUpdated, { project: projectEventMessage(updated) }, { projectId: row.id });
        return toMessage(updated);
      });
      return { project };
    },

    async deleteProject(req) {
      if (req.projectId === "internal") throw statusError(400, "The internal project cannot be deleted.");
      if (!isProjectId(req.projectId)) notFound(req.projectId);
      await withTransaction(pool, async (tx) => {
        if (!(await projectStore.delete(tx, req.projectId))) notFound(req.projectId);
        await outbox.enqueue(tx, IdentityEvents.projectDeleted, { projectId: req.projectId }, { projectId: req.projectId });
      });
      return {};
    },

    async updateConfigOverride(req) {
      if (!isProjectId(req.projectId)) notFound(req.projectId);
      const patch = parseOverridePatch(req.configOverrideJson);
      // Like the published backend, a key that names no config path is reported as given, before anything else.
      for (const [key, value] of Object.entries(patch)) {
        const unknown = validateOverride({ [key]: value }).map((p) => /^Unknown config key: (.*)$/.exec(p)?.[1]).find((k) => k !== undefined);
        if (unknown !== undefined && (key === unknown || key.startsWith(`${unknown}.`))) {
          throw statusError(400, `[ERROR] The key ${JSON.stringify(key)} is not valid for the schema.`);
        }
      }
      const project = await withTransaction(pool, async (tx) => {
        const row = await projectStore.get(tx, req.projectId, true);
        if (!row) notFound(req.projectId);
        const override = mergeOverrides(await openSecrets(secrets, row.id, row.config_override), patch as ConfigOverride);
        checkOverride(override, overrideProblemText);
        const updated = await projectStore.update(tx, { ...row, config_override: await sealSecrets(secrets, row.id, override) });
        await outbox.enqueue(tx, IdentityEvents.projectUpdated, { project: projectEventMessage(updated) }, { projectId: row.id });
        return toMessage(updated);
      });
      return { project };
    },

    async listProductionModeProblems(req) {
      const row = isProjectId(req.projectId) ? await projectStore.get(pool, req.projectId) : undefined;
      if (!row) notFound(req.projectId);
      const rendered = renderConfig(await openSecrets(secrets, row.id, row.config_override));
      return { problems: productionModeProblems(row.id, rendered).map((p) => ({ id: p.id, message: p.message, fixLink: p.fixLink })) };
    },
  };
}
