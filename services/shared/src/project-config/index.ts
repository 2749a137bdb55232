import type { Project } from "@vestibule/proto/identity/v1/project";
import { NotFoundError } from "@vestibule/proto/identity/v1/project_service";
import { LoadingCache } from "../cache/index.ts";
import { decodeEnvelope, type EventBus, type Subscription } from "../events/index.ts";

/** What the cache needs of identity's ProjectService client. */
export interface ProjectReader {
  getProject(req: { projectId: string; notFoundError: NotFoundError }): Promise<{ project?: Project }>;
}

export interface ProjectConfigCacheOptions<T> {
  /** Default 5 minutes (a bound on the harm of a missed event). */
  readonly ttlMs?: number;
  /** The identity config version a value was built from; enables `get(id, minVersion)` and newer-only `put`. */
  readonly versionOf?: (value: T) => number;
}

/**
 * What a service needs from each project's configuration (its view `T`, built from identity's GetProject answer by
 * `toValue`), kept per project so that a request costs no project RPC when nothing changed. Every replica drops an
 * entry on identity.project.* events (`subscribe`, a broadcast), and after `ttlMs` as a safety net; concurrent misses
 * share one RPC and a load that raced with an invalidation is not stored (LoadingCache). Unknown projects are not
 * cached: identity's PROJECT_NOT_FOUND reaches the caller.
 */
export class ProjectConfigCache<T> {
  private readonly cache: LoadingCache<T>;

  constructor(
    private readonly projects: ProjectReader,
    private readonly toValue: (project: Project) => T,
    private readonly options: ProjectConfigCacheOptions<T> = {},
  ) {
    this.cache = new LoadingCache((projectId) => this.fetch(projectId), { ttlMs: options.ttlMs ?? 5 * 60_000 });
  }

  /**
   * The project's view. With `minVersion` (needs `versionOf`), a cached view older than that configuration version
   * is loaded again: read-your-writes after a caller saw a newer version.
   */
  async get(projectId: string, minVersion = 0): Promise<T> {
    const value = await this.cache.get(projectId);
    const { versionOf } = this.options;
    if (!versionOf || versionOf(value) >= minVersion) return value;
    this.cache.invalidate(projectId);
    return this.cache.get(projectId);
  }

  /** Reads the project from identity now, bypassing the cache, and keeps the result. */
  async reload(projectId: string): Promise<T> {
    this.cache.invalidate(projectId);
    return this.put(await this.fetchProject(projectId));
  }

  /** Stores a project received in an RPC answer (newer versions only, when `versionOf` is given); returns its view. */
  put(project: Project): T {
    const value = this.toValue(project);
    const current = this.cache.peek(project.id);
    const { versionOf } = this.options;
    if (!(versionOf && current !== undefined && versionOf(current) > versionOf(value))) this.cache.set(project.id, value);
    return value;
  }

  invalidate(projectId: string): void {
    this.cache.invalidate(projectId);
  }

  clear(): void {
    this.cache.clear();
  }

  /** Keeps the cache in step with identity.project.* events on every replica. */
  subscribe(bus: EventBus): Promise<Subscription> {
    return bus.broadcast({
      subject: "identity.project.>",
      handler: (msg) => this.invalidate(decodeEnvelope(msg.data).projectId),
      onReset: () => this.clear(),
    });
  }

  private async fetch(projectId: string): Promise<T> {
    return this.toValue(await this.fetchProject(projectId));
  }

  private async fetchProject(projectId: string): Promise<Project> {
    const { project } = await this.projects.getProject({ projectId, notFoundError: NotFoundError.PROJECT_NOT_FOUND });
    if (!project) throw new Error(`GetProject answered no project for ${projectId}`);
    return project;
  }
}
