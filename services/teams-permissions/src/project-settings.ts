import type { Project } from "@vestibule/proto/identity/v1/project";
import { NotFoundError } from "@vestibule/proto/identity/v1/project_service";
import type { EventBus, Subscription } from "@vestibule/shared/events";
import { decodeEnvelope } from "@vestibule/shared/events";
import { projectSettingsFromRendered, type ProjectSettings } from "./domain/rbac.ts";
import type { IdentityClients } from "./peers.ts";

/**
 * The event-fed projection of what this service needs from a project's configuration (permission definitions with
 * their closures, default permissions, team flags, trusted domains), one per project, built from identity's rendered
 * config. Every replica drops an entry on identity.project.* events (broadcast) and, as a safety net for missed
 * events, after `ttlMs`; `get(id, minVersion)` also reloads when the caller has seen a newer configuration version
 * (read-your-writes after a config change). Concurrent loads share one RPC; a load that raced with an invalidation
 * is not stored. The closures are computed once per loaded version.
 */
export class ProjectSettingsCache {
  private readonly entries = new Map<string, { value: ProjectSettings; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<ProjectSettings>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: Pick<IdentityClients, "projects">,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  /** PROJECT_NOT_FOUND (from identity) when the project does not exist. */
  async get(projectId: string, minVersion = 0): Promise<ProjectSettings> {
    const hit = this.entries.get(projectId);
    if (hit && hit.expiresAt > Date.now() && hit.value.version >= minVersion) return hit.value;
    if (hit && hit.value.version < minVersion) this.invalidate(projectId);
    let p = this.loading.get(projectId);
    if (!p) {
      const generation = this.generations.get(projectId) ?? 0;
      p = (async () => {
        const { project } = await this.clients.projects.getProject({ projectId, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
        const value = toSettings(project!);
        if ((this.generations.get(projectId) ?? 0) === generation) this.store(value);
        return value;
      })();
      this.loading.set(projectId, p);
      p.finally(() => this.loading.delete(projectId)).catch(() => {});
    }
    const value = await p;
    // A load that started before the caller's version existed: load once more.
    return value.version >= minVersion ? value : this.reload(projectId);
  }

  /** Reads the project from identity now, bypassing the cache (definition writes validate against the latest). */
  async reload(projectId: string): Promise<ProjectSettings> {
    this.invalidate(projectId);
    const { project } = await this.clients.projects.getProject({ projectId, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
    return this.put(project!);
  }

  /** Stores a project received in an RPC answer (newer versions only) and returns its settings. */
  put(project: Project): ProjectSettings {
    const value = toSettings(project);
    const current = this.entries.get(project.id)?.value;
    if (current && current.version > value.version) return value;
    this.bump(project.id);
    this.store(value);
    return value;
  }

  invalidate(projectId: string): void {
    this.bump(projectId);
    this.entries.delete(projectId);
    this.loading.delete(projectId);
  }

  clear(): void {
    for (const id of new Set([...this.entries.keys(), ...this.generations.keys()])) this.invalidate(id);
  }

  /** Keeps the cache in step with identity.project.* events on every replica. */
  subscribe(bus: EventBus): Promise<Subscription> {
    return bus.broadcast({
      subject: "identity.project.>",
      handler: (msg) => this.invalidate(decodeEnvelope(msg.data).projectId),
      onReset: () => this.clear(),
    });
  }

  private store(value: ProjectSettings): void {
    this.entries.set(value.projectId, { value, expiresAt: Date.now() + this.ttlMs });
  }

  private bump(id: string): void {
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
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
