import type { Queryable } from "@vestibule/shared/db";

export interface ReplayRow {
  readonly id: string;
  readonly user_id: string;
  readonly refresh_token_id: string;
  readonly started_at_ms: string;
  readonly last_event_at_ms: string;
  readonly chunk_count: number;
  readonly event_count: number;
}

export interface ChunkRow {
  readonly id: string;
  readonly batch_id: string;
  readonly browser_session_id: string;
  readonly session_replay_segment_id: string;
  readonly event_count: number;
  readonly byte_length: number;
  readonly first_event_at_ms: string;
  readonly last_event_at_ms: string;
  readonly created_at_ms: string;
}

/** A session's replay stays current while it gets batches at most 3 minutes apart, for at most 12 hours. */
export const REPLAY_IDLE_SECONDS = 180;
export const REPLAY_MAX_HOURS = 12;

const REPLAY_COLUMNS = `id, user_id, refresh_token_id, (extract(epoch FROM started_at) * 1000)::bigint AS started_at_ms,
  (extract(epoch FROM last_event_at) * 1000)::bigint AS last_event_at_ms, chunk_count, event_count`;
const CHUNK_COLUMNS = `id, batch_id, browser_session_id, session_replay_segment_id, event_count, byte_length,
  (extract(epoch FROM first_event_at) * 1000)::bigint AS first_event_at_ms, (extract(epoch FROM last_event_at) * 1000)::bigint AS last_event_at_ms,
  (extract(epoch FROM created_at) * 1000)::bigint AS created_at_ms`;

export interface ReplayFilter {
  readonly userIds: readonly string[];
  readonly lastEventFromMs?: bigint;
  readonly lastEventToMs?: bigint;
  readonly durationMinMs?: bigint;
  readonly durationMaxMs?: bigint;
}

/** SQL of session replays and their chunks. */
export const replayStore = {
  /**
   * The session's current replay, if it is still current. In a transaction it holds the session's lock until the
   * end, so two batches arriving together cannot both start a replay.
   */
  async currentForSession(db: Queryable, projectId: string, refreshTokenId: string): Promise<ReplayRow | undefined> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('analytics.replay:' || $1, 0))`, [refreshTokenId]);
    const { rows } = await db.query<ReplayRow>(
      `SELECT ${REPLAY_COLUMNS} FROM session_replays
       WHERE project_id = $1 AND refresh_token_id = $2 AND updated_at >= now() - make_interval(secs => $3)
         AND started_at >= now() - make_interval(hours => $4)
       ORDER BY updated_at DESC LIMIT 1`,
      [projectId, refreshTokenId, REPLAY_IDLE_SECONDS, REPLAY_MAX_HOURS],
    );
    return rows[0];
  },

  async create(db: Queryable, r: { id: string; projectId: string; branchId: string; userId: string; refreshTokenId: string; firstMs: number; lastMs: number }): Promise<void> {
    await db.query(
      `INSERT INTO session_replays (id, project_id, branch_id, user_id, refresh_token_id, started_at, last_event_at)
       VALUES ($1, $2, $3, $4, $5, to_timestamp($6 / 1000.0), to_timestamp($7 / 1000.0))`,
      [r.id, r.projectId, r.branchId, r.userId, r.refreshTokenId, r.firstMs, r.lastMs],
    );
  },

  /** Stores a chunk unless the replay already has that batch; returns its id and whether it was new. */
  async insertChunk(
    db: Queryable,
    c: { id: string; projectId: string; replayId: string; batchId: string; browserSessionId: string; segmentId: string; eventCount: number; firstMs: number; lastMs: number; payload: Buffer },
  ): Promise<{ id: string; inserted: boolean }> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO replay_chunks (id, project_id, session_replay_id, batch_id, browser_session_id, session_replay_segment_id,
                                  event_count, byte_length, first_event_at, last_event_at, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, to_timestamp($9 / 1000.0), to_timestamp($10 / 1000.0), $11)
       ON CONFLICT (session_replay_id, batch_id) DO NOTHING RETURNING id`,
      [c.id, c.projectId, c.replayId, c.batchId, c.browserSessionId, c.segmentId, c.eventCount, c.payload.length, c.firstMs, c.lastMs, c.payload],
    );
    if (rows[0]) {
      await db.query(
        `UPDATE session_replays SET chunk_count = chunk_count + 1, event_count = event_count + $2, byte_length = byte_length + $3,
           started_at = LEAST(started_at, to_timestamp($4 / 1000.0)), last_event_at = GREATEST(last_event_at, to_timestamp($5 / 1000.0)),
           updated_at = now()
         WHERE id = $1`,
        [c.replayId, c.eventCount, c.payload.length, c.firstMs, c.lastMs],
      );
      return { id: rows[0].id, inserted: true };
    }
    await db.query(`UPDATE session_replays SET updated_at = now() WHERE id = $1`, [c.replayId]);
    return { id: "", inserted: false };
  },

  /** The session (refresh token id) of each named replay of the project. */
  async sessionsOf(db: Queryable, projectId: string, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const { rows } = await db.query<{ id: string; refresh_token_id: string }>(
      `SELECT id, refresh_token_id FROM session_replays WHERE project_id = $1 AND id = ANY($2::uuid[])`,
      [projectId, ids],
    );
    return new Map(rows.map((r) => [r.id, r.refresh_token_id]));
  },

  /** Replays by latest activity, newest first; `after` is the last row of the previous page. */
  async list(db: Queryable, projectId: string, f: ReplayFilter, limit: number, after?: { lastMs: bigint; id: string }): Promise<ReplayRow[]> {
    const { rows } = await db.query<ReplayRow>(
      `SELECT ${REPLAY_COLUMNS} FROM session_replays
       WHERE project_id = $1
         AND (cardinality($2::uuid[]) = 0 OR user_id = ANY($2::uuid[]))
         AND ($3::bigint IS NULL OR last_event_at >= to_timestamp($3 / 1000.0))
         AND ($4::bigint IS NULL OR last_event_at <= to_timestamp($4 / 1000.0))
         AND ($5::bigint IS NULL OR last_event_at - started_at >= make_interval(secs => $5 / 1000.0))
         AND ($6::bigint IS NULL OR last_event_at - started_at <= make_interval(secs => $6 / 1000.0))
         AND ($7::bigint IS NULL OR (last_event_at, id) < (to_timestamp($7 / 1000.0), $8::uuid))
       ORDER BY last_event_at DESC, id DESC LIMIT $9`,
      [
        projectId,
        f.userIds,
        f.lastEventFromMs?.toString() ?? null,
        f.lastEventToMs?.toString() ?? null,
        f.durationMinMs?.toString() ?? null,
        f.durationMaxMs?.toString() ?? null,
        after?.lastMs.toString() ?? null,
        after?.id ?? null,
        limit,
      ],
    );
    return rows;
  },

  async get(db: Queryable, projectId: string, id: string): Promise<ReplayRow | undefined> {
    const { rows } = await db.query<ReplayRow>(`SELECT ${REPLAY_COLUMNS} FROM session_replays WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rows[0];
  },

  /** Chunks in event order; `after` is the last chunk of the previous page. */
  async listChunks(db: Queryable, projectId: string, replayId: string, limit: number, after?: { firstMs: bigint; id: string }): Promise<ChunkRow[]> {
    const { rows } = await db.query<ChunkRow>(
      `SELECT ${CHUNK_COLUMNS} FROM replay_chunks
       WHERE project_id = $1 AND session_replay_id = $2
         AND ($3::bigint IS NULL OR (first_event_at, id) > (to_timestamp($3 / 1000.0), $4::uuid))
       ORDER BY first_event_at, id LIMIT $5`,
      [projectId, replayId, after?.firstMs.toString() ?? null, after?.id ?? null, limit],
    );
    return rows;
  },

  /** Chunks in event order from an offset, with their payloads. */
  async chunksWithPayload(db: Queryable, projectId: string, replayId: string, offset: number, limit: number): Promise<(ChunkRow & { payload: Buffer })[]> {
    const { rows } = await db.query<ChunkRow & { payload: Buffer }>(
      `SELECT ${CHUNK_COLUMNS}, payload FROM replay_chunks WHERE project_id = $1 AND session_replay_id = $2
       ORDER BY first_event_at, id OFFSET $3 LIMIT $4`,
      [projectId, replayId, offset, limit],
    );
    return rows;
  },

  async chunkPayload(db: Queryable, projectId: string, replayId: string, chunkId: string): Promise<Buffer | undefined> {
    const { rows } = await db.query<{ payload: Buffer }>(
      `SELECT payload FROM replay_chunks WHERE project_id = $1 AND session_replay_id = $2 AND id = $3`,
      [projectId, replayId, chunkId],
    );
    return rows[0]?.payload;
  },

  /** Replays (with their chunks) without activity for `days`; returns how many went. */
  async deleteExpired(db: Queryable, days: number, batch = 1_000): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM session_replays WHERE id IN (SELECT id FROM session_replays WHERE updated_at < now() - make_interval(days => $1) LIMIT $2)`,
      [days, batch],
    );
    return rowCount ?? 0;
  },

  async deleteProject(db: Queryable, projectId: string): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM session_replays WHERE project_id = $1`, [projectId]);
    return rowCount ?? 0;
  },
};
