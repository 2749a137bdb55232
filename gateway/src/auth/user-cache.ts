import { Code, ConnectError } from "@connectrpc/connect";
import type { User } from "@vestibule/proto/identity/v1/user";
import { LoadingCache } from "@vestibule/shared/cache";
import type { ServiceClients } from "../clients.ts";

/**
 * Users by (project, id), so `GET /users/me` and every request that needs "the current user" costs no RPC when
 * nothing changed. identity.user.* events drop entries on every replica; a TTL bounds the damage of a missed event.
 * A fetch that raced with an invalidation is not stored. Deleted / unknown users are remembered briefly as null.
 */
export class UserCache {
  private readonly cache: LoadingCache<User | null>;

  constructor(
    private readonly clients: Pick<ServiceClients, "users">,
    ttlMs = 5 * 60_000,
    negativeTtlMs = 5_000,
    maxEntries = 200_000,
  ) {
    this.cache = new LoadingCache((key) => this.fetch(key), { ttlMs, ttlFor: (user) => (user ? ttlMs : negativeTtlMs), maxEntries });
  }

  private static key(projectId: string, userId: string): string {
    return `${projectId}|${userId}`;
  }

  private async fetch(key: string): Promise<User | null> {
    const [projectId, userId] = key.split("|") as [string, string];
    try {
      return (await this.clients.users.getUser({ projectId, userId })).user ?? null;
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) return null;
      throw err;
    }
  }

  get(projectId: string, userId: string): Promise<User | null> {
    return this.cache.get(UserCache.key(projectId, userId));
  }

  /** Stores a user just returned by a write RPC (newer versions only). */
  put(user: User): void {
    const key = UserCache.key(user.projectId, user.id);
    const current = this.cache.peek(key);
    if (current && current.version > user.version) return;
    this.cache.set(key, user);
  }

  /** A point in the cache's history, for `afterWrite`. */
  stamp(): number {
    return this.cache.stamp();
  }

  /**
   * Read-your-writes after a request that may have changed users through any service (a sign-up upgrading an
   * anonymous user, a password set, a channel added, a team selected...): drops each of `userIds` unless the request
   * stored its fresh copy itself (`put`) since `stamp`. Other gateway replicas learn the change from identity.user.*
   * events.
   */
  afterWrite(projectId: string, userIds: Iterable<string>, stamp: number): void {
    for (const userId of userIds) {
      if (!this.cache.setSince(UserCache.key(projectId, userId), stamp)) this.invalidate(projectId, userId);
    }
  }

  invalidate(projectId: string, userId: string): void {
    this.cache.invalidate(UserCache.key(projectId, userId));
  }

  clear(): void {
    this.cache.clear();
  }
}
