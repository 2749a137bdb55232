import type { Queryable } from "../db/index.ts";
import type { CounterWrite } from "./grants.ts";

/** A counter as stored (see `lock`). */
export interface StoredCounter {
  readonly failures: number;
  readonly idleSeconds: number;
  readonly expired: number;
  readonly pending: number;
  readonly wait: number;
}

/**
 * The only SQL about brute-force attempt counters, on the `attempt_counters` table of the calling pool's schema
 * (each service using RateLimiter creates it in migrations of its own; see index.ts). Keys are already hashed by the
 * caller. `lock` and `write` run in one transaction: the counters stay locked between them.
 */
export const attemptStore = {
  /**
   * Creates the missing counters and locks all of `keys` (sorted and distinct, so that two batches never wait for each
   * other in a cycle) until the transaction ends; gives their raw state on the database clock: the failures stored,
   * the seconds since the last one (the caller applies its policy's forgetting, `rememberedFailures`), reservations
   * past their lease (`expired`, to count as failures) apart from the ones in flight.
   */
  async lock(tx: Queryable, keys: readonly string[]): Promise<Map<string, StoredCounter>> {
    const { rows } = await tx.query<StoredCounter & { key: string }>(
      `INSERT INTO attempt_counters AS c (key, failures, last_failure_at)
       SELECT key, 0, now() FROM unnest($1::text[]) AS key
       ON CONFLICT (key) DO UPDATE SET failures = c.failures
       RETURNING c.key, c.failures,
         GREATEST(0, extract(epoch FROM now() - c.last_failure_at))::float8 AS "idleSeconds",
         CASE WHEN c.pending_until < now() THEN c.pending ELSE 0 END AS expired,
         CASE WHEN c.pending_until < now() THEN 0 ELSE c.pending END AS pending,
         GREATEST(0, COALESCE(ceil(extract(epoch FROM c.blocked_until - now())), 0))::int AS wait`,
      [keys],
    );
    return new Map(rows.map(({ key, ...r }) => [key, r]));
  },

  /**
   * Writes locked counters (a reservation's lease runs `leaseSeconds` from now) and deletes the clean ones. A counter
   * whose failures change (a failure, or failures forgotten or refilled since) is dated now.
   */
  async write(tx: Queryable, writes: ReadonlyMap<string, CounterWrite>, clean: readonly string[], leaseSeconds: number): Promise<void> {
    if (writes.size === 0 && clean.length === 0) return;
    const w = [...writes];
    await tx.query(
      `WITH cleaned AS (DELETE FROM attempt_counters WHERE key = ANY($1::text[]))
       UPDATE attempt_counters AS c SET
         failures = u.failures,
         pending = u.pending,
         pending_until = CASE WHEN u.reserved THEN now() + make_interval(secs => $8) ELSE c.pending_until END,
         last_failure_at = CASE WHEN u.failed OR u.failures <> c.failures THEN now() ELSE c.last_failure_at END,
         blocked_until = CASE WHEN u.block > 0 THEN now() + make_interval(secs => u.block) WHEN u.block = 0 THEN NULL ELSE c.blocked_until END
       FROM unnest($2::text[], $3::int[], $4::int[], $5::boolean[], $6::boolean[], $7::int[]) AS u (key, failures, pending, reserved, failed, block)
       WHERE c.key = u.key`,
      [
        clean,
        w.map(([k]) => k),
        w.map(([, x]) => x.failures),
        w.map(([, x]) => x.pending),
        w.map(([, x]) => x.reserved),
        w.map(([, x]) => x.failed),
        w.map(([, x]) => x.block),
        leaseSeconds,
      ],
    );
  },

  /** Deletes counters without a failure for `olderThanSeconds`, not blocked and with nothing in flight. */
  async deleteStale(db: Queryable, olderThanSeconds: number): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM attempt_counters WHERE last_failure_at < now() - make_interval(secs => $1)
         AND (blocked_until IS NULL OR blocked_until < now()) AND (pending = 0 OR pending_until < now())`,
      [olderThanSeconds],
    );
    return rowCount ?? 0;
  },
};
