import { promisify } from "node:util";
import { gunzip as gunzipCb, gzip as gzipCb } from "node:zlib";
import type { ServiceImpl } from "@connectrpc/connect";
import { AnalyticsService, type AnalyticsCaller, type SessionReplay, type ReplayChunk } from "@vestibule/proto/analytics/v1/analytics_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { newId } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import type { AnalyticsConfig } from "./config.ts";
import { decodeCursor, encodeCursor, pageLimit } from "./domain/cursor.ts";
import { parseQuery, queryTimeout } from "./domain/queries.ts";
import { eventStore, type BatchMeta } from "./store/event-store.ts";
import { queryStore } from "./store/query-store.ts";
import { quotaStore, type QuotaCharge } from "./store/quota-store.ts";
import { replayStore, type ChunkRow, type ReplayRow } from "./store/replay-store.ts";

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

/** Seconds until the current fixed window ends (the Retry-After of a refused batch). */
function secondsLeft(window: "minute" | "day", nowMs = Date.now()): number {
  const size = window === "minute" ? 60_000 : 86_400_000;
  return Math.max(1, Math.ceil((size - (nowMs % size)) / 1000));
}

/** The session a client batch is bound to; servers send as the project. */
function sessionOf(caller: AnalyticsCaller): { key: string; userId: string | null; refreshTokenId: string | null } {
  if (caller.fromServer) return { key: "server", userId: caller.userId ?? null, refreshTokenId: caller.refreshTokenId ?? null };
  if (!caller.userId || !caller.refreshTokenId) throw statusError(400, "A refresh token is required for analytics events");
  return { key: caller.refreshTokenId, userId: caller.userId, refreshTokenId: caller.refreshTokenId };
}

function replayView(r: ReplayRow): Omit<SessionReplay, "$typeName"> {
  return {
    id: r.id,
    userId: r.user_id,
    startedAtMs: BigInt(r.started_at_ms),
    lastEventAtMs: BigInt(r.last_event_at_ms),
    chunkCount: r.chunk_count,
    eventCount: r.event_count,
  };
}

function chunkView(c: ChunkRow): Omit<ReplayChunk, "$typeName"> {
  return {
    id: c.id,
    batchId: c.batch_id,
    browserSessionId: c.browser_session_id,
    sessionReplaySegmentId: c.session_replay_segment_id,
    eventCount: c.event_count,
    byteLength: c.byte_length,
    firstEventAtMs: BigInt(c.first_event_at_ms),
    lastEventAtMs: BigInt(c.last_event_at_ms),
    createdAtMs: BigInt(c.created_at_ms),
  };
}

/**
 * AnalyticsService: ingestion of events and replay batches bound to the caller's session, under per-session and
 * per-project quotas, and the admin reads (replays, named queries).
 */
export function createAnalyticsService(ctx: ServiceContext, config: AnalyticsConfig): ServiceImpl<typeof AnalyticsService> {
  const { pool } = ctx;

  /** Charges every quota in the caller's transaction; 429 with Retry-After (and nothing counted) when one is full. */
  async function charge(tx: Parameters<typeof quotaStore.charge>[0], charges: readonly QuotaCharge[], what: string): Promise<void> {
    for (const c of charges) {
      if (!(await quotaStore.charge(tx, c))) {
        const wait = secondsLeft(c.window);
        const who = c.window === "day" ? "this project today" : c.key.startsWith("p:") ? "this project's servers" : "this session";
        throw statusError(429, `${what} from ${who}. Please wait ${wait} seconds and try again.`, { retryAfterSeconds: wait });
      }
    }
  }

  return {
    async ingestEvents(req) {
      const caller = req.caller!;
      const session = sessionOf(caller);
      const meta: BatchMeta = {
        projectId: caller.projectId,
        branchId: caller.branchId,
        sessionKey: session.key,
        refreshTokenId: session.refreshTokenId,
        batchId: req.batchId,
        fromServer: caller.fromServer,
      };
      const bytes = Number(req.bodyBytes);
      return withTransaction(pool, async (tx) => {
        // First the session's lock (replayStore.currentForSession), then the quota rows: one order for every path.
        const current = session.refreshTokenId && !caller.fromServer ? await replayStore.currentForSession(tx, caller.projectId, session.refreshTokenId) : undefined;
        const named = [...new Set([req.sessionReplayId, ...req.events.map((e) => e.sessionReplayId)].filter((id): id is string => !!id))];
        const owners = await replayStore.sessionsOf(tx, caller.projectId, named);
        for (const id of named) {
          const owner = owners.get(id);
          if (owner === undefined) throw statusError(400, `Unknown session_replay_id: ${id}`);
          if (!caller.fromServer && owner !== session.refreshTokenId) {
            throw statusError(400, "Client analytics events can only reference the current session replay");
          }
        }
        if (!(await eventStore.claimBatch(tx, meta, req.events.length))) return { inserted: 0 };
        const sessionKey = caller.fromServer ? `p:${caller.projectId}:server-events` : `s:${session.key}:events`;
        await charge(
          tx,
          [
            { key: sessionKey, window: "minute", events: req.events.length, bytes, maxEvents: config.sessionEventsPerMinute, maxBytes: config.sessionBytesPerMinute },
            { key: `p:${caller.projectId}:bytes`, window: "day", events: 0, bytes, maxEvents: 0, maxBytes: config.projectBytesPerDay },
          ],
          "Too many analytics events",
        );
        const inserted = await eventStore.insertEvents(
          tx,
          meta,
          req.events.map((e) => ({
            eventType: e.eventType,
            eventAtMs: Number(e.eventAtMs),
            // PostgreSQL's jsonb cannot hold U+0000 (the gateway refuses it; other callers get U+FFFD, not a 500).
            dataJson: e.dataJson.replaceAll("\\u0000", "\\ufffd"),
            userId: caller.fromServer ? (e.userId ?? session.userId) : session.userId,
            teamId: caller.fromServer ? (e.teamId ?? null) : null,
            sessionReplaySegmentId: e.sessionReplaySegmentId ?? req.sessionReplaySegmentId ?? null,
            sessionReplayId: e.sessionReplayId ?? req.sessionReplayId ?? current?.id ?? null,
          })),
        );
        return { inserted };
      });
    },

    async ingestReplayBatch(req) {
      const caller = req.caller!;
      if (!caller.userId || !caller.refreshTokenId) throw statusError(400, "A refresh token is required for session replays");
      const userId = caller.userId;
      const refreshTokenId = caller.refreshTokenId;
      const bytes = Buffer.byteLength(req.eventsJson);
      const firstMs = Number(req.firstEventAtMs);
      const lastMs = Number(req.lastEventAtMs);
      return withTransaction(pool, async (tx) => {
        const replay = await replayStore.currentForSession(tx, caller.projectId, refreshTokenId);
        const replayId = replay?.id ?? newId();
        const storageKey = `session-replays/${caller.projectId}/${caller.branchId}/${replayId}/${req.batchId}.json.gz`;
        if (!replay) await replayStore.create(tx, { id: replayId, projectId: caller.projectId, branchId: caller.branchId, userId, refreshTokenId, firstMs, lastMs });
        await charge(
          tx,
          [
            { key: `s:${refreshTokenId}:replay`, window: "minute", events: 0, bytes, maxEvents: 0, maxBytes: config.sessionReplayBytesPerMinute },
            { key: `p:${caller.projectId}:bytes`, window: "day", events: 0, bytes, maxEvents: 0, maxBytes: config.projectBytesPerDay },
          ],
          "Too much session replay data",
        );
        const wrapper =
          `{"v":1,"session_replay_id":${JSON.stringify(replayId)},"browser_session_id":${JSON.stringify(req.browserSessionId)},` +
          `"session_replay_segment_id":${JSON.stringify(req.sessionReplaySegmentId)},"batch_id":${JSON.stringify(req.batchId)},` +
          `"started_at_ms":${req.startedAtMs},"sent_at_ms":${req.sentAtMs},"events":${req.eventsJson}}`;
        const payload = await gzip(Buffer.from(wrapper));
        const chunk = await replayStore.insertChunk(tx, {
          id: newId(),
          projectId: caller.projectId,
          replayId,
          batchId: req.batchId,
          browserSessionId: req.browserSessionId,
          segmentId: req.sessionReplaySegmentId,
          eventCount: req.eventCount,
          firstMs,
          lastMs,
          payload,
        });
        if (!chunk.inserted) {
          // A repeated batch: nothing stored, nothing counted.
          throw new DedupedBatch({ sessionReplayId: replayId, batchId: req.batchId, storageKey, deduped: true });
        }
        return { sessionReplayId: replayId, batchId: req.batchId, storageKey, deduped: false };
      }).catch((err: unknown) => {
        if (err instanceof DedupedBatch) return err.answer;
        throw err;
      });
    },

    async listSessionReplays(req) {
      const limit = pageLimit(req.limit);
      const after = req.cursor ? decodeCursor(req.cursor) : undefined;
      const rows = await replayStore.list(
        pool,
        req.projectId,
        {
          userIds: req.userIds,
          lastEventFromMs: req.lastEventAtFromMs,
          lastEventToMs: req.lastEventAtToMs,
          durationMinMs: req.durationMsMin,
          durationMaxMs: req.durationMsMax,
        },
        limit + 1,
        after && { lastMs: after.ms, id: after.id },
      );
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        replays: page.map(replayView),
        nextCursor: rows.length > limit && last ? encodeCursor(BigInt(last.last_event_at_ms), last.id) : undefined,
      };
    },

    async getSessionReplay(req) {
      const row = await replayStore.get(pool, req.projectId, req.sessionReplayId);
      if (!row) throw statusError(404, "Session replay not found.");
      return { replay: replayView(row) };
    },

    async listReplayChunks(req) {
      if (!(await replayStore.get(pool, req.projectId, req.sessionReplayId))) throw statusError(404, "Session replay not found.");
      const limit = pageLimit(req.limit);
      const after = req.cursor ? decodeCursor(req.cursor) : undefined;
      const rows = await replayStore.listChunks(pool, req.projectId, req.sessionReplayId, limit + 1, after && { firstMs: after.ms, id: after.id });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        chunks: page.map(chunkView),
        nextCursor: rows.length > limit && last ? encodeCursor(BigInt(last.first_event_at_ms), last.id) : undefined,
      };
    },

    async getReplayChunkEvents(req) {
      const payload = await replayStore.chunkPayload(pool, req.projectId, req.sessionReplayId, req.chunkId);
      if (!payload) throw statusError(404, "Session replay chunk not found.");
      return { eventsJson: await eventsOf(payload) };
    },

    async getReplayEvents(req) {
      if (!(await replayStore.get(pool, req.projectId, req.sessionReplayId))) throw statusError(404, "Session replay not found.");
      const limit = req.limit <= 0 ? 10 : Math.min(req.limit, 50);
      const rows = await replayStore.chunksWithPayload(pool, req.projectId, req.sessionReplayId, Math.max(0, req.offset), limit);
      return {
        chunks: rows.map(chunkView),
        chunkEvents: await Promise.all(rows.map(async (r) => ({ chunkId: r.id, eventsJson: await eventsOf(r.payload) }))),
      };
    },

    async queryAnalytics(req) {
      const spec = parseQuery(req.query, req.paramsJson, Date.now());
      const timeoutMs = queryTimeout(req.timeoutMs);
      try {
        const rows = await withTransaction(pool, async (tx) => {
          await tx.query("SET TRANSACTION READ ONLY");
          await tx.query("SELECT set_config('statement_timeout', $1, true)", [String(timeoutMs)]);
          return queryStore.run(tx, req.projectId, req.includeAllBranches ? null : req.branchId, spec);
        });
        return { resultJson: JSON.stringify(rows), queryId: newId() };
      } catch (err) {
        if ((err as { code?: string }).code === "57014") throw knownError("ANALYTICS_QUERY_TIMEOUT", { timeout_ms: timeoutMs });
        throw err;
      }
    },
  };
}

/** The rrweb events (JSON array text) of a stored chunk. */
async function eventsOf(payload: Buffer): Promise<string> {
  const stored = JSON.parse((await gunzip(payload)).toString("utf8")) as { events: unknown };
  return JSON.stringify(stored.events);
}

/** Unwinds the transaction of a repeated replay batch (so the quota it charged is not counted). */
class DedupedBatch extends Error {
  constructor(readonly answer: { sessionReplayId: string; batchId: string; storageKey: string; deduped: boolean }) {
    super("deduped");
  }
}
