import { createHash } from "node:crypto";
import type { Project } from "@vestibule/proto/identity/v1/project";
import { ProjectKeyType } from "@vestibule/proto/identity/v1/api_key_service";
import { NotFoundError } from "@vestibule/proto/identity/v1/project_service";
import { KnownError, fromConnectError } from "@vestibule/shared/errors";
import type { ServiceClients } from "../clients.ts";

/** A project as the gateway keeps it: the RPC message plus its parsed configuration views. */
export interface CachedProject {
  readonly project: Project;
  /** Contract admin `config` object. */
  readonly adminConfig: Record<string, unknown>;
  /** Rendered layered config (Stack's config keys). */
  readonly renderedConfig: Record<string, unknown>;
}

interface Entry<T> {
  readonly value: T;
  readonly expiresAt: number;
}

/**
 * Projects by id, so authenticating a request costs no RPC when nothing changed. Entries are dropped by the
 * identity.project.* events (every gateway replica receives them) and, as a safety net for missed events, after
 * `ttlMs`. Unknown projects are remembered briefly (`negativeTtlMs`) so a stream of requests for a wrong id does not
 * become a stream of RPCs. Concurrent misses for one id share one RPC; a fetch that raced with an invalidation is
 * not stored.
 */
export class ProjectCache {
  private readonly entries = new Map<string, Entry<CachedProject | null>>();
  private readonly loading = new Map<string, Promise<CachedProject | null>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: Pick<ServiceClients, "projects">,
    private readonly ttlMs = 5 * 60_000,
    private readonly negativeTtlMs = 5_000,
  ) {}

  async get(projectId: string): Promise<CachedProject | null> {
    const hit = this.entries.get(projectId);
    if (hit && hit.expiresAt > Date.now()) return hit.value;
    let p = this.loading.get(projectId);
    if (!p) {
      const generation = this.generations.get(projectId) ?? 0;
      p = this.load(projectId).then((value) => {
        if ((this.generations.get(projectId) ?? 0) === generation) {
          this.entries.set(projectId, { value, expiresAt: Date.now() + (value ? this.ttlMs : this.negativeTtlMs) });
        }
        return value;
      });
      p.finally(() => this.loading.delete(projectId)).catch(() => {});
      this.loading.set(projectId, p);
    }
    return p;
  }

  private async load(projectId: string): Promise<CachedProject | null> {
    try {
      const { project } = await this.clients.projects.getProject({ projectId, notFoundError: NotFoundError.CURRENT_PROJECT_NOT_FOUND });
      return project ? toCached(project) : null;
    } catch (err) {
      const known = fromConnectError(err);
      if (known instanceof KnownError && (known.code === "CURRENT_PROJECT_NOT_FOUND" || known.code === "PROJECT_NOT_FOUND")) return null;
      throw err;
    }
  }

  /** Stores a project received in an event or an RPC answer (newer versions only). */
  put(project: Project): void {
    const current = this.entries.get(project.id)?.value;
    if (current && current.project.version > project.version) return;
    this.bump(project.id);
    this.entries.set(project.id, { value: toCached(project), expiresAt: Date.now() + this.ttlMs });
  }

  invalidate(projectId: string): void {
    this.bump(projectId);
    this.entries.delete(projectId);
  }

  clear(): void {
    for (const id of this.entries.keys()) this.bump(id);
    this.entries.clear();
  }

  private bump(id: string): void {
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
  }
}

export function toCached(project: Project): CachedProject {
  return {
    project,
    adminConfig: JSON.parse(project.adminConfigJson || "{}") as Record<string, unknown>,
    renderedConfig: JSON.parse(project.renderedConfigJson || "{}") as Record<string, unknown>,
  };
}

export type KeyKind = "publishable_client" | "secret_server" | "super_secret_admin";

const KEY_TYPES: Record<KeyKind, ProjectKeyType> = {
  publishable_client: ProjectKeyType.PUBLISHABLE_CLIENT,
  secret_server: ProjectKeyType.SECRET_SERVER,
  super_secret_admin: ProjectKeyType.SUPER_SECRET_ADMIN,
};

/**
 * Answers "is this key valid for this project" from memory after the first check. Keyed by a hash of the key (the
 * key itself is not kept). A valid answer lasts until the key's own expiry or `ttlMs`; an invalid one `negativeTtlMs`.
 * identity.api_key_set.* events drop every answer of that project on every replica, so a revoked key stops working
 * as soon as the event arrives.
 */
export class KeyCache {
  private readonly entries = new Map<string, { valid: boolean; expiresAt: number; projectId: string }>();
  private readonly loading = new Map<string, Promise<boolean>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: Pick<ServiceClients, "apiKeySets">,
    private readonly ttlMs = 5 * 60_000,
    private readonly negativeTtlMs = 5_000,
  ) {}

  async check(projectId: string, kind: KeyKind, key: string): Promise<boolean> {
    const id = `${projectId}|${kind}|${createHash("sha256").update(key).digest("base64url")}`;
    const hit = this.entries.get(id);
    const now = Date.now();
    if (hit && hit.expiresAt > now) return hit.valid;
    let p = this.loading.get(id);
    if (!p) {
      const generation = this.generations.get(projectId) ?? 0;
      p = this.clients.apiKeySets.checkProjectKey({ projectId, keyType: KEY_TYPES[kind], key }).then((res) => {
        if ((this.generations.get(projectId) ?? 0) === generation) {
          const keyExpiry = Number(res.expiresAtMillis) || Infinity;
          const expiresAt = res.valid ? Math.min(Date.now() + this.ttlMs, keyExpiry) : Date.now() + this.negativeTtlMs;
          this.entries.set(id, { valid: res.valid, expiresAt, projectId });
        }
        return res.valid;
      });
      p.finally(() => this.loading.delete(id)).catch(() => {});
      this.loading.set(id, p);
    }
    return p;
  }

  invalidateProject(projectId: string): void {
    this.generations.set(projectId, (this.generations.get(projectId) ?? 0) + 1);
    for (const [k, v] of this.entries) if (v.projectId === projectId) this.entries.delete(k);
  }

  clear(): void {
    for (const v of this.entries.values()) this.generations.set(v.projectId, (this.generations.get(v.projectId) ?? 0) + 1);
    this.entries.clear();
  }
}
