import { Type } from "typebox";
import { DisplayName, Email, ImageUrl, Nullable, Obj, OneOf, Url, Uuid } from "../../validation/index.ts";
import type { Project } from "@vestibule/proto/identity/v1/project";
import type { FastifyRequest } from "fastify";
import { fromConnectError, isStatusError, knownError, statusError } from "@vestibule/shared/errors";
import { AccessType } from "@vestibule/proto/teams_permissions/v1/team";
import type { RequestAuth } from "../../auth/request-auth.ts";
import { ownerTeamIds } from "../../auth/project-ownership.ts";
import { defineRoute } from "../route.ts";

const CONFIG_PROBLEMS = "Invalid project configuration: ";

/**
 * A project configuration identity refuses (a domain it does not trust, a standard e-mail server or OAuth provider
 * without its required fields, ...) answered as the SCHEMA_ERROR the published backend gives for a bad `config`,
 * one line per problem, not as plain text (issue 13).
 */
async function configProblemsAsSchemaError<T>(req: FastifyRequest, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const known = fromConnectError(err);
    if (known && isStatusError(known) && known.httpStatus === 400 && known.message.startsWith(CONFIG_PROBLEMS)) {
      // identity puts one problem per line (a problem may contain "; ", like the spec's money messages)
      const lines = known.message.slice(CONFIG_PROBLEMS.length).split("\n").map((line) => `  - body.${line}`);
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on ${req.method} ${req.url.split("?")[0]}:\n${lines.join("\n")}` });
    }
    throw err;
  }
}

/** The admin project shape of `/internal/projects*`. */
export function adminProjectView(p: Project): Record<string, unknown> {
  return {
    id: p.id,
    display_name: p.displayName,
    description: p.description,
    logo_url: p.logoUrl ?? null,
    full_logo_url: p.fullLogoUrl ?? null,
    // The current SDK's names and fields (latest-sdk.md B): full_logo_url is now logo_full_url (both are shown).
    logo_full_url: p.fullLogoUrl ?? null,
    logo_dark_mode_url: p.logoDarkModeUrl ?? null,
    logo_full_dark_mode_url: p.logoFullDarkModeUrl ?? null,
    onboarding_status: p.onboardingStatus || null,
    is_development_environment: p.isDevelopmentEnvironment,
    created_at_millis: Number(p.createdAtMillis),
    is_production_mode: p.isProductionMode,
    owner_team_id: p.ownerTeamId ?? null,
    config: JSON.parse(p.adminConfigJson || "{}") as unknown,
  };
}

const OptionalImageUrl = Type.Optional(Nullable(ImageUrl()));

const OAuthProvider = Obj(
  {
    id: Type.String(),
    type: OneOf(["shared", "standard"]),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    facebook_config_id: Type.Optional(Type.String()),
    microsoft_tenant_id: Type.Optional(Type.String()),
    apple_bundle_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 })),
    enabled: Type.Optional(Type.Boolean()),
  },
);

const PermissionRef = Obj({ id: Type.String() });

/** The `config` update fields of POST /internal/projects and PATCH /internal/projects/current. */
export const ProjectConfigUpdate = Obj(
  {
    sign_up_enabled: Type.Optional(Type.Boolean()),
    credential_enabled: Type.Optional(Type.Boolean()),
    magic_link_enabled: Type.Optional(Type.Boolean()),
    passkey_enabled: Type.Optional(Type.Boolean()),
    client_team_creation_enabled: Type.Optional(Type.Boolean()),
    client_user_deletion_enabled: Type.Optional(Type.Boolean()),
    allow_localhost: Type.Optional(Type.Boolean()),
    allow_user_api_keys: Type.Optional(Type.Boolean()),
    allow_team_api_keys: Type.Optional(Type.Boolean()),
    create_team_on_sign_up: Type.Optional(Type.Boolean()),
    oauth_account_merge_strategy: Type.Optional(
      OneOf(["link_method", "raise_error", "allow_duplicates"]),
    ),
    email_config: Type.Optional(
      Obj(
        {
          type: OneOf(["shared", "standard"]),
          host: Type.Optional(Type.String()),
          port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
          username: Type.Optional(Type.String()),
          password: Type.Optional(Type.String()),
          sender_name: Type.Optional(Type.String()),
          sender_email: Type.Optional(Email()),
        },
      ),
    ),
    email_theme: Type.Optional(Uuid()),
    domains: Type.Optional(
      Type.Array(
        Obj({ domain: Url(), handler_path: Type.String({ pattern: "^/" }) }),
      ),
    ),
    oauth_providers: Type.Optional(Type.Array(OAuthProvider)),
    team_creator_default_permissions: Type.Optional(Type.Array(PermissionRef)),
    team_member_default_permissions: Type.Optional(Type.Array(PermissionRef)),
    user_default_permissions: Type.Optional(Type.Array(PermissionRef)),
  },
);

/** The current SDK's project fields; `logo_full_url` is the new name of `full_logo_url` (either may be sent). */
const newerProjectFields = {
  logo_full_url: OptionalImageUrl,
  logo_dark_mode_url: OptionalImageUrl,
  logo_full_dark_mode_url: OptionalImageUrl,
  onboarding_status: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  is_development_environment: Type.Optional(Type.Boolean()),
};

type NewerProjectFields = { full_logo_url?: string | null; logo_full_url?: string | null };

/** The full logo from either name; both given and different → 400. */
function fullLogoOf(body: NewerProjectFields): string | null | undefined {
  if (body.full_logo_url !== undefined && body.logo_full_url !== undefined && body.full_logo_url !== body.logo_full_url) {
    throw statusError(400, "full_logo_url and logo_full_url name the same field; send one of them.");
  }
  return body.logo_full_url !== undefined ? body.logo_full_url : body.full_logo_url;
}

const ProjectUpdate = Obj(
  {
    display_name: Type.Optional(DisplayName({ minLength: 1 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    logo_url: OptionalImageUrl,
    full_logo_url: OptionalImageUrl,
    ...newerProjectFields,
    is_production_mode: Type.Optional(Type.Boolean()),
    config: Type.Optional(ProjectConfigUpdate),
  },
);

const ProjectCreate = Obj(
  {
    display_name: DisplayName({ minLength: 1 }),
    owner_team_id: Uuid(),
    description: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    logo_url: OptionalImageUrl,
    full_logo_url: OptionalImageUrl,
    ...newerProjectFields,
    is_production_mode: Type.Optional(Type.Boolean()),
    config: Type.Optional(ProjectConfigUpdate),
  },
);

/** `/internal/projects` is for signed-in users of the `internal` project (project owners), any access type. */
export function requireInternalUser(auth: RequestAuth): string {
  if (auth.projectId !== "internal") throw knownError("EXPECTED_INTERNAL_PROJECT");
  if (!auth.user) throw knownError("USER_AUTHENTICATION_REQUIRED");
  return auth.user.id;
}

/**
 * The projects a signed-in user of `internal` manages: those owned by a team of `internal` they belong to (the
 * teams-permissions service knows the memberships; identity lists the projects of those owner teams).
 */
export const listInternalProjectsRoute = defineRoute({
  method: "GET",
  path: "/internal/projects",
  summary: "Projects the signed-in project owner manages",
  tags: ["Projects (admin)"],
  access: ["client", "server", "admin"],
  project: "internal",
  schemas: {},
  async handler({ auth, clients }) {
    const userId = requireInternalUser(auth);
    const ownerTeams = await ownerTeamIds(clients, userId);
    const { projects } = ownerTeams.length > 0 ? await clients.projects.listProjects({ ownerTeamIds: ownerTeams }) : { projects: [] };
    return { json: { items: projects.map(adminProjectView), is_paginated: false } };
  },
});

/**
 * Creates a project owned by one of the caller's teams (of `internal`; TEAM_MEMBERSHIP_NOT_FOUND otherwise).
 * `allow_localhost` defaults to true, as in the reference.
 */
export const createInternalProjectRoute = defineRoute({
  method: "POST",
  path: "/internal/projects",
  summary: "Create a project owned by one of the caller's teams",
  tags: ["Projects (admin)"],
  access: ["client", "server", "admin"],
  project: "internal",
  schemas: { body: ProjectCreate },
  async handler({ auth, body, clients, req }) {
    const userId = requireInternalUser(auth);
    await clients.teamMembers.getTeamMember({ projectId: "internal", caller: { accessType: AccessType.SERVER }, teamId: body.owner_team_id, userId });
    const { project } = await configProblemsAsSchemaError(req, clients.projects.createProject({
      displayName: body.display_name,
      description: body.description ?? "",
      logoUrl: body.logo_url ?? undefined,
      fullLogoUrl: fullLogoOf(body) ?? undefined,
      logoDarkModeUrl: body.logo_dark_mode_url ?? undefined,
      logoFullDarkModeUrl: body.logo_full_dark_mode_url ?? undefined,
      onboardingStatus: body.onboarding_status ?? "",
      isDevelopmentEnvironment: body.is_development_environment ?? false,
      isProductionMode: body.is_production_mode ?? false,
      ownerTeamId: body.owner_team_id,
      configUpdateJson: JSON.stringify({ allow_localhost: true, ...body.config }),
    }));
    return { status: 201, json: adminProjectView(project!) };
  },
});

export const getAdminProjectRoute = defineRoute({
  method: "GET",
  path: "/internal/projects/current",
  summary: "The current project with its full configuration",
  tags: ["Projects (admin)"],
  access: ["admin"],
  schemas: {},
  async handler({ auth, clients }) {
    const { project } = await clients.projects.getProject({ projectId: auth.projectId });
    return { json: adminProjectView(project!) };
  },
});

export const updateAdminProjectRoute = defineRoute({
  method: "PATCH",
  path: "/internal/projects/current",
  summary: "Update the current project and its configuration",
  tags: ["Projects (admin)"],
  access: ["admin"],
  schemas: { body: ProjectUpdate },
  async handler({ auth, body, clients, projects, req }) {
    const { project } = await configProblemsAsSchemaError(req, clients.projects.updateProject({
      projectId: auth.projectId,
      displayName: body.display_name,
      description: body.description === null ? "" : body.description,
      logoUrl: body.logo_url ?? undefined,
      clearLogoUrl: body.logo_url === null,
      fullLogoUrl: fullLogoOf(body) ?? undefined,
      clearFullLogoUrl: fullLogoOf(body) === null,
      logoDarkModeUrl: body.logo_dark_mode_url ?? undefined,
      clearLogoDarkModeUrl: body.logo_dark_mode_url === null,
      logoFullDarkModeUrl: body.logo_full_dark_mode_url ?? undefined,
      clearLogoFullDarkModeUrl: body.logo_full_dark_mode_url === null,
      onboardingStatus: body.onboarding_status === null ? "" : body.onboarding_status,
      isDevelopmentEnvironment: body.is_development_environment,
      isProductionMode: body.is_production_mode,
      configUpdateJson: body.config ? JSON.stringify(body.config) : "",
    }));
    projects.put(project!);
    return { json: adminProjectView(project!) };
  },
});

export const deleteAdminProjectRoute = defineRoute({
  method: "DELETE",
  path: "/internal/projects/current",
  summary: "Delete the current project",
  tags: ["Projects (admin)"],
  access: ["admin"],
  schemas: {},
  async handler({ auth, clients, projects }) {
    await clients.projects.deleteProject({ projectId: auth.projectId });
    projects.invalidate(auth.projectId);
    return { json: { success: true } };
  },
});

export const getConfigRoute = defineRoute({
  method: "GET",
  path: "/internal/config",
  summary: "The fully rendered configuration of the current project",
  tags: ["Config (admin)"],
  access: ["admin"],
  schemas: {},
  async handler({ auth, clients }) {
    const { project } = await clients.projects.getProject({ projectId: auth.projectId });
    return { json: { config_string: project!.renderedConfigJson } };
  },
});

export const updateConfigOverrideRoute = defineRoute({
  method: "PATCH",
  path: "/internal/config/override",
  summary: "Deep-merge an override into the project's configuration",
  tags: ["Config (admin)"],
  access: ["admin"],
  schemas: {
    body: Obj({ config_override_string: Type.Optional(Type.String()) }),
  },
  async handler({ auth, body, clients, projects }) {
    if (body.config_override_string === undefined) return { json: {} };
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.config_override_string);
    } catch {
      throw statusError(400, "Invalid config JSON"); // the published backend's text (issue 13)
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw statusError(400, "config_override_string must be a JSON object");
    }
    const { project } = await clients.projects.updateConfigOverride({ projectId: auth.projectId, configOverrideJson: body.config_override_string });
    projects.put(project!);
    return { json: {} };
  },
});
