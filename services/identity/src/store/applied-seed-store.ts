import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about applied data seeds (bootstrap.ts). */
export const appliedSeedStore = {
  /**
   * Records a seed as applied; false when it already was (then the caller does nothing). In a transaction this also
   * makes a concurrent replica wait for the first one's commit and then see the record.
   */
  async record(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`INSERT INTO applied_seeds (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`, [id]);
    return rowCount === 1;
  },
};
