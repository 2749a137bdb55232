import type { Queryable } from "@vestibule/shared/db";

export interface EventRow {
  readonly eventType: string;
  readonly eventAtMs: number;
  readonly dataJson: string;
  readonly userId: string | null;
  readonly teamId: string | null;
  readonly sessionReplaySegmentId: string | null;
  readonly sessionReplayId: string | null;
}

export interface BatchMeta {
  readonly projectId: string;
  readonly branchId: string;
  /** The session (refresh token id), or "server" for server-sent batches. */
  readonly sessionKey: string;
  readonly refreshTokenId: string | null;
  readonly batchId: string;
  readonly fromServer: boolean;
}

/** SQL of analytics events. */
export const eventStore = {
  /** Claims a batch id for the session; false when that session already stored it. */
  async claimBatch(db: Queryable, meta: BatchMeta, eventCount: number): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO event_batches (project_id, session_key, batch_id, event_count) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [meta.projectId, meta.sessionKey, meta.batchId, eventCount],
    );
    return rowCount === 1;
  },

  /** Inserts the events of one batch in one statement (arrays unnested). */
  async insertEvents(db: Queryable, meta: BatchMeta, events: readonly EventRow[]): Promise<number> {
    const { rowCount } = await db.query(
      `INSERT INTO events (project_id, branch_id, refresh_token_id, batch_id, from_server,
                           event_type, event_at, data, user_id, team_id, session_replay_segment_id, session_replay_id)
       SELECT $1, $2, $3::uuid, $4::uuid, $5, t.event_type, to_timestamp(t.event_at_ms / 1000.0), t.data::jsonb,
              t.user_id::uuid, t.team_id::uuid, t.segment_id::uuid, t.replay_id::uuid
       FROM unnest($6::text[], $7::float8[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
            AS t(event_type, event_at_ms, data, user_id, team_id, segment_id, replay_id)`,
      [
        meta.projectId,
        meta.branchId,
        meta.refreshTokenId,
        meta.batchId,
        meta.fromServer,
        events.map((e) => e.eventType),
        events.map((e) => e.eventAtMs),
        events.map((e) => e.dataJson),
        events.map((e) => e.userId),
        events.map((e) => e.teamId),
        events.map((e) => e.sessionReplaySegmentId),
        events.map((e) => e.sessionReplayId),
      ],
    );
    return rowCount ?? 0;
  },

  /** Deletes up to `batch` events (and batch ids) received more than `days` ago; returns how many events went. */
  async deleteExpired(db: Queryable, days: number, batch = 10_000): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE received_at < now() - make_interval(days => $1) LIMIT $2)`,
      [days, batch],
    );
    await db.query(`DELETE FROM event_batches WHERE received_at < now() - make_interval(days => $1)`, [days]);
    return rowCount ?? 0;
  },

  async deleteProject(db: Queryable, projectId: string): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM events WHERE project_id = $1`, [projectId]);
    await db.query(`DELETE FROM event_batches WHERE project_id = $1`, [projectId]);
    return rowCount ?? 0;
  },
};
