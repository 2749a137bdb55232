import type { Queryable } from "@vestibule/shared/db";

export interface QuotaCharge {
  /** What is limited: `s:<session>` or `p:<project>` plus the kind of data. */
  readonly key: string;
  readonly window: "minute" | "day";
  readonly events: number;
  readonly bytes: number;
  readonly maxEvents: number;
  readonly maxBytes: number;
}

/** SQL of ingestion quotas (fixed windows on the database clock; shared by every replica). */
export const quotaStore = {
  /**
   * Adds a charge to its window when the window stays within its limits; false (and nothing counted) when it
   * would not. Run every charge of a request in one transaction so a refused one counts none.
   */
  async charge(db: Queryable, c: QuotaCharge): Promise<boolean> {
    if (c.events > c.maxEvents || c.bytes > c.maxBytes) return false;
    const { rowCount } = await db.query(
      `INSERT INTO quota_windows AS q (key, window_start, events, bytes) VALUES ($1, date_trunc($2, now()), $3, $4)
       ON CONFLICT (key, window_start) DO UPDATE SET events = q.events + EXCLUDED.events, bytes = q.bytes + EXCLUDED.bytes
         WHERE q.events + EXCLUDED.events <= $5 AND q.bytes + EXCLUDED.bytes <= $6`,
      [c.key, c.window, c.events, c.bytes, c.maxEvents, c.maxBytes],
    );
    return rowCount === 1;
  },

  /** Windows that ended more than a day ago. */
  async deleteOld(db: Queryable): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM quota_windows WHERE window_start < now() - interval '2 days'`);
    return rowCount ?? 0;
  },
};
