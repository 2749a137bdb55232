import type { Client } from "@connectrpc/connect";
import type { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ProjectConfigCache } from "@vestibule/shared/project-config";
import { emailSettingsFromRendered, type ProjectEmailSettings } from "./domain/settings.ts";

/**
 * Project e-mail settings (sender, SMTP server, theme... from identity's rendered config), cached per project and
 * dropped by identity.project.* events (see ProjectConfigCache); a minute at most without an event.
 */
export class ProjectSettingsCache extends ProjectConfigCache<ProjectEmailSettings> {
  constructor(projects: Client<typeof ProjectService>, ttlMs = 60_000) {
    super(projects, (p) => emailSettingsFromRendered(p.id, p.displayName, p.renderedConfigJson), { ttlMs });
  }
}
