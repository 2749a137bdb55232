import { Type } from "typebox";
import type { ReplayChunk, SessionReplay } from "@vestibule/proto/analytics/v1/analytics_service";
import { statusError } from "@vestibule/shared/errors";
import type { UserCache } from "../../auth/user-cache.ts";
import { FreeformObj, Obj, Optional, QueryInteger, Uuid } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";
import { assertAnalyticsEnabled } from "./analytics.ts";

/**
 * Admin reads of analytics (latest-sdk.md C, admin): session replays and their chunks, and the query API. The query
 * API answers named, bounded queries (services/analytics/src/domain/queries.ts: page views and active users per day,
 * events per day, event types, top pages, recent events) with typed parameters; it never runs SQL from a caller, so
 * a SQL string is ANALYTICS_QUERY_ERROR naming the queries there are. With analytics off the query API answers
 * ANALYTICS_NOT_ENABLED (the replays stay readable until their retention ends).
 */

const ADMIN = ["admin"] as const;
const Cursor = Type.String({ minLength: 1, maxLength: 200 });
const Limit = QueryInteger({ minimum: 1, maximum: 200 });
const Millis = QueryInteger({ minimum: 0, maximum: 8_640_000_000_000_000 });
const ReplayParams = Obj({ session_replay_id: Uuid() });

async function replayView(users: UserCache, projectId: string, r: SessionReplay) {
  const user = await users.get(projectId, r.userId);
  return {
    id: r.id,
    project_user: { id: r.userId, display_name: user?.displayName ?? null, primary_email: user?.primaryEmail ?? null },
    started_at_millis: Number(r.startedAtMs),
    last_event_at_millis: Number(r.lastEventAtMs),
    chunk_count: r.chunkCount,
    event_count: r.eventCount,
  };
}

function chunkView(c: ReplayChunk) {
  return {
    id: c.id,
    batch_id: c.batchId,
    session_replay_segment_id: c.sessionReplaySegmentId,
    browser_session_id: c.browserSessionId,
    tab_id: null,
    event_count: c.eventCount,
    byte_length: c.byteLength,
    first_event_at_millis: Number(c.firstEventAtMs),
    last_event_at_millis: Number(c.lastEventAtMs),
    created_at_millis: Number(c.createdAtMs),
  };
}

/** Comma-separated user ids (the SDK's `user_ids=a,b`). */
function userIds(value: string | undefined): string[] {
  if (value === undefined || value === "") return [];
  const ids = value.split(",").map((s) => s.trim().toLowerCase());
  const bad = ids.find((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id));
  if (bad !== undefined) throw statusError(400, `user_ids must be comma-separated UUIDs; got ${JSON.stringify(bad)}.`);
  if (ids.length > 100) throw statusError(400, "user_ids may name at most 100 users.");
  return ids;
}

export const listSessionReplaysRoute = defineRoute({
  method: "GET",
  path: "/internal/session-replays",
  summary: "List session replays, most recent activity first (cursor-paged)",
  tags: ["Analytics (admin)"],
  access: ADMIN,
  schemas: {
    query: Obj({
      cursor: Optional(Cursor),
      limit: Optional(Limit),
      user_ids: Optional(Type.String({ maxLength: 4000 })),
      duration_ms_min: Optional(Millis),
      duration_ms_max: Optional(Millis),
      last_event_at_from_millis: Optional(Millis),
      last_event_at_to_millis: Optional(Millis),
    }),
  },
  async handler({ auth, query, clients, users }) {
    const res = await clients.analytics.listSessionReplays({
      projectId: auth.projectId,
      branchId: auth.branchId,
      limit: query.limit ?? 0,
      cursor: query.cursor ?? "",
      userIds: userIds(query.user_ids),
      durationMsMin: query.duration_ms_min === undefined ? undefined : BigInt(query.duration_ms_min),
      durationMsMax: query.duration_ms_max === undefined ? undefined : BigInt(query.duration_ms_max),
      lastEventAtFromMs: query.last_event_at_from_millis === undefined ? undefined : BigInt(query.last_event_at_from_millis),
      lastEventAtToMs: query.last_event_at_to_millis === undefined ? undefined : BigInt(query.last_event_at_to_millis),
    });
    return {
      json: {
        items: await Promise.all(res.replays.map((r) => replayView(users, auth.projectId, r))),
        pagination: { next_cursor: res.nextCursor ?? null },
      },
    };
  },
});

export const getSessionReplayRoute = defineRoute({
  method: "GET",
  path: "/internal/session-replays/:session_replay_id",
  summary: "Get a session replay",
  tags: ["Analytics (admin)"],
  access: ADMIN,
  schemas: { params: ReplayParams },
  async handler({ auth, params, clients, users }) {
    const { replay } = await clients.analytics.getSessionReplay({ projectId: auth.projectId, sessionReplayId: params.session_replay_id });
    return { json: await replayView(users, auth.projectId, replay!) };
  },
});

export const listSessionReplayChunksRoute = defineRoute({
  method: "GET",
  path: "/internal/session-replays/:session_replay_id/chunks",
  summary: "List the stored batches (chunks) of a session replay in event order",
  tags: ["Analytics (admin)"],
  access: ADMIN,
  schemas: { params: ReplayParams, query: Obj({ cursor: Optional(Cursor), limit: Optional(Limit) }) },
  async handler({ auth, params, query, clients }) {
    const res = await clients.analytics.listReplayChunks({
      projectId: auth.projectId,
      sessionReplayId: params.session_replay_id,
      limit: query.limit ?? 0,
      cursor: query.cursor ?? "",
    });
    return { json: { items: res.chunks.map(chunkView), pagination: { next_cursor: res.nextCursor ?? null } } };
  },
});

export const getSessionReplayChunkEventsRoute = defineRoute({
  method: "GET",
  path: "/internal/session-replays/:session_replay_id/chunks/:chunk_id/events",
  summary: "The rrweb events of one chunk of a session replay",
  tags: ["Analytics (admin)"],
  access: ADMIN,
  schemas: { params: Obj({ session_replay_id: Uuid(), chunk_id: Uuid() }) },
  async handler({ auth, params, clients }) {
    const res = await clients.analytics.getReplayChunkEvents({
      projectId: auth.projectId,
      sessionReplayId: params.session_replay_id,
      chunkId: params.chunk_id,
    });
    return { json: { events: JSON.parse(res.eventsJson) as unknown } };
  },
});

export const getSessionReplayEventsRoute = defineRoute({
  method: "GET",
  path: "/internal/session-replays/:session_replay_id/events",
  summary: "Chunks of a session replay from an offset (event order) with their rrweb events (at most 50 chunks)",
  tags: ["Analytics (admin)"],
  access: ADMIN,
  schemas: { params: ReplayParams, query: Obj({ offset: Optional(QueryInteger({ minimum: 0, maximum: 1_000_000 })), limit: Optional(QueryInteger({ minimum: 1, maximum: 50 })) }) },
  async handler({ auth, params, query, clients }) {
    const res = await clients.analytics.getReplayEvents({
      projectId: auth.projectId,
      sessionReplayId: params.session_replay_id,
      offset: query.offset ?? 0,
      limit: query.limit ?? 10,
    });
    return {
      json: {
        chunks: res.chunks.map(chunkView),
        chunk_events: res.chunkEvents.map((c) => ({ chunk_id: c.chunkId, events: JSON.parse(c.eventsJson) as unknown })),
      },
    };
  },
});

export const analyticsQueryRoute = defineRoute({
  method: "POST",
  path: "/internal/analytics/query",
  summary:
    "Run a named analytics query (page_views_per_day, active_users_per_day, events_per_day, event_types, top_pages, recent_events) with typed params; no SQL",
  tags: ["Analytics (admin)"],
  access: ADMIN,
  schemas: {
    body: Obj({
      query: Type.String({ minLength: 1, maxLength: 10_000 }),
      params: Optional(FreeformObj({})),
      timeout_ms: Optional(Type.Integer({ minimum: 1, maximum: 30_000 })),
      include_all_branches: Optional(Type.Boolean()),
    }),
  },
  async handler({ auth, body, clients }) {
    assertAnalyticsEnabled(auth);
    const res = await clients.analytics.queryAnalytics({
      projectId: auth.projectId,
      branchId: auth.branchId,
      query: body.query.trim(),
      paramsJson: JSON.stringify(body.params ?? {}),
      timeoutMs: body.timeout_ms ?? 1_000,
      includeAllBranches: body.include_all_branches === true,
    });
    return { json: { result: JSON.parse(res.resultJson) as unknown, query_id: res.queryId } };
  },
});
