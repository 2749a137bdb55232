import type { Queryable } from "@vestibule/shared/db";
import type { QuerySpec } from "../domain/queries.ts";

/** The days of a range (UTC) left-joined to a per-day aggregate, so days without events answer 0. */
function perDay(aggregate: string, column: string, where: string): string {
  return `WITH days AS (
      SELECT generate_series(date_trunc('day', to_timestamp($2 / 1000.0) AT TIME ZONE 'UTC'),
                             date_trunc('day', to_timestamp($3 / 1000.0) AT TIME ZONE 'UTC'), interval '1 day')::date AS day),
    counts AS (
      SELECT (event_at AT TIME ZONE 'UTC')::date AS day, ${aggregate} AS n FROM events
      WHERE project_id = $1 AND event_at >= to_timestamp($2 / 1000.0) AND event_at <= to_timestamp($3 / 1000.0)
        AND ($4::text IS NULL OR branch_id = $4) ${where}
      GROUP BY 1)
    SELECT to_char(days.day, 'YYYY-MM-DD') AS date, COALESCE(counts.n, 0)::int AS ${column}
    FROM days LEFT JOIN counts USING (day) ORDER BY days.day`;
}

/** SQL of the named analytics queries (domain/queries.ts). `$4` is the branch, or null for every branch. */
export const queryStore = {
  async run(db: Queryable, projectId: string, branchId: string | null, q: QuerySpec): Promise<Record<string, unknown>[]> {
    const base = [projectId, q.fromMs, q.toMs, branchId];
    switch (q.name) {
      case "page_views_per_day":
        return (await db.query(perDay("count(*)", "page_views", `AND event_type = '$page-view'`), base)).rows;
      case "active_users_per_day":
        return (await db.query(perDay("count(DISTINCT user_id)", "active_users", `AND user_id IS NOT NULL`), base)).rows;
      case "events_per_day":
        return (await db.query(perDay("count(*)", "events", `AND ($5::text IS NULL OR event_type = $5)`), [...base, q.eventType ?? null])).rows;
      case "event_types":
        return (
          await db.query(
            `SELECT event_type, count(*)::int AS events, count(DISTINCT user_id)::int AS users FROM events
             WHERE project_id = $1 AND event_at >= to_timestamp($2 / 1000.0) AND event_at <= to_timestamp($3 / 1000.0)
               AND ($4::text IS NULL OR branch_id = $4)
             GROUP BY event_type ORDER BY events DESC, event_type LIMIT $5`,
            [...base, q.limit],
          )
        ).rows;
      case "top_pages":
        return (
          await db.query(
            `SELECT data->>'path' AS path, count(*)::int AS page_views, count(DISTINCT user_id)::int AS users FROM events
             WHERE project_id = $1 AND event_type = '$page-view' AND event_at >= to_timestamp($2 / 1000.0) AND event_at <= to_timestamp($3 / 1000.0)
               AND ($4::text IS NULL OR branch_id = $4)
             GROUP BY 1 ORDER BY page_views DESC, path LIMIT $5`,
            [...base, q.limit],
          )
        ).rows;
      case "recent_events":
        return (
          await db.query(
            `SELECT event_type, (extract(epoch FROM event_at) * 1000)::bigint::float8 AS event_at_millis, user_id, team_id, session_replay_id, data
             FROM events
             WHERE project_id = $1 AND event_at >= to_timestamp($2 / 1000.0) AND event_at <= to_timestamp($3 / 1000.0)
               AND ($4::text IS NULL OR branch_id = $4) AND ($5::text IS NULL OR event_type = $5) AND ($6::uuid IS NULL OR user_id = $6)
             ORDER BY event_at DESC, id DESC LIMIT $7`,
            [...base, q.eventType ?? null, q.userId ?? null, q.limit],
          )
        ).rows;
    }
  },
};
