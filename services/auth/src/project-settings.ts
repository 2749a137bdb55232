import { NotFoundError } from "@vestibule/proto/identity/v1/project_service";
import type { EventBus, Subscription } from "@vestibule/shared/events";
import { decodeEnvelope } from "@vestibule/shared/events";
import { authSettingsFromRendered, type AuthSettings } from "./domain/settings.ts";
import type { IdentityClients } from "./peers.ts";

/**
 * Project settings (from identity's GetProject rendered config) cached per project, so a sign-in or refresh costs no
 * project RPC when nothing changed. Every replica drops an entry on identity.project.* events (broadcast) and, as a
 * safety net for missed events, after `ttlMs`. Concurrent misses share one RPC; a load that raced with an
 * invalidation is not stored. Unknown projects are not cached: identity's PROJECT_NOT_FOUND is thrown to the caller.
 */
export class ProjectSettingsCache {
  private readonly entries = new Map<string, { value: AuthSettings; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<AuthSettings>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: Pick<IdentityClients, "projects">,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async get(projectId: string): Promise<AuthSettings> {
    const hit = this.entries.get(projectId);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    let p = this.loading.get(projectId);
    if (!p) {
      const generation = this.generations.get(projectId) ?? 0;
      p = (async () => {
        const { project } = await this.clients.projects.getProject({ projectId, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
        const value = authSettingsFromRendered(project!.id, project!.displayName, project!.renderedConfigJson);
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

  /** Keeps the cache in step with identity.project.* events on every replica. */
  subscribe(bus: EventBus): Promise<Subscription> {
    return bus.broadcast({
      subject: "identity.project.>",
      handler: (msg) => this.invalidate(decodeEnvelope(msg.data).projectId),
      onReset: () => this.clear(),
    });
  }
}
