import { describe, expect, it } from "vitest";
import { MAX_WAIT_MILLIS, wait } from "./wait.ts";

describe("wait", () => {
  it("accepts finite, non-negative waits up to 2147483647 ms and refuses the rest", async () => {
    expect(MAX_WAIT_MILLIS).toBe(2_147_483_647);
    await expect(wait(0)).resolves.toBeUndefined();
    await expect(wait(-1)).rejects.toThrow(RangeError);
    await expect(wait(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    await expect(wait(Number.NaN)).rejects.toThrow(RangeError);
    await expect(wait(2_147_483_648)).rejects.toThrow(/below 2147483648 ms/);
  });
});
