import type { Client } from "@connectrpc/connect";
import { NotFoundError, ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { decodeEnvelope, type EventBus, type Subscription } from "@vestibule/shared/events";
import { declaredStores } from "./domain/stores.ts";

/**
 * The data-vault stores each project declares (identity's rendered config), cached per project: every replica drops
 * an entry on identity.project.* events (broadcast) and after `ttlMs` as a safety net. Concurrent misses share one
 * RPC; a load that raced with an invalidation is not stored.
 */
export class ProjectStoresCache {
  private readonly entries = new Map<string, { stores: ReadonlySet<string>; until: number }>();
  private readonly loading = new Map<string, Promise<ReadonlySet<string>>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly projects: Client<typeof ProjectService>,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async get(projectId: string): Promise<ReadonlySet<string>> {
    const hit = this.entries.get(projectId);
    if (hit && hit.until > Date.now()) return hit.stores;
    let p = this.loading.get(projectId);
    if (!p) {
      const generation = this.generations.get(projectId) ?? 0;
      p = (async () => {
        const { project } = await this.projects.getProject({ projectId, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
        const stores = declaredStores(project!.renderedConfigJson);
        if ((this.generations.get(projectId) ?? 0) === generation) this.entries.set(projectId, { stores, until: Date.now() + this.ttlMs });
        return stores;
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
