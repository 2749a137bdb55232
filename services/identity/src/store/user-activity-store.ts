/**
 * User activity (last seen, first activity of a day) and the user aggregates of the metrics page (sign-ups, active
 * users, countries, login methods). Part of userStore (user-store.ts).
 */
import type { Queryable } from "@vestibule/shared/db";
import type { AggregateDeltas } from "../domain/users.ts";

/** A user (id) whose first activity of a UTC day was just recorded. */
export interface NewlyActive {
  readonly project_id: string;
  readonly day: string;
  readonly is_anonymous: boolean;
  readonly users: number;
}

export interface DailyStatRow {
  readonly day: string;
  readonly sign_ups: number;
  readonly active_users: number;
}

/** A weekly cohort's size (`active_week` null) or how many of its users were active in `active_week`. */
export interface CohortRow {
  readonly week: string;
  readonly active_week: string | null;
  readonly users: number;
}

/** Activity and aggregates (spread into userStore). */
export const userActivityStore = {
  /**
   * Records activity (deduplicated by the caller: one entry per user, the latest time). Unknown users are ignored.
   * Returns, per (project, UTC day, anonymity), how many users had their first activity of that day recorded now:
   * a user counts once per day because the counting upsert only fires when the stored activity moves to a later day,
   * under the row lock, so concurrent batches cannot both count it.
   */
  async recordActivity(db: Queryable, entries: ReadonlyArray<{ projectId: string; userId: string; at: Date }>): Promise<NewlyActive[]> {
    if (entries.length === 0) return [];
    const params = [entries.map((e) => e.userId), entries.map((e) => e.projectId), entries.map((e) => e.at.toISOString())];
    const { rows } = await db.query<NewlyActive>(
      `WITH input AS (
         SELECT i.user_id, i.project_id, i.at, u.is_anonymous
           FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS i(user_id, project_id, at)
           JOIN users u ON u.id = i.user_id AND u.project_id = i.project_id
       ), first_of_day AS (
         INSERT INTO user_activity AS a (user_id, project_id, last_active_at)
         SELECT user_id, project_id, at FROM input ORDER BY user_id
         ON CONFLICT (user_id) DO UPDATE SET last_active_at = EXCLUDED.last_active_at
           WHERE (a.last_active_at AT TIME ZONE 'UTC')::date < (EXCLUDED.last_active_at AT TIME ZONE 'UTC')::date
         RETURNING a.user_id, a.project_id, (a.last_active_at AT TIME ZONE 'UTC')::date AS day
       ), active_day AS (
         INSERT INTO user_active_days (user_id, project_id, day)
         SELECT user_id, project_id, day FROM first_of_day ORDER BY user_id
         ON CONFLICT DO NOTHING
       )
       SELECT i.project_id, f.day::text AS day, i.is_anonymous, count(*)::int AS users
         FROM first_of_day f JOIN input i ON i.user_id = f.user_id
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      params,
    );
    // Same-day activity moves last_active_at forward without counting.
    await db.query(
      `UPDATE user_activity a SET last_active_at = i.at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS i(user_id, at)
        WHERE a.user_id = i.user_id AND a.last_active_at < i.at`,
      [params[0], params[2]],
    );
    return rows;
  },

  async addActiveUsers(db: Queryable, rows: readonly NewlyActive[]): Promise<void> {
    for (const r of rows) {
      await db.query(
        `INSERT INTO user_daily_stats (project_id, day, is_anonymous, active_users) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, day, is_anonymous) DO UPDATE SET active_users = user_daily_stats.active_users + EXCLUDED.active_users`,
        [r.project_id, r.day, r.is_anonymous, r.users],
      );
    }
  },

  /** Users of `userIds` that have no country yet. */
  async withoutCountry(db: Queryable, userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM users WHERE id = ANY($1::uuid[]) AND country_code IS NULL`, [userIds]);
    return new Set(rows.map((r) => r.id));
  },

  /** Sets the country of a user that has none; returns what the country counters need, or undefined. */
  async setCountryIfUnknown(db: Queryable, userId: string, countryCode: string): Promise<{ project_id: string; is_anonymous: boolean } | undefined> {
    const { rows } = await db.query<{ project_id: string; is_anonymous: boolean }>(
      `UPDATE users SET country_code = $2 WHERE id = $1 AND country_code IS NULL RETURNING project_id, is_anonymous`,
      [userId, countryCode],
    );
    return rows[0];
  },

  async applyAggregateDeltas(db: Queryable, d: AggregateDeltas): Promise<void> {
    // Each counter table: its key column, its counter column and the deltas of both.
    const counters = [
      ["user_daily_stats", "day", "sign_ups", d.signUps],
      ["user_country_counts", "country_code", "users", d.countries],
      ["user_login_method_counts", "method", "users", d.loginMethods],
    ] as const;
    for (const [table, key, counter, deltas] of counters) {
      for (const [projectId, value, anon, delta] of deltas) {
        await db.query(
          `INSERT INTO ${table} (project_id, ${key}, is_anonymous, ${counter}) VALUES ($1, $2, $3, $4)
           ON CONFLICT (project_id, ${key}, is_anonymous) DO UPDATE SET ${counter} = ${table}.${counter} + EXCLUDED.${counter}`,
          [projectId, value, anon, delta],
        );
      }
    }
  },

  async totalUsers(db: Queryable, projectId: string, includeAnonymous: boolean): Promise<number> {
    const { rows } = await db.query<{ total: number }>(
      `SELECT coalesce(sum(sign_ups), 0)::int8 AS total FROM user_daily_stats WHERE project_id = $1${includeAnonymous ? "" : " AND NOT is_anonymous"}`,
      [projectId],
    );
    return rows[0]?.total ?? 0;
  },

  async dailyStats(db: Queryable, projectId: string, fromDay: string, includeAnonymous: boolean): Promise<DailyStatRow[]> {
    const { rows } = await db.query<DailyStatRow>(
      `SELECT day::text AS day, sum(sign_ups)::int AS sign_ups, sum(active_users)::int AS active_users
         FROM user_daily_stats WHERE project_id = $1 AND day >= $2::date${includeAnonymous ? "" : " AND NOT is_anonymous"}
        GROUP BY day ORDER BY day`,
      [projectId, fromDay],
    );
    return rows;
  },

  /**
   * Distinct active users per `unit` (day, week: ISO weeks starting on Monday, month) from the UTC day `fromDay` on,
   * from the per-user active days.
   */
  async activeUsersPer(db: Queryable, projectId: string, unit: "day" | "week" | "month", fromDay: string, includeAnonymous: boolean): Promise<Array<{ start: string; users: number }>> {
    const { rows } = await db.query<{ start: string; users: number }>(
      `SELECT date_trunc($3, d.day::timestamp)::date::text AS start, count(DISTINCT d.user_id)::int AS users
         FROM user_active_days d${includeAnonymous ? "" : " JOIN users u ON u.id = d.user_id AND NOT u.is_anonymous"}
        WHERE d.project_id = $1 AND d.day >= $2::date
        GROUP BY 1 ORDER BY 1`,
      [projectId, fromDay, unit],
    );
    return rows;
  },

  /**
   * Weekly sign-up cohorts of the users who signed up from the UTC day `fromMonday` (a Monday) on: per cohort week,
   * its size, and per later week in which some of its users were active, how many.
   */
  async weeklyCohorts(db: Queryable, projectId: string, fromMonday: string, includeAnonymous: boolean): Promise<CohortRow[]> {
    const { rows } = await db.query<CohortRow>(
      `WITH cohort AS (
         SELECT id, date_trunc('week', signed_up_at AT TIME ZONE 'UTC')::date AS week FROM users
          WHERE project_id = $1 AND signed_up_at >= $2::date::timestamp AT TIME ZONE 'UTC'${includeAnonymous ? "" : " AND NOT is_anonymous"}
       )
       SELECT c.week::text AS week, NULL::text AS active_week, count(*)::int AS users FROM cohort c GROUP BY c.week
       UNION ALL
       SELECT c.week::text, date_trunc('week', d.day::timestamp)::date::text, count(DISTINCT c.id)::int
         FROM cohort c JOIN user_active_days d ON d.user_id = c.id AND d.day >= c.week + 7
        GROUP BY 1, 2
       ORDER BY 1, 2 NULLS FIRST`,
      [projectId, fromMonday],
    );
    return rows;
  },

  async countries(db: Queryable, projectId: string, includeAnonymous: boolean): Promise<Array<{ country_code: string; users: number }>> {
    return counterTotals(db, "user_country_counts", "country_code", "users", projectId, includeAnonymous);
  },

  async loginMethods(db: Queryable, projectId: string, includeAnonymous: boolean): Promise<Array<{ method: string; count: number }>> {
    return counterTotals(db, "user_login_method_counts", "method", "count", projectId, includeAnonymous);
  },
};

/** A project's non-zero counts of a counter table (users per `key`), largest first; `as` names the count column. */
async function counterTotals<K extends string, C extends string>(
  db: Queryable,
  table: string,
  key: K,
  as: C,
  projectId: string,
  includeAnonymous: boolean,
): Promise<Array<Record<K, string> & Record<C, number>>> {
  const { rows } = await db.query<Record<K, string> & Record<C, number>>(
    `SELECT ${key}, sum(users)::int AS ${as} FROM ${table}
      WHERE project_id = $1${includeAnonymous ? "" : " AND NOT is_anonymous"}
      GROUP BY ${key} HAVING sum(users) > 0 ORDER BY ${as} DESC, ${key}`,
    [projectId],
  );
  return rows;
}
