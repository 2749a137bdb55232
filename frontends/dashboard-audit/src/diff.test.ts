import { describe, expect, it } from "vitest";
import { jsonDiff } from "./diff.ts";

describe("jsonDiff", () => {
  it("lists changed, added and removed fields by dotted path", () => {
    expect(jsonDiff({ a: 1, b: { c: "x", d: [1] }, gone: true }, { a: 1, b: { c: "y", d: [1, 2] }, added: null, fresh: 3 })).toEqual([
      { path: "b.c", before: "x", after: "y", kind: "changed" },
      { path: "b.d", before: [1], after: [1, 2], kind: "changed" },
      { path: "fresh", before: undefined, after: 3, kind: "added" },
      { path: "gone", before: true, after: undefined, kind: "removed" },
    ]);
    expect(jsonDiff(null, { id: "u" })).toEqual([{ path: "id", before: undefined, after: "u", kind: "added" }]);
    expect(jsonDiff({ id: "u" }, null)).toEqual([{ path: "id", before: "u", after: undefined, kind: "removed" }]);
    expect(jsonDiff("a", "b")).toEqual([{ path: "(value)", before: "a", after: "b", kind: "changed" }]);
    expect(jsonDiff({ id: "u" }, { id: "u" })).toEqual([]);
  });
});
