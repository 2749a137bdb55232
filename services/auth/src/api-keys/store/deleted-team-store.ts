import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about deleted teams (tombstones that keep team API keys from outliving their team). */
export const deletedTeamStore = {
  /**
   * Serializes, until the end of the caller's transaction, everything about one team's API keys that must not
   * interleave: creating a key and deleting the team's keys.
   */
  async lock(db: Queryable, projectId: string, teamId: string): Promise<void> {
    await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`auth.team_api_keys:${projectId}:${teamId}`]);
  },

  /** Records the team as deleted; false when it already was. */
  async record(db: Queryable, projectId: string, teamId: string): Promise<boolean> {
    const { rowCount } = await db.query(`INSERT INTO deleted_teams (project_id, team_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [projectId, teamId]);
    return rowCount === 1;
  },

  async isDeleted(db: Queryable, projectId: string, teamId: string): Promise<boolean> {
    const { rows } = await db.query(`SELECT 1 FROM deleted_teams WHERE project_id = $1 AND team_id = $2`, [projectId, teamId]);
    return rows.length > 0;
  },

  async deleteOld(db: Queryable, days: number): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM deleted_teams WHERE deleted_at < now() - make_interval(days => $1)`, [days]);
    return rowCount ?? 0;
  },
};
