import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about clearing selected teams (the teams-permissions service owns the teams themselves). */
export const selectedTeamStore = {
  /**
   * Unselects `teamId` for every user of the project who has it selected (or only for `userId`), bumping their
   * versions; returns the ids of the users changed.
   */
  async clear(db: Queryable, projectId: string, teamId: string, userId?: string): Promise<string[]> {
    const { rows } = await db.query<{ id: string }>(
      `UPDATE users SET selected_team_id = NULL, version = version + 1, updated_at = now()
       WHERE project_id = $1 AND selected_team_id = $2 AND ($3::uuid IS NULL OR id = $3)
       RETURNING id`,
      [projectId, teamId, userId ?? null],
    );
    return rows.map((r) => r.id);
  },
};
