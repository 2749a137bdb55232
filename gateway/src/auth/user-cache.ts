import { Code, ConnectError } from "@connectrpc/connect";
import type { User } from "@vestibule/proto/identity/v1/user";
import type { ServiceClients } from "../clients.ts";

/**
 * Users by (project, id), so `GET /users/me` and every request that needs "the current user" costs no RPC when
 * nothing changed. identity.user.* events drop entries on every replica; a TTL bounds the damage of a missed event.
 * A fetch that raced with an invalidation is not stored. Deleted / unknown users are remembered briefly as null.
 */
export class UserCache {
  private readonly entries = new Map<string, { user: User | null; expiresAt: number }>();
  private readonly loading = new Map<string, Promise<User | null>>();
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly clients: Pick<ServiceClients, "users">,
    private readonly ttlMs = 5 * 60_000,
    private readonly negativeTtlMs = 5_000,
    private readonly maxEntries = 200_000,
  ) {}

  private static key(projectId: string, userId: string): string {
    return `${projectId}|${userId}`;
  }

  async get(projectId: string, userId: string): Promise<User | null> {
    const key = UserCache.key(projectId, userId);
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return hit.user;
    let p = this.loading.get(key);
    if (!p) {
      const generation = this.generations.get(key) ?? 0;
      p = this.clients.users.getUser({ projectId, userId }).then(
        (res) => this.store(key, generation, res.user ?? null),
        (err: unknown) => {
          if (err instanceof ConnectError && err.code === Code.NotFound) return this.store(key, generation, null);
          throw err;
        },
      );
      p.finally(() => this.loading.delete(key)).catch(() => {});
      this.loading.set(key, p);
    }
    return p;
  }

  private store(key: string, generation: number, user: User | null): User | null {
    if ((this.generations.get(key) ?? 0) === generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { user, expiresAt: Date.now() + (user ? this.ttlMs : this.negativeTtlMs) });
    }
    return user;
  }

  /** Stores a user just returned by a write RPC (newer versions only). */
  put(user: User): void {
    const key = UserCache.key(user.projectId, user.id);
    const current = this.entries.get(key)?.user;
    if (current && current.version > user.version) return;
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.entries.set(key, { user, expiresAt: Date.now() + this.ttlMs });
  }

  /** A counter that changes whenever the entry of a user is replaced or dropped (see `afterWrite`). */
  generation(projectId: string, userId: string): number {
    return this.generations.get(UserCache.key(projectId, userId)) ?? 0;
  }

  /**
   * Read-your-writes after a request that may have changed users through any service (a sign-up upgrading an
   * anonymous user, a password set, a channel added, a team selected...): drops each of `userIds` unless the request
   * itself already stored or dropped it since `before` (its generation then). Other gateway replicas learn the change
   * from identity.user.* events.
   */
  afterWrite(projectId: string, userIds: Iterable<string>, before: ReadonlyMap<string, number>): void {
    for (const userId of userIds) {
      const then = before.get(userId);
      if (then === undefined || this.generation(projectId, userId) === then) this.invalidate(projectId, userId);
    }
  }

  invalidate(projectId: string, userId: string): void {
    const key = UserCache.key(projectId, userId);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.entries.delete(key);
  }

  clear(): void {
    for (const key of this.entries.keys()) this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.entries.clear();
  }
}
