/**
 * The analytics query API (`POST /internal/analytics/query`): callers name one of a fixed set of queries and give
 * typed parameters; no SQL ever comes from a caller. Every query is bounded: a time range of at most 366 days
 * (default: the last 30), a row limit, and the caller's timeout (1 ms to 30 s, default 1 s). Pure functions.
 *
 * | query                  | params                                              | rows                                          |
 * |------------------------|-----------------------------------------------------|-----------------------------------------------|
 * | `page_views_per_day`   | from_millis, to_millis                              | `{date, page_views}` per UTC day (zeros kept) |
 * | `active_users_per_day` | from_millis, to_millis                              | `{date, active_users}` (distinct users)       |
 * | `events_per_day`       | from_millis, to_millis, event_type                  | `{date, events}`                              |
 * | `event_types`          | from_millis, to_millis, limit (≤ 100, default 50)   | `{event_type, events, users}` most first      |
 * | `top_pages`            | from_millis, to_millis, limit (≤ 100, default 20)   | `{path, page_views, users}` most first        |
 * | `recent_events`        | from_millis, to_millis, event_type, user_id, limit (≤ 1000, default 100) | `{event_type, event_at_millis, user_id, team_id, session_replay_id, data}` newest first |
 */
import { knownError } from "@vestibule/shared/errors";

export const QUERY_NAMES = ["page_views_per_day", "active_users_per_day", "events_per_day", "event_types", "top_pages", "recent_events"] as const;
export type QueryName = (typeof QUERY_NAMES)[number];

export const DAY_MS = 86_400_000;
export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;
export const MAX_TIMEOUT_MS = 30_000;

export interface QuerySpec {
  readonly name: QueryName;
  readonly fromMs: number;
  readonly toMs: number;
  readonly eventType?: string;
  readonly userId?: string;
  readonly limit: number;
}

const PARAMS: Record<QueryName, readonly string[]> = {
  page_views_per_day: ["from_millis", "to_millis"],
  active_users_per_day: ["from_millis", "to_millis"],
  events_per_day: ["from_millis", "to_millis", "event_type"],
  event_types: ["from_millis", "to_millis", "limit"],
  top_pages: ["from_millis", "to_millis", "limit"],
  recent_events: ["from_millis", "to_millis", "event_type", "user_id", "limit"],
};
const LIMITS: Partial<Record<QueryName, { max: number; default: number }>> = {
  event_types: { max: 100, default: 50 },
  top_pages: { max: 100, default: 20 },
  recent_events: { max: 1000, default: 100 },
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function queryError(message: string): never {
  throw knownError("ANALYTICS_QUERY_ERROR", { error: message });
}

function millis(params: Record<string, unknown>, key: string): number | undefined {
  const v = params[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0 || v > 8_640_000_000_000_000) queryError(`Parameter ${key} must be a non-negative integer (milliseconds since 1970).`);
  return v;
}

/** Validates a named query and its parameters; ANALYTICS_QUERY_ERROR saying what is wrong otherwise. */
export function parseQuery(query: string, paramsJson: string, nowMs: number): QuerySpec {
  if (!(QUERY_NAMES as readonly string[]).includes(query)) {
    queryError(
      `Unknown analytics query ${JSON.stringify(query.length > 100 ? `${query.slice(0, 100)}…` : query)}. Vestibule answers named queries, not SQL: one of ${QUERY_NAMES.join(", ")}.`,
    );
  }
  const name = query as QueryName;
  let params: unknown;
  try {
    params = JSON.parse(paramsJson || "{}");
  } catch {
    queryError("params must be a JSON object.");
  }
  if (typeof params !== "object" || params === null || Array.isArray(params)) queryError("params must be an object.");
  const p = params as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    if (!PARAMS[name].includes(key)) queryError(`Query ${name} takes no parameter ${key} (it takes ${PARAMS[name].join(", ")}).`);
  }
  const toMs = millis(p, "to_millis") ?? nowMs;
  const fromMs = millis(p, "from_millis") ?? toMs - DEFAULT_RANGE_DAYS * DAY_MS;
  if (fromMs > toMs) queryError("from_millis must not be after to_millis.");
  if (toMs - fromMs > MAX_RANGE_DAYS * DAY_MS) queryError(`The time range may span at most ${MAX_RANGE_DAYS} days.`);
  let eventType: string | undefined;
  if (p.event_type !== undefined) {
    if (typeof p.event_type !== "string" || p.event_type.length === 0 || p.event_type.length > 128) queryError("event_type must be a string of 1 to 128 characters.");
    eventType = p.event_type;
  }
  let userId: string | undefined;
  if (p.user_id !== undefined) {
    if (typeof p.user_id !== "string" || !UUID.test(p.user_id)) queryError("user_id must be a UUID.");
    userId = p.user_id.toLowerCase();
  }
  const bounds = LIMITS[name];
  let limit = bounds?.default ?? MAX_RANGE_DAYS + 1;
  if (p.limit !== undefined) {
    if (!bounds || typeof p.limit !== "number" || !Number.isInteger(p.limit) || p.limit < 1 || p.limit > bounds.max) {
      queryError(`limit must be an integer from 1 to ${bounds?.max ?? 0}.`);
    }
    limit = p.limit;
  }
  return { name, fromMs, toMs, eventType, userId, limit };
}

/** The timeout to run a query with: the caller's (1 to 30,000 ms), default 1,000 ms as the SDK sends. */
export function queryTimeout(timeoutMs: number): number {
  if (timeoutMs === 0) return 1_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) queryError(`timeout_ms must be an integer from 1 to ${MAX_TIMEOUT_MS}.`);
  return timeoutMs;
}
