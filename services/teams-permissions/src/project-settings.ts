import type { Project } from "@vestibule/proto/identity/v1/project";
import { ProjectConfigCache } from "@vestibule/shared/project-config";
import { projectSettingsFromRendered, type ProjectSettings } from "./domain/rbac.ts";
import type { IdentityClients } from "./peers.ts";

/**
 * The event-fed projection of what this service needs from a project's configuration (permission definitions with
 * their closures, default permissions, team flags, trusted domains), one per project, built from identity's rendered
 * config and dropped by identity.project.* events (see ProjectConfigCache); `get(id, minVersion)` also reloads when
 * the caller has seen a newer configuration version (read-your-writes after a config change). The closures are
 * computed once per loaded version.
 */
export class ProjectSettingsCache extends ProjectConfigCache<ProjectSettings> {
  constructor(clients: Pick<IdentityClients, "projects">, ttlMs?: number) {
    super(clients.projects, toSettings, { ttlMs, versionOf: (s) => s.version });
  }
}

function toSettings(project: Project): ProjectSettings {
  return projectSettingsFromRendered({
    id: project.id,
    displayName: project.displayName,
    version: Number(project.version),
    renderedConfigJson: project.renderedConfigJson,
  });
}
