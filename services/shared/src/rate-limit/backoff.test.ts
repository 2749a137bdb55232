import { describe, expect, it } from "vitest";
import { blockSeconds, tooManyAttemptsMessage } from "./backoff.ts";

describe("back-off windows", () => {
  it("nothing before the threshold, then 1, 2, 4 ... seconds capped", () => {
    const policy = { threshold: 5, baseSeconds: 1, maxSeconds: 60 };
    expect([1, 2, 3, 4].map((n) => blockSeconds(n, policy))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11, 12, 100, 10_000].map((n) => blockSeconds(n, policy))).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
  });

  it("message names the wait", () => {
    expect(tooManyAttemptsMessage(4)).toBe("Too many attempts. Please wait 4 seconds and try again.");
  });
});
