/**
 * Per-resource cache of server reads, shared by the imperative API (`await app.getUser()`) and the React hooks
 * (which subscribe). Rules of spec §4/§9:
 *  - each resource (key) fetches with concurrency 1 and at most one fetch start per `CACHE_THROTTLE_MS` (300 ms);
 *    refreshes asked for while one is waiting are batched into that one fetch;
 *  - a value stays cached while it has subscribers, and is dropped `CACHE_INVALIDATION_DELAY_MS` (5,000 ms) after
 *    the last subscriber leaves (or after it was loaded without any subscriber), unless someone subscribes again.
 */

export const CACHE_FETCH_CONCURRENCY = 1;
export const CACHE_THROTTLE_MS = 300;
export const CACHE_INVALIDATION_DELAY_MS = 5_000;

export type CacheState<V> =
  | { readonly status: "pending"; readonly promise: Promise<V> }
  | { readonly status: "ok"; readonly value: V; readonly promise: Promise<V> }
  | { readonly status: "error"; readonly error: unknown; readonly promise: Promise<V> };

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // rejections are observed by callers; never "unhandled" here
  return { promise, resolve, reject };
}

function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  (timer as { unref?: () => void }).unref?.();
}

/**
 * Runs one task at a time, starting tasks at least `throttleMs` apart; calls made while a run is waiting share it.
 */
export class ThrottledRunner<T> {
  private inFlight: Promise<unknown> | null = null;
  private queued: Deferred<T> | null = null;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(private readonly throttleMs: number = CACHE_THROTTLE_MS) {}

  run(task: () => Promise<T>): Promise<T> {
    if (this.queued) return this.queued.promise;
    const q = deferred<T>();
    this.queued = q;
    void this.start(q, task);
    return q.promise;
  }

  private async start(q: Deferred<T>, task: () => Promise<T>): Promise<void> {
    if (this.inFlight) await this.inFlight.then(() => {}, () => {});
    const delay = this.lastStart + this.throttleMs - Date.now();
    if (delay > 0) await new Promise<void>((r) => setTimeout(r, delay));
    this.queued = null;
    this.lastStart = Date.now();
    let p: Promise<T>;
    try {
      p = task();
    } catch (err) {
      p = Promise.reject(err);
    }
    this.inFlight = p;
    p.then(q.resolve, q.reject).finally(() => {
      if (this.inFlight === p) this.inFlight = null;
    });
  }
}

const objectIds = new WeakMap<object, number>();
let nextObjectId = 1;
function objectId(o: object): number {
  let id = objectIds.get(o);
  if (id === undefined) {
    id = nextObjectId++;
    objectIds.set(o, id);
  }
  return id;
}

interface Entry<K, V> {
  readonly key: K;
  state: CacheState<V> | null;
  readonly subscribers: Set<() => void>;
  readonly runner: ThrottledRunner<V>;
  dropTimer: ReturnType<typeof setTimeout> | null;
}

export interface AsyncCacheOptions {
  readonly throttleMs?: number;
  readonly invalidationDelayMs?: number;
}

export class AsyncCache<K extends readonly unknown[], V> {
  private readonly entries = new Map<string, Entry<K, V>>();
  private readonly handled = new WeakSet<Promise<V>>();
  private readonly throttleMs: number;
  private readonly invalidationDelayMs: number;

  constructor(
    private readonly fetcher: (key: K) => Promise<V>,
    options: AsyncCacheOptions = {},
  ) {
    this.throttleMs = options.throttleMs ?? CACHE_THROTTLE_MS;
    this.invalidationDelayMs = options.invalidationDelayMs ?? CACHE_INVALIDATION_DELAY_MS;
  }

  /** The cached state without fetching (undefined when nothing is cached or loading). */
  getIfCached(key: K): CacheState<V> | undefined {
    return this.entries.get(this.keyOf(key))?.state ?? undefined;
  }

  /** The cached value, or loads it. */
  get(key: K): Promise<V> {
    const entry = this.entry(key);
    if (entry.state && entry.state.status !== "error") return entry.state.promise;
    return this.load(key, entry);
  }

  /** Fetches again (throttled and batched) and resolves with the new value. */
  refresh(key: K): Promise<V> {
    return this.load(key, this.entry(key));
  }

  /** Stores a value known to be current (e.g. returned by an update). */
  set(key: K, value: V): void {
    const entry = this.entry(key);
    entry.state = { status: "ok", value, promise: Promise.resolve(value) };
    this.notify(entry);
    this.scheduleDropIfUnobserved(this.keyOf(key), entry);
  }

  /** Refreshes every cached key (after a change that may affect all of them, e.g. sign-out). */
  async refreshAll(): Promise<void> {
    await Promise.all([...this.entries.values()].filter((e) => e.state).map((e) => this.load(e.key, e).catch(() => {})));
  }

  /** Subscribes to changes of one key; loads it when nothing is cached. Returns the unsubscribe function. */
  subscribe(key: K, onChange: () => void): () => void {
    const k = this.keyOf(key);
    const entry = this.entry(key);
    if (entry.dropTimer) {
      clearTimeout(entry.dropTimer);
      entry.dropTimer = null;
    }
    entry.subscribers.add(onChange);
    if (!entry.state) void this.load(key, entry).catch(() => {});
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      entry.subscribers.delete(onChange);
      this.scheduleDropIfUnobserved(k, entry);
    };
  }

  /** Number of keys currently held (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /** Keys are compared by value, except objects (e.g. a Session), which are compared by identity. */
  private keyOf(key: K): string {
    return JSON.stringify(key.map((part) => (typeof part === "object" && part !== null ? `#${objectId(part)}` : part)));
  }

  private entry(key: K): Entry<K, V> {
    const k = this.keyOf(key);
    let entry = this.entries.get(k);
    if (!entry) {
      entry = { key, state: null, subscribers: new Set(), runner: new ThrottledRunner<V>(this.throttleMs), dropTimer: null };
      this.entries.set(k, entry);
    }
    return entry;
  }

  private load(key: K, entry: Entry<K, V>): Promise<V> {
    const promise = entry.runner.run(() => this.fetcher(key));
    if (!entry.state || entry.state.status === "error") {
      entry.state = { status: "pending", promise };
    }
    // Batched calls get the same promise: record its outcome once.
    if (this.handled.has(promise)) return promise;
    this.handled.add(promise);
    promise.then(
      (value) => {
        entry.state = { status: "ok", value, promise: Promise.resolve(value) };
        this.notify(entry);
        this.scheduleDropIfUnobserved(this.keyOf(key), entry);
      },
      (error) => {
        // A failed refresh keeps the last good value; a failed first load records the error.
        if (!entry.state || entry.state.status !== "ok") {
          const rejected = Promise.reject(error);
          rejected.catch(() => {});
          entry.state = { status: "error", error, promise: rejected };
          this.notify(entry);
        }
        this.scheduleDropIfUnobserved(this.keyOf(key), entry);
      },
    );
    return promise;
  }

  private notify(entry: Entry<K, V>): void {
    for (const s of [...entry.subscribers]) s();
  }

  private scheduleDropIfUnobserved(k: string, entry: Entry<K, V>): void {
    if (entry.subscribers.size > 0 || entry.dropTimer) return;
    entry.dropTimer = setTimeout(() => {
      entry.dropTimer = null;
      if (entry.subscribers.size === 0 && this.entries.get(k) === entry) this.entries.delete(k);
    }, this.invalidationDelayMs);
    unrefTimer(entry.dropTimer);
  }
}
