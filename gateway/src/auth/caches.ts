import { createHash } from "node:crypto";
import type { Project } from "@vestibule/proto/identity/v1/project";
import { ProjectKeyType } from "@vestibule/proto/identity/v1/api_key_service";
import { NotFoundError } from "@vestibule/proto/identity/v1/project_service";
import { LoadingCache } from "@vestibule/shared/cache";
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

/**
 * Projects by id, so authenticating a request costs no RPC when nothing changed. Entries are dropped by the
 * identity.project.* events (every gateway replica receives them) and, as a safety net for missed events, after
 * `ttlMs`. Unknown projects are remembered briefly (`negativeTtlMs`) so a stream of requests for a wrong id does not
 * become a stream of RPCs. Concurrent misses for one id share one RPC; a fetch that raced with an invalidation is
 * not stored (LoadingCache).
 */
export class ProjectCache {
  private readonly cache: LoadingCache<CachedProject | null>;

  constructor(
    private readonly clients: Pick<ServiceClients, "projects">,
    ttlMs = 5 * 60_000,
    negativeTtlMs = 5_000,
  ) {
    this.cache = new LoadingCache((projectId) => this.load(projectId), { ttlMs, ttlFor: (p) => (p ? ttlMs : negativeTtlMs) });
  }

  get(projectId: string): Promise<CachedProject | null> {
    return this.cache.get(projectId);
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
    const current = this.cache.peek(project.id);
    if (current && current.project.version > project.version) return;
    this.cache.set(project.id, toCached(project));
  }

  invalidate(projectId: string): void {
    this.cache.invalidate(projectId);
  }

  clear(): void {
    this.cache.clear();
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
 * as soon as the event arrives (a check that raced with the event is not kept: LoadingCache).
 */
export class KeyCache {
  private readonly cache: LoadingCache<{ valid: boolean; expiresAtMillis: number; keySetId: string }>;

  constructor(
    private readonly clients: Pick<ServiceClients, "apiKeySets">,
    ttlMs = 5 * 60_000,
    negativeTtlMs = 5_000,
  ) {
    this.cache = new LoadingCache(() => Promise.reject(new Error("KeyCache loads with the key at hand")), {
      ttlMs,
      ttlFor: (r) => (r.valid ? Math.min(ttlMs, (r.expiresAtMillis || Infinity) - Date.now()) : negativeTtlMs),
    });
  }

  async check(projectId: string, kind: KeyKind, key: string): Promise<boolean> {
    return (await this.lookup(projectId, kind, key)).valid;
  }

  /** The key set of a valid key (the audit log's actor), undefined when the key is not valid. */
  async keySetId(projectId: string, kind: KeyKind, key: string): Promise<string | undefined> {
    const r = await this.lookup(projectId, kind, key);
    return r.valid ? r.keySetId : undefined;
  }

  private lookup(projectId: string, kind: KeyKind, key: string) {
    const id = `${projectId}|${kind}|${createHash("sha256").update(key).digest("base64url")}`;
    return this.cache.get(id, () => this.load(projectId, kind, key));
  }

  private async load(projectId: string, kind: KeyKind, key: string): Promise<{ valid: boolean; expiresAtMillis: number; keySetId: string }> {
    const res = await this.clients.apiKeySets.checkProjectKey({ projectId, keyType: KEY_TYPES[kind], key });
    return { valid: res.valid, expiresAtMillis: Number(res.expiresAtMillis), keySetId: res.apiKeySetId };
  }

  invalidateProject(projectId: string): void {
    this.cache.invalidateWhere((id) => id.startsWith(`${projectId}|`));
  }

  clear(): void {
    this.cache.clear();
  }
}
