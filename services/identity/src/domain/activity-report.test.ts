import { describe, expect, it } from "vitest";
import { activityReport, bucketStart, bucketStarts, weeksBetween } from "./activity-report.ts";

describe("buckets", () => {
  it("starts weeks on Monday and months on the 1st", () => {
    expect(bucketStart("2026-11-26", "day")).toBe("2026-11-26");
    expect(bucketStart("2026-11-26", "week")).toBe("2026-11-23"); // a Thursday
    expect(bucketStart("2026-11-23", "week")).toBe("2026-11-23"); // a Monday
    expect(bucketStart("2026-11-29", "week")).toBe("2026-11-23"); // a Sunday
    expect(bucketStart("2027-01-02", "week")).toBe("2026-12-28"); // across a year
    expect(bucketStart("2026-11-26", "month")).toBe("2026-11-01");
  });

  it("lists every bucket of a range, widened to whole buckets", () => {
    expect(bucketStarts("2026-11-24", "2026-11-26", "day")).toEqual(["2026-11-24", "2026-11-25", "2026-11-26"]);
    expect(bucketStarts("2026-11-10", "2026-11-26", "week")).toEqual(["2026-11-09", "2026-11-16", "2026-11-23"]);
    expect(bucketStarts("2026-10-31", "2027-01-01", "month")).toEqual(["2026-10-01", "2026-11-01", "2026-12-01", "2027-01-01"]);
    expect(bucketStarts("2026-02-28", "2026-03-01", "day")).toEqual(["2026-02-28", "2026-03-01"]);
    expect(weeksBetween("2026-11-02", "2026-11-23")).toBe(3);
  });
});

describe("activityReport", () => {
  const daily = [
    { day: "2026-11-16", sign_ups: 2, active_users: 2 },
    { day: "2026-11-22", sign_ups: 1, active_users: 5 },
    { day: "2026-11-23", sign_ups: 4, active_users: 4 },
    { day: "2026-11-26", sign_ups: 1, active_users: 3 },
  ];

  it("sums sign-ups per bucket, takes distinct actives per bucket and fills empty buckets with zero", () => {
    const r = activityReport({
      from: "2026-11-10",
      to: "2026-11-26",
      granularity: "week",
      daily,
      active: [{ start: "2026-11-16", users: 6 }, { start: "2026-11-23", users: 5 }],
      cohorts: [],
    });
    expect(r.buckets).toEqual([
      { start: "2026-11-09", sign_ups: 0, active_users: 0 },
      { start: "2026-11-16", sign_ups: 3, active_users: 6 },
      { start: "2026-11-23", sign_ups: 5, active_users: 5 },
    ]);
    const monthly = activityReport({ from: "2026-11-10", to: "2026-11-26", granularity: "month", daily, active: [], cohorts: [] });
    expect(monthly.buckets).toEqual([{ start: "2026-11-01", sign_ups: 8, active_users: 0 }]);
  });

  it("gives each weekly cohort the share of its users active in each later week up to the current one", () => {
    const r = activityReport({
      from: "2026-11-04",
      to: "2026-11-26",
      granularity: "day",
      daily: [],
      active: [],
      cohorts: [
        { week: "2026-11-02", active_week: null, users: 4 },
        { week: "2026-11-02", active_week: "2026-11-09", users: 3 },
        { week: "2026-11-02", active_week: "2026-11-23", users: 1 },
        { week: "2026-11-16", active_week: null, users: 2 },
        { week: "2026-11-16", active_week: "2026-11-23", users: 2 },
      ],
    });
    expect(r.retention).toEqual([
      {
        week: "2026-11-02",
        users: 4,
        retained: [
          { offset: 1, users: 3, share: 0.75 },
          { offset: 2, users: 0, share: 0 },
          { offset: 3, users: 1, share: 0.25 },
        ],
      },
      { week: "2026-11-09", users: 0, retained: [{ offset: 1, users: 0, share: 0 }, { offset: 2, users: 0, share: 0 }] },
      { week: "2026-11-16", users: 2, retained: [{ offset: 1, users: 2, share: 1 }] },
      { week: "2026-11-23", users: 0, retained: [] },
    ]);
  });
});
