import { describe, expect, it } from "vitest";
import { bucketLabel, bucketName, labelIndexes, niceTicks } from "./chart-scale.ts";

describe("niceTicks", () => {
  it("covers the maximum with whole 1-2-5 steps from zero", () => {
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(1)).toEqual([0, 1]);
    expect(niceTicks(3)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(10)).toEqual([0, 5, 10]);
    expect(niceTicks(37)).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(1234)).toEqual([0, 500, 1000, 1500]);
  });
});

describe("bucket labels", () => {
  it("names days, weeks and months", () => {
    expect(bucketLabel("2026-11-26", "day")).toBe("26 Nov");
    expect(bucketLabel("2026-11-01", "month")).toBe("Nov 2026");
    expect(bucketName("2026-11-26", "day")).toBe("26 Nov 2026");
    expect(bucketName("2026-11-23", "week")).toBe("week of 23 Nov 2026");
    expect(bucketName("2026-01-01", "month")).toBe("Jan 2026");
  });

  it("keeps at most max x labels, evenly spaced, with the first and the last", () => {
    expect(labelIndexes(0, 6)).toEqual([]);
    expect(labelIndexes(4, 6)).toEqual([0, 1, 2, 3]);
    expect(labelIndexes(30, 6)).toEqual([0, 6, 12, 17, 23, 29]);
    expect(labelIndexes(90, 4)).toEqual([0, 30, 59, 89]);
    expect(labelIndexes(7, 3)).toEqual([0, 3, 6]);
    expect(labelIndexes(8, 3)).toEqual([0, 4, 7]);
    expect(labelIndexes(5, 1)).toEqual([4]);
  });
});
