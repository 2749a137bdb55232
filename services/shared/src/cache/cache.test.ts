import { afterEach, describe, expect, it, vi } from "vitest";
import { LoadingCache } from "./index.ts";

/** A load function whose calls wait until the test resolves them. */
function controlledLoads<V>() {
  const calls: { key: string; resolve(v: V): void; reject(e: unknown): void }[] = [];
  const load = (key: string) => new Promise<V>((resolve, reject) => calls.push({ key, resolve, reject }));
  return { load, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("LoadingCache", () => {
  it("shares one load between concurrent misses and serves hits without loading", async () => {
    const { load, calls } = controlledLoads<string>();
    const cache = new LoadingCache(load, { ttlMs: 1000 });
    const a = cache.get("k");
    const b = cache.get("k");
    expect(calls).toHaveLength(1);
    calls[0]!.resolve("v1");
    expect(await a).toBe("v1");
    expect(await b).toBe("v1");
    expect(await cache.get("k")).toBe("v1");
    expect(calls).toHaveLength(1);
  });

  it("expires entries after their lifetime, which may depend on the value", async () => {
    vi.useFakeTimers();
    let n = 0;
    const cache = new LoadingCache(async (key) => (key === "missing" ? null : `v${++n}`), { ttlMs: 1000, ttlFor: (v) => (v === null ? 100 : 1000) });
    expect(await cache.get("k")).toBe("v1");
    expect(await cache.get("missing")).toBeNull();
    vi.advanceTimersByTime(500);
    expect(cache.peek("k")).toBe("v1");
    expect(cache.peek("missing")).toBeUndefined();
    vi.advanceTimersByTime(600);
    expect(await cache.get("k")).toBe("v2");
  });

  it("does not store a load that raced with an invalidation, but still answers its callers", async () => {
    const { load, calls } = controlledLoads<string>();
    const cache = new LoadingCache(load, { ttlMs: 1000 });
    const before = cache.get("k");
    cache.invalidate("k");
    const after = cache.get("k");
    expect(calls).toHaveLength(2);
    calls[0]!.resolve("old");
    calls[1]!.resolve("new");
    expect(await before).toBe("old");
    expect(await after).toBe("new");
    expect(cache.peek("k")).toBe("new");
  });

  it("keeps a value from set over a load that was under way", async () => {
    const { load, calls } = controlledLoads<string>();
    const cache = new LoadingCache(load, { ttlMs: 1000 });
    const loading = cache.get("k");
    cache.set("k", "written");
    calls[0]!.resolve("read before the write");
    expect(await loading).toBe("read before the write");
    expect(cache.peek("k")).toBe("written");
  });

  it("stores nothing when a load fails, and loads again next time", async () => {
    let fail = true;
    const cache = new LoadingCache(async () => {
      if (fail) throw new Error("down");
      return "up";
    }, { ttlMs: 1000 });
    await expect(cache.get("k")).rejects.toThrow("down");
    fail = false;
    expect(await cache.get("k")).toBe("up");
  });

  it("evicts the oldest entry beyond maxEntries", async () => {
    const cache = new LoadingCache(async (key) => key.toUpperCase(), { ttlMs: 1000, maxEntries: 2 });
    await cache.get("a");
    await cache.get("b");
    await cache.get("c");
    expect(cache.size).toBe(2);
    expect(cache.peek("a")).toBeUndefined();
    expect(cache.peek("c")).toBe("C");
  });

  it("tells whether set stored an entry since a stamp (loads and invalidations do not count)", async () => {
    const cache = new LoadingCache(async () => "loaded", { ttlMs: 1000 });
    await cache.get("loaded");
    const stamp = cache.stamp();
    expect(cache.setSince("loaded", stamp)).toBe(false);
    cache.set("written", "fresh");
    expect(cache.setSince("written", stamp)).toBe(true);
    await cache.get("other");
    expect(cache.setSince("other", stamp)).toBe(false);
    cache.invalidate("written");
    expect(cache.setSince("written", stamp)).toBe(false);
  });

  it("invalidates by predicate and clears everything", async () => {
    const cache = new LoadingCache(async (key) => key, { ttlMs: 1000 });
    await Promise.all(["p1|a", "p1|b", "p2|a"].map((k) => cache.get(k)));
    cache.invalidateWhere((k) => k.startsWith("p1|"));
    expect([cache.peek("p1|a"), cache.peek("p1|b"), cache.peek("p2|a")]).toEqual([undefined, undefined, "p2|a"]);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
