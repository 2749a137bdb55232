import { describe, expect, it } from "vitest";
import { blockFor, blockSeconds, rememberedFailures, tooManyAttemptsMessage } from "./backoff.ts";
import { isLoopbackIp } from "./rate-limiter.ts";

describe("back-off windows", () => {
  it("nothing before the threshold, then 1, 2, 4 ... seconds capped", () => {
    const policy = { threshold: 5, baseSeconds: 1, maxSeconds: 60 };
    expect([1, 2, 3, 4].map((n) => blockSeconds(n, policy))).toEqual([0, 0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11, 12, 100, 10_000].map((n) => blockSeconds(n, policy))).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
  });

  it("message names the wait", () => {
    expect(tooManyAttemptsMessage(4)).toBe("Too many attempts. Please wait 4 seconds and try again.");
  });

  it("a client IP's bucket: 100 failures a day, then one per 864 s; it refills evenly", () => {
    const bucket = { capacity: 100, windowSeconds: 86_400 };
    expect([1, 50, 99].map((n) => blockFor(n, bucket))).toEqual([0, 0, 0]);
    expect([100, 101, 150, 10_000].map((n) => blockFor(n, bucket))).toEqual([864, 1728, 44_064, 86_400]);
    expect([0, 863, 864, 8640, 86_400, 10 ** 9].map((idle) => rememberedFailures(100, idle, bucket, 900))).toEqual([100, 100, 99, 90, 0, 0]);
    // An account's failures are forgotten at once after the reset period, not gradually.
    const account = { threshold: 5, baseSeconds: 1, maxSeconds: 60 };
    expect([0, 900, 901].map((idle) => rememberedFailures(4, idle, account, 900))).toEqual([4, 4, 0]);
  });

  it("loopback addresses (exempt per IP in development mode)", () => {
    expect(["127.0.0.1", "127.5.6.7", "::1", "::ffff:127.0.0.1"].every(isLoopbackIp)).toBe(true);
    expect(["10.0.0.1", "203.0.113.9", "::2", "::ffff:10.0.0.1", "127.0.0.1.evil", ""].some(isLoopbackIp)).toBe(false);
  });
});
