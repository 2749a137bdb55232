import { Type } from "typebox";
import type { AnalyticsCaller } from "@vestibule/proto/analytics/v1/analytics_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { RequestAuth } from "../../auth/request-auth.ts";
import { jsonOrGzipBody } from "../../http/compressed-body.ts";
import { FreeformObj, Metadata, Obj, Optional, Uuid } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

/**
 * Analytics ingestion of the current SDK generation (latest-sdk.md C), stored by the analytics service:
 *  - `POST /analytics/events/batch`: 1-500 events, JSON or gzip in an octet-stream body (≤ 1 MiB either way, decoded
 *    included; each event's `data` ≤ 16 KiB). Client callers need a signed-in user; the events are bound to the
 *    session of the access token and cannot name another user, team or another session's replay.
 *  - `POST /session-replays/batch`: rrweb events (1-5,000, ≤ 5 MB) stored gzip-compressed in the session's replay.
 * Both answer ANALYTICS_NOT_ENABLED when the project turned analytics off (`apps.installed.analytics.enabled`), and
 * 429 with Retry-After when a session or project quota is used up.
 */

const ANY = ["client", "server", "admin"] as const;
export const EVENTS_MAX_BYTES = 1024 * 1024;
export const EVENT_DATA_MAX_BYTES = 16 * 1024;
export const EVENTS_PER_BATCH = 500;
export const REPLAY_MAX_BYTES = 5_000_000;
export const REPLAY_MAX_EVENTS = 5_000;

/** `$page-view`, `$click`, or a custom name (not starting with `$`) of letters, digits, `.`, `_`, `:` and `-`. */
const EventType = Type.String({ pattern: "^(\\$page-view|\\$click|[A-Za-z0-9._:-]{1,128})$" });
/** Milliseconds since 1970, up to the largest JavaScript date (beyond it PostgreSQL has no timestamp). */
export const MAX_MILLIS = 8_640_000_000_000_000;
const Millis = Type.Integer({ minimum: 0, maximum: MAX_MILLIS });

/** Whether the project has analytics on (Stack's `apps.installed.analytics.enabled`; on unless turned off). */
export function assertAnalyticsEnabled(auth: RequestAuth): void {
  const apps = auth.project.renderedConfig.apps as { installed?: Record<string, { enabled?: unknown } | undefined> } | undefined;
  if (apps?.installed?.analytics?.enabled === false) throw knownError("ANALYTICS_NOT_ENABLED");
}

/** The sender of a batch: a signed-in user's session (client) or the server. */
function callerOf(auth: RequestAuth, what: string): Omit<AnalyticsCaller, "$typeName"> {
  if (auth.type === "client" && !auth.user) throw knownError("USER_AUTHENTICATION_REQUIRED");
  if (auth.type === "client" && !auth.user!.refreshTokenId) throw statusError(400, `A refresh token is required for ${what}`);
  return {
    projectId: auth.projectId,
    branchId: auth.branchId,
    userId: auth.user?.id,
    refreshTokenId: auth.user?.refreshTokenId || undefined,
    fromServer: auth.type !== "client",
  };
}

interface EventIn {
  event_type: string;
  event_at_ms: number;
  data: Record<string, unknown>;
  user_id?: string;
  team_id?: string;
  session_replay_id?: string;
  session_replay_segment_id?: string;
}

export const analyticsEventsBatchRoute = defineRoute({
  method: "POST",
  path: "/analytics/events/batch",
  summary: "Upload a batch of analytics events (JSON, or gzip sent as application/octet-stream)",
  tags: ["Analytics"],
  access: ANY,
  bodyLimit: EVENTS_MAX_BYTES,
  decodeBody: jsonOrGzipBody(EVENTS_MAX_BYTES),
  schemas: {
    body: Obj({
      session_replay_segment_id: Optional(Uuid()),
      session_replay_id: Optional(Uuid()),
      batch_id: Uuid(),
      sent_at_ms: Millis,
      events: Type.Array(
        Obj({
          event_type: EventType,
          event_at_ms: Millis,
          data: FreeformObj({}),
          user_id: Optional(Uuid()),
          team_id: Optional(Uuid()),
          session_replay_id: Optional(Uuid()),
          session_replay_segment_id: Optional(Uuid()),
        }),
        { minItems: 1, maxItems: EVENTS_PER_BATCH },
      ),
    }),
  },
  async handler({ auth, body, clients }) {
    assertAnalyticsEnabled(auth);
    const caller = callerOf(auth, "analytics events");
    const events = body.events as EventIn[];
    if (!caller.fromServer && events.some((e) => e.user_id !== undefined || e.team_id !== undefined)) {
      throw statusError(400, "Client analytics events cannot override user_id or team_id");
    }
    let bodyBytes = 0;
    const rows = events.map((e, i) => {
      const dataJson = JSON.stringify(e.data);
      const size = Buffer.byteLength(dataJson);
      if (size > EVENT_DATA_MAX_BYTES) throw statusError(400, `body.events[${i}].data is ${size} bytes; an event's data may have at most ${EVENT_DATA_MAX_BYTES} bytes.`);
      bodyBytes += size + e.event_type.length + 64;
      return {
        eventType: e.event_type,
        eventAtMs: BigInt(e.event_at_ms),
        dataJson,
        userId: e.user_id,
        teamId: e.team_id,
        sessionReplayId: e.session_replay_id,
        sessionReplaySegmentId: e.session_replay_segment_id,
      };
    });
    const res = await clients.analytics.ingestEvents({
      caller,
      batchId: body.batch_id,
      sentAtMs: BigInt(body.sent_at_ms),
      sessionReplaySegmentId: body.session_replay_segment_id,
      sessionReplayId: body.session_replay_id,
      events: rows,
      bodyBytes: BigInt(bodyBytes),
    });
    return { json: { inserted: res.inserted } };
  },
});

/** The smallest and largest numeric `timestamp` of rrweb events (the send time when none has one). */
function eventTimes(events: readonly unknown[], fallbackMs: number): { first: number; last: number } {
  let first = Infinity;
  let last = -Infinity;
  for (const e of events) {
    const ts = typeof e === "object" && e !== null ? (e as { timestamp?: unknown }).timestamp : undefined;
    if (typeof ts !== "number" || !Number.isFinite(ts) || ts < 0 || ts > 8.64e15) continue;
    first = Math.min(first, ts);
    last = Math.max(last, ts);
  }
  return first <= last ? { first, last } : { first: fallbackMs, last: fallbackMs };
}

export const sessionReplaysBatchRoute = defineRoute({
  method: "POST",
  path: "/session-replays/batch",
  summary: "Upload a batch of rrweb session replay events (stored compressed in the session's replay)",
  tags: ["Analytics"],
  access: ANY,
  user: "known-error",
  bodyLimit: REPLAY_MAX_BYTES,
  decodeBody: jsonOrGzipBody(REPLAY_MAX_BYTES),
  schemas: {
    body: Obj({
      browser_session_id: Uuid(),
      session_replay_segment_id: Uuid(),
      batch_id: Uuid(),
      started_at_ms: Millis,
      sent_at_ms: Millis,
      events: Type.Array(Metadata(), { minItems: 1, maxItems: REPLAY_MAX_EVENTS }),
    }),
  },
  async handler({ auth, body, clients }) {
    assertAnalyticsEnabled(auth);
    const caller = callerOf(auth, "session replays");
    if (!caller.refreshTokenId) throw statusError(400, "A refresh token is required for session replays");
    const { first, last } = eventTimes(body.events, body.sent_at_ms);
    const res = await clients.analytics.ingestReplayBatch({
      caller,
      browserSessionId: body.browser_session_id,
      sessionReplaySegmentId: body.session_replay_segment_id,
      batchId: body.batch_id,
      startedAtMs: BigInt(body.started_at_ms),
      sentAtMs: BigInt(body.sent_at_ms),
      eventsJson: JSON.stringify(body.events),
      eventCount: body.events.length,
      firstEventAtMs: BigInt(Math.floor(first)),
      lastEventAtMs: BigInt(Math.floor(last)),
    });
    return { json: { session_replay_id: res.sessionReplayId, batch_id: res.batchId, s3_key: res.storageKey, deduped: res.deduped } };
  },
});
