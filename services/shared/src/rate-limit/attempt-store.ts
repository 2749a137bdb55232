import type { Queryable } from "../db/index.ts";

/**
 * Seconds an `attempt_counters` row is still blocked for (0 = not blocked), on the database clock. For services'
 * queries that read counters together with other data (the auth service's credential-store).
 */
export const ATTEMPT_WAIT_SQL = "GREATEST(0, COALESCE(ceil(extract(epoch FROM blocked_until - now())), 0))::int";

/**
 * The only SQL about brute-force attempt counters, on the `attempt_counters` table of the calling pool's schema
 * (each service using RateLimiter creates it in a migration of its own; see index.ts). Keys are already hashed by
 * the caller.
 */
export const attemptStore = {
  /**
   * For each of `keys` that has a counter: whether it has failures and how many seconds it is still blocked for
   * (0 = not blocked), measured on the database clock.
   */
  async state(db: Queryable, keys: readonly string[]): Promise<Map<string, number>> {
    if (keys.length === 0) return new Map();
    const { rows } = await db.query<{ key: string; wait: number }>(
      `SELECT key, ${ATTEMPT_WAIT_SQL} AS wait FROM attempt_counters WHERE key = ANY($1::text[])`,
      [keys],
    );
    return new Map(rows.map((r) => [r.key, r.wait]));
  },

  /** Counts a failure (restarting from 1 after `resetSeconds` without failures); returns the count. */
  async recordFailure(db: Queryable, key: string, resetSeconds: number): Promise<number> {
    const { rows } = await db.query<{ failures: number }>(
      `INSERT INTO attempt_counters AS c (key, failures, last_failure_at) VALUES ($1, 1, now())
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN c.last_failure_at < now() - make_interval(secs => $2) THEN 1 ELSE c.failures + 1 END,
         last_failure_at = now()
       RETURNING failures`,
      [key, resetSeconds],
    );
    return rows[0]!.failures;
  },

  async block(db: Queryable, key: string, seconds: number): Promise<void> {
    await db.query(`UPDATE attempt_counters SET blocked_until = now() + make_interval(secs => $2) WHERE key = $1`, [key, seconds]);
  },

  async reset(db: Queryable, key: string): Promise<void> {
    await db.query(`DELETE FROM attempt_counters WHERE key = $1`, [key]);
  },

  async deleteStale(db: Queryable, olderThanSeconds: number): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM attempt_counters WHERE last_failure_at < now() - make_interval(secs => $1) AND (blocked_until IS NULL OR blocked_until < now())`,
      [olderThanSeconds],
    );
    return rowCount ?? 0;
  },
};
