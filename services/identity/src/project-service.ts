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
  renderLevels,
  withoutSecretLeaves,
  type RenderedConfig,
} from "./domain/config/index.ts";
import { productionModeProblems } from "./domain/production-checks.ts";
import { IdentityEvents } from "./events.ts";
import { projectStore, type ProjectRow } from "./store/project-store.ts";
import { createConfigOverrideRpcs } from "./config-override-service.ts";
import { checkLevels, isProjectId, parseAdminConfigUpdate } from "./project-checks.ts";
import { openLevels, sealSecrets } from "./project-secrets.ts";

/** The wire message of a stored project, secrets included (RPC answers). Events carry `projectEventMessage`. */
export async function projectMessage(secrets: SecretBox, row: ProjectRow): Promise<Project> {
  return messageOf(row, renderLevels(await openLevels(secrets, row)));
}

/**
 * The project as the identity.project.created/updated.v1 events carry it: the secret leaves of its configuration
 * (OAuth client secrets, the SMTP password) left out, since events are kept in the outbox table and in the bus's log.
 * They stay sealed in the row, so nothing is decrypted. Consumers that need a secret call GetProject.
 */
export function projectEventMessage(row: ProjectRow): Project {
  return messageOf(
    row,
    renderLevels({
      project: withoutSecretLeaves(row.project_config_override),
      branch: withoutSecretLeaves(row.branch_config_override),
      environment: withoutSecretLeaves(row.config_override),
    }),
  );
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
    logoDarkModeUrl: row.logo_dark_mode_url ?? undefined,
    logoFullDarkModeUrl: row.logo_full_dark_mode_url ?? undefined,
    onboardingStatus: row.onboarding_status,
    isDevelopmentEnvironment: row.is_development_environment,
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
      checkLevels({ project: {}, branch: {}, environment: override }, override);
      const row = await withTransaction(pool, async (tx) => {
        const inserted = await projectStore.insert(tx, {
          id,
          display_name: req.displayName,
          description: req.description,
          logo_url: req.logoUrl ?? null,
          full_logo_url: req.fullLogoUrl ?? null,
          logo_dark_mode_url: req.logoDarkModeUrl ?? null,
          logo_full_dark_mode_url: req.logoFullDarkModeUrl ?? null,
          onboarding_status: req.onboardingStatus,
          is_development_environment: req.isDevelopmentEnvironment,
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
        const levels = await openLevels(secrets, row);
        let override = levels.environment;
        if (req.configUpdateJson) {
          override = mergeOverrides(override, overrideFromAdminConfigUpdate(parseAdminConfigUpdate(req.configUpdateJson)));
          checkLevels({ ...levels, environment: override }, override, levels);
        }
        if (req.ownerTeamId !== undefined && req.ownerTeamId !== "" && !isUuid(req.ownerTeamId)) {
          throw statusError(400, "owner_team_id must be a UUID.");
        }
        const updated = await projectStore.update(tx, {
          ...row,
          display_name: req.displayName ?? row.display_name,
          description: req.description ?? row.description,
          logo_url: req.clearLogoUrl ? null : (req.logoUrl ?? row.logo_url),
          full_logo_url: req.clearFullLogoUrl ? null : (req.fullLogoUrl ?? row.full_logo_url),
          logo_dark_mode_url: req.clearLogoDarkModeUrl ? null : (req.logoDarkModeUrl ?? row.logo_dark_mode_url),
          logo_full_dark_mode_url: req.clearLogoFullDarkModeUrl ? null : (req.logoFullDarkModeUrl ?? row.logo_full_dark_mode_url),
          onboarding_status: req.onboardingStatus ?? row.onboarding_status,
          is_development_environment: req.isDevelopmentEnvironment ?? row.is_development_environment,
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

    ...createConfigOverrideRpcs(ctx, { toMessage, eventMessage: projectEventMessage }),

    async listProductionModeProblems(req) {
      const row = isProjectId(req.projectId) ? await projectStore.get(pool, req.projectId) : undefined;
      if (!row) notFound(req.projectId);
      const rendered = renderLevels(await openLevels(secrets, row));
      return { problems: productionModeProblems(row.id, rendered).map((p) => ({ id: p.id, message: p.message, fixLink: p.fixLink })) };
    },
  };
}
