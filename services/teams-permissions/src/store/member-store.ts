import type { Queryable } from "@vestibule/shared/db";

export interface MemberRow {
  readonly team_id: string;
  readonly user_id: string;
  readonly project_id: string;
  readonly display_name: string | null;
  readonly profile_image_url: string | null;
  readonly created_at: Date;
}

const COLUMNS = "team_id, user_id, project_id, display_name, profile_image_url, created_at";

/** The only SQL about memberships and member profiles. */
export const memberStore = {
  /** Inserts; undefined when the membership exists. */
  async insert(db: Queryable, m: { projectId: string; teamId: string; userId: string }): Promise<MemberRow | undefined> {
    const { rows } = await db.query<MemberRow>(
      `INSERT INTO team_members (team_id, user_id, project_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [m.teamId, m.userId, m.projectId],
    );
    return rows[0];
  },

  async get(db: Queryable, projectId: string, teamId: string, userId: string, forUpdate = false): Promise<MemberRow | undefined> {
    const { rows } = await db.query<MemberRow>(
      `SELECT ${COLUMNS} FROM team_members WHERE team_id = $1 AND user_id = $2 AND project_id = $3${forUpdate ? " FOR UPDATE" : ""}`,
      [teamId, userId, projectId],
    );
    return rows[0];
  },

  /**
   * The hot path of permission checks: whether the user is a member and the team permissions they hold directly, in
   * one indexed read (primary keys of both tables). `null` when not a member.
   */
  async directTeamPermissions(db: Queryable, projectId: string, teamId: string, userId: string): Promise<string[] | null> {
    const { rows } = await db.query<{ permission_ids: string[] }>({
      name: "tp_direct_team_permissions",
      text: `SELECT coalesce(array_agg(g.permission_id) FILTER (WHERE g.permission_id IS NOT NULL), '{}') AS permission_ids
             FROM team_members m LEFT JOIN team_permission_grants g ON g.team_id = m.team_id AND g.user_id = m.user_id
             WHERE m.team_id = $1 AND m.user_id = $2 AND m.project_id = $3
             GROUP BY m.team_id, m.user_id`,
      values: [teamId, userId, projectId],
    });
    return rows[0] ? rows[0].permission_ids : null;
  },

  /** Oldest first, filtered by team and/or user; at most `limit` (undefined = all). */
  async list(db: Queryable, projectId: string, filter: { teamId?: string; userId?: string; limit?: number }): Promise<MemberRow[]> {
    const { rows } = await db.query<MemberRow>(
      `SELECT ${COLUMNS} FROM team_members
       WHERE project_id = $1 AND ($2::uuid IS NULL OR team_id = $2) AND ($3::uuid IS NULL OR user_id = $3)
       ORDER BY created_at, team_id, user_id
       LIMIT $4`,
      [projectId, filter.teamId ?? null, filter.userId ?? null, filter.limit ?? null],
    );
    return rows;
  },

  async updateProfile(db: Queryable, m: MemberRow): Promise<MemberRow> {
    const { rows } = await db.query<MemberRow>(
      `UPDATE team_members SET display_name = $4, profile_image_url = $5 WHERE team_id = $1 AND user_id = $2 AND project_id = $3 RETURNING ${COLUMNS}`,
      [m.team_id, m.user_id, m.project_id, m.display_name, m.profile_image_url],
    );
    return rows[0]!;
  },

  /** Removes a membership (its grants go with it); false when there was none. */
  async delete(db: Queryable, projectId: string, teamId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM team_members WHERE team_id = $1 AND user_id = $2 AND project_id = $3`, [teamId, userId, projectId]);
    return rowCount === 1;
  },

  /** Removes every membership of a user; returns the teams they left. */
  async deleteForUser(db: Queryable, projectId: string, userId: string): Promise<string[]> {
    const { rows } = await db.query<{ team_id: string }>(
      `DELETE FROM team_members WHERE project_id = $1 AND user_id = $2 RETURNING team_id`,
      [projectId, userId],
    );
    return rows.map((r) => r.team_id).sort();
  },

  async count(db: Queryable, teamId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM team_members WHERE team_id = $1`, [teamId]);
    return rows[0]!.n;
  },
};
