import { ProjectConfigCache } from "@vestibule/shared/project-config";
import { authSettingsFromRendered, type AuthSettings } from "./domain/settings.ts";
import type { IdentityClients } from "./peers.ts";

/**
 * Project settings of the auth service (sign-in methods, token lifetimes, trusted domains... from identity's rendered
 * config), cached per project and dropped by identity.project.* events (see ProjectConfigCache), so a sign-in or
 * refresh costs no project RPC when nothing changed.
 */
export class ProjectSettingsCache extends ProjectConfigCache<AuthSettings> {
  constructor(clients: Pick<IdentityClients, "projects">, ttlMs?: number) {
    super(clients.projects, (p) => authSettingsFromRendered(p.id, p.displayName, p.renderedConfigJson), { ttlMs });
  }
}
