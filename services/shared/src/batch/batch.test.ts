import { describe, expect, it } from "vitest";
import { Batch } from "./index.ts";

describe("Batch (issue 22)", () => {
  it("keeps outcomes in order; the first outcome of an item stands", () => {
    const b = new Batch<string, number>(["a", "b", "c"]);
    b.succeed(2, 3);
    b.fail(0, "bad a");
    b.succeed(0, 1);
    expect(b.pending()).toEqual([1]);
    expect(b.isPending(1)).toBe(true);
    b.succeed(1, 2);
    expect(b.outcomes()).toEqual([{ error: "bad a" }, { ok: 2 }, { ok: 3 }]);
  });

  it("a shared step's failure fails every item it was for (default: every pending one), and only those", async () => {
    const b = new Batch<string, number>(["a", "b", "c", "d"]);
    b.fail(0, "early");
    expect(await b.shared(async () => 7)).toBe(7);
    expect(await b.shared(() => Promise.reject(new Error("db down")), [1, 2])).toBeUndefined();
    expect(b.pending()).toEqual([3]);
    expect(await b.shared(() => Promise.reject(new Error("identity down")))).toBeUndefined();
    const [a, x, y, d] = b.outcomes();
    expect(a).toEqual({ error: "early" });
    expect((x as { error: Error }).error.message).toBe("db down");
    expect((y as { error: Error }).error.message).toBe("db down");
    expect((d as { error: Error }).error.message).toBe("identity down");
  });

  it("a per-item step's failure stays with its item", async () => {
    const b = new Batch<number, number>([1, 2, 3]);
    await b.each([0, 1, 2], async (i, k) => {
      expect(k).toBe(i);
      if (i === 1) throw new Error("only b");
      b.succeed(i, b.items[i]! * 10);
    });
    expect(b.outcomes()).toEqual([{ ok: 10 }, { error: new Error("only b") }, { ok: 30 }]);
  });

  it("an item left without an outcome fails instead of answering nothing", () => {
    const [o] = new Batch<string, number>(["a"]).outcomes();
    expect((o as { error: Error }).error.message).toMatch(/without an outcome/);
  });
});
