/** GET /api/v1/internal/metrics/activity: the dashboard overview's sign-ups, active users and retention (issue 21). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const admin = () => headersFor(stack.demo, "admin");
const today = () => new Date().toISOString().slice(0, 10);

describe("/api/v1/internal/metrics/activity", () => {
  it("reports today's sign-ups per day, week and month, and this week's cohort", async () => {
    const before = await call(stack, "GET", "/api/v1/internal/metrics/activity?days=7&granularity=day", { headers: admin() });
    expect(before.status).toBe(200);
    const signedUpToday = before.json.buckets.at(-1).sign_ups as number;
    for (const n of [1, 2]) {
      const res = await call(stack, "POST", "/api/v1/users", { headers: headersFor(stack.demo, "server"), body: { display_name: `Chart ${n}` } });
      expect(res.status).toBe(201);
    }

    const daily = await call(stack, "GET", "/api/v1/internal/metrics/activity?days=7&granularity=day", { headers: admin() });
    expect(daily.json).toMatchObject({ granularity: "day", to: today() });
    expect(daily.json.buckets).toHaveLength(7);
    expect(daily.json.buckets.at(-1)).toEqual({ start: today(), sign_ups: signedUpToday + 2, active_users: expect.any(Number) });

    const weekly = await call(stack, "GET", "/api/v1/internal/metrics/activity?days=90&granularity=week", { headers: admin() });
    expect(weekly.json.buckets.length).toBeGreaterThanOrEqual(13);
    expect(weekly.json.buckets.at(-1).sign_ups).toBeGreaterThanOrEqual(signedUpToday + 2);
    const cohort = weekly.json.retention.at(-1);
    expect(cohort).toMatchObject({ week: weekly.json.buckets.at(-1).start, retained: [] });
    expect(cohort.users).toBeGreaterThanOrEqual(2);

    const monthly = await call(stack, "GET", "/api/v1/internal/metrics/activity?days=30&granularity=month", { headers: admin() });
    expect(monthly.json.buckets.at(-1).start).toBe(`${today().slice(0, 7)}-01`);

    // Defaults: the last 30 days per day.
    const defaults = await call(stack, "GET", "/api/v1/internal/metrics/activity", { headers: admin() });
    expect(defaults.json.granularity).toBe("day");
    expect(defaults.json.buckets).toHaveLength(30);
  });

  it("refuses a bad range or granularity with a known error, and other access types", async () => {
    expectKnownError(await call(stack, "GET", "/api/v1/internal/metrics/activity?days=0", { headers: admin() }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/metrics/activity?days=367", { headers: admin() }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/metrics/activity?granularity=year", { headers: admin() }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/metrics/activity", { headers: headersFor(stack.demo, "server") }), 401, "INSUFFICIENT_ACCESS_TYPE");
  });
});
