import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AsyncCache, CACHE_FETCH_CONCURRENCY, CACHE_INVALIDATION_DELAY_MS, CACHE_THROTTLE_MS, ThrottledRunner } from "./async-cache.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("cache constants", () => {
  it("fetch concurrency 1, throttle 300 ms, invalidation 5000 ms", () => {
    expect(CACHE_FETCH_CONCURRENCY).toBe(1);
    expect(CACHE_THROTTLE_MS).toBe(300);
    expect(CACHE_INVALIDATION_DELAY_MS).toBe(5_000);
  });
});

describe("ThrottledRunner", () => {
  it("runs one task at a time, starts them at least 300 ms apart and batches calls made while one waits", async () => {
    const runner = new ThrottledRunner<number>();
    const starts: number[] = [];
    let running = 0;
    let maxRunning = 0;
    let n = 0;
    const task = async () => {
      starts.push(Date.now());
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((r) => setTimeout(r, 50));
      running--;
      return ++n;
    };
    const t0 = Date.now();
    const a = runner.run(task);
    await vi.advanceTimersByTimeAsync(0);
    const b = runner.run(task);
    const c = runner.run(task);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await a).toBe(1);
    expect(await b).toBe(2);
    expect(await c).toBe(2); // batched with b
    expect(maxRunning).toBe(1);
    expect(starts.map((s) => s - t0)).toEqual([0, 300]);
  });
});

describe("AsyncCache", () => {
  it("serves cached values and keeps them while subscribed", async () => {
    const fetcher = vi.fn(async ([id]: readonly [string]) => `user ${id}`);
    const cache = new AsyncCache(fetcher);
    const onChange = vi.fn();
    const unsubscribe = cache.subscribe(["a"], onChange);
    await vi.advanceTimersByTimeAsync(0);
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(cache.getIfCached(["a"])).toMatchObject({ status: "ok", value: "user a" });
    expect(await cache.get(["a"])).toBe("user a");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await cache.get(["a"])).toBe("user a");
    expect(fetcher).toHaveBeenCalledTimes(1);
    unsubscribe();
  });

  it("drops a value 5000 ms after its last subscriber leaves, unless someone subscribes again", async () => {
    const fetcher = vi.fn(async () => Math.random());
    const cache = new AsyncCache<[], number>(fetcher);
    const off1 = cache.subscribe([], () => {});
    await vi.advanceTimersByTimeAsync(0);
    off1();
    await vi.advanceTimersByTimeAsync(4_999);
    const off2 = cache.subscribe([], () => {}); // re-subscribed in time: kept
    await vi.advanceTimersByTimeAsync(10_000);
    expect(cache.getIfCached([])?.status).toBe("ok");
    expect(fetcher).toHaveBeenCalledTimes(1);
    off2();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(cache.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(cache.size).toBe(0);
    expect(cache.getIfCached([])).toBeUndefined();
  });

  it("refreshes throttled and batched, and notifies subscribers of the new value", async () => {
    let version = 0;
    const fetcher = vi.fn(async () => ++version);
    const cache = new AsyncCache<[], number>(fetcher);
    const values: number[] = [];
    const off = cache.subscribe([], () => values.push((cache.getIfCached([]) as { value: number }).value));
    await vi.advanceTimersByTimeAsync(0);
    const r1 = cache.refresh([]);
    const r2 = cache.refresh([]);
    await vi.advanceTimersByTimeAsync(299);
    expect(fetcher).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await r1).toBe(2);
    expect(await r2).toBe(2);
    expect(fetcher).toHaveBeenCalledTimes(2);
    expect(values).toEqual([1, 2]);
    off();
  });

  it("keeps the last good value when a refresh fails, and records a failed first load", async () => {
    let fail = false;
    const cache = new AsyncCache<[], string>(async () => {
      if (fail) throw new Error("boom");
      return "ok";
    });
    expect(await cache.get([])).toBe("ok");
    fail = true;
    const refreshed = cache.refresh([]);
    await vi.advanceTimersByTimeAsync(300);
    await expect(refreshed).rejects.toThrow("boom");
    expect(cache.getIfCached([])).toMatchObject({ status: "ok", value: "ok" });
    const other = new AsyncCache<[], string>(async () => {
      throw new Error("first");
    });
    await expect(other.get([])).rejects.toThrow("first");
    expect(other.getIfCached([])?.status).toBe("error");
  });
});
