import type { Client } from "@connectrpc/connect";
import { NotFoundError, ProjectService } from "@vestibule/proto/identity/v1/project_service";
import type { EventBus, Subscription } from "@vestibule/shared/events";
import { decodeEnvelope } from "@vestibule/shared/events";
import { emailSettingsFromRendered, type ProjectEmailSettings } from "./domain/settings.ts";

/**
 * Project e-mail settings (from identity's GetProject rendered config) cached per project. Every replica drops an entry
 * on identity.project.* events (broadcast) and, as a safety net for missed events, after `ttlMs`; concurrent misses
 * share one RPC. Unknown projects are not cached: identity's PROJECT_NOT_FOUND reaches the caller.
 */
export class ProjectSettingsCache {
  private readonly entries = new Map<string, { value: ProjectEmailSettings; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<ProjectEmailSettings>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly projects: Client<typeof ProjectService>,
    private readonly ttlMs = 60_000,
  ) {}

  async get(projectId: string): Promise<ProjectEmailSettings> {
    const hit = this.entries.get(projectId);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    let p = this.loading.get(projectId);
    if (!p) {
      const generation = this.generations.get(projectId) ?? 0;
      p = (async () => {
        const { project } = await this.projects.getProject({ projectId, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
        const value = emailSettingsFromRendered(project!.id, project!.displayName, project!.renderedConfigJson);
        if ((this.generations.get(projectId) ?? 0) === generation) this.entries.set(projectId, { value, expiresAt: Date.now() + this.ttlMs });
        return value;
      })();
      this.loading.set(projectId, p);
      p.finally(() => this.loading.delete(projectId)).catch(() => {});
    }
    return p;
  }

  invalidate(projectId: string): void {
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
    this.entries.delete(projectId);
    this.loading.delete(projectId);
  }

  clear(): void {
    for (const id of new Set([...this.entries.keys(), ...this.generations.keys()])) this.invalidate(id);
  }

  subscribe(bus: EventBus): Promise<Subscription> {
    return bus.broadcast({
      subject: "identity.project.>",
      handler: (msg) => this.invalidate(decodeEnvelope(msg.data).projectId),
      onReset: () => this.clear(),
    });
  }
}
