import { describe, expect, it } from "vitest";
import { reserveAttempts, settleAttempts, type CounterRef, type CounterState } from "./grants.ts";

const policy = { threshold: 3, baseSeconds: 1, maxSeconds: 60 };
const account: CounterRef = { key: "a", policy, resetBySuccess: true };
const ip: CounterRef = { key: "ip", policy: { ...policy, threshold: 5 }, resetBySuccess: false };
const state = (entries: Record<string, Partial<CounterState>>) =>
  new Map(Object.entries(entries).map(([k, v]) => [k, { failures: 0, pending: 0, wait: 0, ...v }]));

describe("brute-force reservations", () => {
  it("reserves while the attempts in flight could not block the counter; the next ones wait", () => {
    const r = reserveAttempts([[account], [account], [account], [account]], state({}));
    expect(r.decisions).toEqual([{ granted: true }, { granted: true }, { granted: true }, { granted: false, retryAfterSeconds: undefined }]);
    expect(r.writes.get("a")).toMatchObject({ pending: 3, reserved: true, failures: 0 });
  });

  it("after the threshold, one attempt at a time (each failure blocks); a blocked counter refuses with its wait", () => {
    expect(reserveAttempts([[account], [account]], state({ a: { failures: 4 } })).decisions).toEqual([
      { granted: true },
      { granted: false, retryAfterSeconds: undefined },
    ]);
    expect(reserveAttempts([[account, ip]], state({ ip: { failures: 9, wait: 7 } })).decisions).toEqual([{ granted: false, retryAfterSeconds: 7 }]);
  });

  it("an attempt that waits or is refused takes nothing from its other counter", () => {
    const r = reserveAttempts([[{ ...account, key: "b" }, ip], [account, ip]], state({ b: { wait: 3 } }));
    expect(r.decisions).toEqual([{ granted: false, retryAfterSeconds: 3 }, { granted: true }]);
    expect(r.writes.get("ip")).toMatchObject({ pending: 1 });
    expect(r.writes.has("b")).toBe(false);
  });

  it("settling: failures count with the usual back-off, a success resets the account only, release counts nothing", () => {
    const s = state({ a: { pending: 3, failures: 1 }, ip: { pending: 3, failures: 4 } });
    const failed = settleAttempts([{ refs: [account, ip], outcome: "failure" }, { refs: [account, ip], outcome: "failure" }], s);
    expect(failed.writes.get("a")).toEqual({ failures: 3, pending: 1, reserved: false, failed: true, block: 1 });
    expect(failed.writes.get("ip")).toEqual({ failures: 6, pending: 1, reserved: false, failed: true, block: 2 });

    const ok = settleAttempts([{ refs: [account, ip], outcome: "success" }], s);
    expect(ok.writes.get("a")).toMatchObject({ failures: 0, pending: 2, block: 0 });
    expect(ok.writes.get("ip")).toMatchObject({ failures: 4, pending: 2, block: -1 });

    const released = settleAttempts([{ refs: [account, ip], outcome: "release" }], s);
    expect(released.writes.get("a")).toMatchObject({ failures: 1, pending: 2, failed: false, block: -1 });
  });

  it("a success settled together with failures (in flight together) forgets only the failures settled before", () => {
    const r = settleAttempts([{ refs: [account], outcome: "failure" }, { refs: [account], outcome: "success" }], state({ a: { pending: 2, failures: 2 } }));
    expect(r.writes.get("a")).toMatchObject({ failures: 1, pending: 0, failed: true });
  });

  it("counters that end with nothing to remember are deleted, not written", () => {
    const r = settleAttempts([{ refs: [account, ip], outcome: "success" }], state({ a: { pending: 1, failures: 2 }, ip: { pending: 1 } }));
    expect(r.clean.sort()).toEqual(["a", "ip"]);
    expect(r.writes.size).toBe(0);
    expect(reserveAttempts([[account]], state({ a: { wait: 5 } })).clean).toEqual([]);
  });
});
