/**
 * A cache of values loaded on demand, for the read models services and gateways keep of other services' data
 * (projects, users, keys, teams) and drop when an event says the data changed:
 * - concurrent misses of one key share one load;
 * - an entry lives `ttlMs` (or `ttlFor(value)`, e.g. shorter for "not found"): a bound on the harm of a missed event;
 * - `invalidate(key)` drops the entry, and a load that started before it does not store its (possibly stale) result,
 *   though it still answers the callers that were waiting for it; `set` likewise wins over loads under way;
 * - at most `maxEntries` entries: the oldest goes first;
 * - a failed load stores nothing and rejects every caller waiting for it.
 */
export interface LoadingCacheOptions<V> {
  readonly ttlMs: number;
  /** Lifetime of a particular value (default `ttlMs`); 0 or less: not stored. */
  readonly ttlFor?: (value: V) => number;
  /** Default 100,000. */
  readonly maxEntries?: number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
  /** When it was stored (see `stamp`). */
  readonly seq: number;
  /** Stored by `set` (a value known to be current), not by a load. */
  readonly fromSet: boolean;
}

interface Load<V> {
  readonly promise: Promise<V>;
  /** Set when the entry was invalidated or set while this load was under way: its result is not stored. */
  stale: boolean;
}

export class LoadingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Load<V>>();
  private readonly maxEntries: number;
  private seq = 0;

  constructor(
    private readonly load: (key: string) => Promise<V>,
    private readonly options: LoadingCacheOptions<V>,
  ) {
    this.maxEntries = Math.max(1, options.maxEntries ?? 100_000);
  }

  /**
   * The value of `key`: cached, or loaded (by `load`, else the cache's own loader; a per-call loader serves values
   * whose load needs more than the key, e.g. a secret that must not become part of the key).
   */
  get(key: string, loader?: (key: string) => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > Date.now()) return Promise.resolve(hit.value);
    const pending = this.loading.get(key);
    if (pending) return pending.promise;
    const load: Load<V> = {
      stale: false,
      promise: (loader ?? this.load)(key).then((value) => {
        if (!load.stale) this.store(key, value, false);
        return value;
      }),
    };
    this.loading.set(key, load);
    // The load's error reaches every caller through the promise returned below; this catch only keeps the clean-up
    // chain from being reported as an unhandled rejection.
    load.promise
      .finally(() => {
        if (this.loading.get(key) === load) this.loading.delete(key);
      })
      .catch(() => {});
    return load.promise;
  }

  /** The value cached now, if any (no load). */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > Date.now() ? hit.value : undefined;
  }

  /** Stores a value known to be current (e.g. returned by a write); loads under way do not overwrite it. */
  set(key: string, value: V): void {
    this.detachLoad(key);
    this.store(key, value, true);
  }

  /** Drops an entry; a load already under way will not store its result. */
  invalidate(key: string): void {
    this.detachLoad(key);
    this.entries.delete(key);
  }

  /** Drops every entry (and load under way) whose key satisfies `predicate`. */
  invalidateWhere(predicate: (key: string) => boolean): void {
    for (const key of new Set([...this.entries.keys(), ...this.loading.keys()])) if (predicate(key)) this.invalidate(key);
  }

  clear(): void {
    this.invalidateWhere(() => true);
  }

  /** A point in the cache's history, for `setSince`. */
  stamp(): number {
    return this.seq;
  }

  /** Whether `set` stored the entry of `key` after `stamp` (and it is still there). */
  setSince(key: string, stamp: number): boolean {
    const e = this.entries.get(key);
    return e !== undefined && e.fromSet && e.seq > stamp;
  }

  get size(): number {
    return this.entries.size;
  }

  private detachLoad(key: string): void {
    const load = this.loading.get(key);
    if (load) {
      load.stale = true;
      this.loading.delete(key);
    }
  }

  private store(key: string, value: V, fromSet: boolean): void {
    const ttl = this.options.ttlFor ? this.options.ttlFor(value) : this.options.ttlMs;
    this.entries.delete(key);
    if (ttl <= 0) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: Date.now() + ttl, seq: ++this.seq, fromSet });
  }
}
