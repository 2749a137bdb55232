import { describe, expect, it } from "vitest";
import { isKnownError } from "@vestibule/shared/errors";
import { decodeCursor, encodeCursor, pageLimit } from "./cursor.ts";
import { DAY_MS, parseQuery, queryTimeout } from "./queries.ts";

const NOW = Date.UTC(2026, 10, 25, 12);

function queryErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isKnownError(err, "ANALYTICS_QUERY_ERROR")) return err.message;
    throw err;
  }
  throw new Error("expected ANALYTICS_QUERY_ERROR");
}

describe("named analytics queries", () => {
  it("default to the last 30 days and their own row limits", () => {
    expect(parseQuery("page_views_per_day", "{}", NOW)).toMatchObject({ name: "page_views_per_day", fromMs: NOW - 30 * DAY_MS, toMs: NOW });
    expect(parseQuery("top_pages", "{}", NOW).limit).toBe(20);
    expect(parseQuery("recent_events", JSON.stringify({ limit: 1000, user_id: "0B6C9F2E-3C1D-4E5F-8A9B-0C1D2E3F4A5B" }), NOW)).toMatchObject({
      limit: 1000,
      userId: "0b6c9f2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b",
    });
  });

  it("refuse SQL, unknown names and parameters, bad values and unbounded ranges, saying why", () => {
    expect(queryErrorOf(() => parseQuery("SELECT 1", "{}", NOW))).toContain("not SQL: one of page_views_per_day");
    expect(queryErrorOf(() => parseQuery("top_pages", JSON.stringify({ user_id: "x" }), NOW))).toBe("Query top_pages takes no parameter user_id (it takes from_millis, to_millis, limit).");
    expect(queryErrorOf(() => parseQuery("top_pages", JSON.stringify({ limit: 101 }), NOW))).toBe("limit must be an integer from 1 to 100.");
    expect(queryErrorOf(() => parseQuery("page_views_per_day", JSON.stringify({ limit: 5 }), NOW))).toContain("takes no parameter limit");
    expect(queryErrorOf(() => parseQuery("events_per_day", JSON.stringify({ from_millis: -1 }), NOW))).toContain("non-negative integer");
    expect(queryErrorOf(() => parseQuery("events_per_day", JSON.stringify({ from_millis: NOW + 1 }), NOW))).toBe("from_millis must not be after to_millis.");
    expect(queryErrorOf(() => parseQuery("events_per_day", JSON.stringify({ from_millis: NOW - 367 * DAY_MS }), NOW))).toBe("The time range may span at most 366 days.");
    expect(queryErrorOf(() => parseQuery("events_per_day", JSON.stringify({ event_type: "" }), NOW))).toContain("event_type");
    expect(queryErrorOf(() => parseQuery("recent_events", JSON.stringify({ user_id: "me" }), NOW))).toBe("user_id must be a UUID.");
    expect(queryErrorOf(() => parseQuery("top_pages", "[]", NOW))).toBe("params must be an object.");
  });

  it("bound the timeout to 1-30,000 ms (default 1,000)", () => {
    expect(queryTimeout(0)).toBe(1_000);
    expect(queryTimeout(30_000)).toBe(30_000);
    expect(queryErrorOf(() => queryTimeout(30_001))).toBe("timeout_ms must be an integer from 1 to 30000.");
  });
});

describe("page cursors", () => {
  it("round-trip the sort key and id; anything else is a 400", () => {
    const id = "0b6c9f2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b";
    expect(decodeCursor(encodeCursor(1_764_000_000_000n, id))).toEqual({ ms: 1_764_000_000_000n, id });
    expect(() => decodeCursor("bad")).toThrow("Invalid cursor");
    expect(() => decodeCursor(Buffer.from("1:'; DROP TABLE events").toString("base64url"))).toThrow("Invalid cursor");
    expect([pageLimit(0), pageLimit(10), pageLimit(1_000)]).toEqual([50, 10, 200]);
  });
});
