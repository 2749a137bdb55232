import type { Queryable } from "@vestibule/shared/db";

export interface TeamRow {
  readonly id: string;
  readonly project_id: string;
  readonly display_name: string;
  readonly profile_image_url: string | null;
  readonly client_metadata: string | null;
  readonly client_read_only_metadata: string | null;
  readonly server_metadata: string | null;
  readonly version: number;
  readonly created_at: Date;
}

export type TeamFields = Pick<TeamRow, "display_name" | "profile_image_url" | "client_metadata" | "client_read_only_metadata" | "server_metadata">;

const COLUMNS = "id, project_id, display_name, profile_image_url, client_metadata, client_read_only_metadata, server_metadata, version, created_at";

/** The only SQL about teams. */
export const teamStore = {
  /** Inserts; undefined when the id is taken (in any project). */
  async insert(db: Queryable, t: TeamFields & { id: string; project_id: string }): Promise<TeamRow | undefined> {
    const { rows } = await db.query<TeamRow>(
      `INSERT INTO teams (id, project_id, display_name, profile_image_url, client_metadata, client_read_only_metadata, server_metadata)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
      [t.id, t.project_id, t.display_name, t.profile_image_url, t.client_metadata, t.client_read_only_metadata, t.server_metadata],
    );
    return rows[0];
  },

  async get(db: Queryable, projectId: string, teamId: string, forUpdate = false): Promise<TeamRow | undefined> {
    const { rows } = await db.query<TeamRow>(
      `SELECT ${COLUMNS} FROM teams WHERE id = $1 AND project_id = $2${forUpdate ? " FOR UPDATE" : ""}`,
      [teamId, projectId],
    );
    return rows[0];
  },

  /** Oldest first; only the teams `userId` is a member of when given. */
  /**
   * A page of a project's teams in creation order (`limit + 1` rows when there are more; limit 0 = all), from the
   * cursor team on (inclusive), optionally only those whose display name contains `query` (case-insensitive) or whose
   * id is `query`.
   */
  async page(db: Queryable, q: { projectId: string; userId?: string; limit: number; cursor?: string; query?: string; desc: boolean }): Promise<TeamRow[]> {
    const params: unknown[] = [q.projectId];
    const where = ["project_id = $1"];
    if (q.userId) {
      params.push(q.userId);
      where.push(`id IN (SELECT m.team_id FROM team_members m WHERE m.project_id = $1 AND m.user_id = $${params.length}::uuid)`);
    }
    const dir = q.desc ? "DESC" : "ASC";
    if (q.cursor) {
      params.push(q.cursor);
      where.push(`(created_at, id) ${q.desc ? "<=" : ">="} (SELECT c.created_at, c.id FROM teams c WHERE c.project_id = $1 AND c.id = $${params.length}::uuid)`);
    }
    if (q.query) {
      params.push(`%${q.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      const like = `display_name ILIKE $${params.length}`;
      if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(q.query.trim())) {
        params.push(q.query.trim().toLowerCase());
        where.push(`(${like} OR id = $${params.length}::uuid)`);
      } else {
        where.push(like);
      }
    }
    let limit = "";
    if (q.limit > 0) {
      params.push(q.limit + 1);
      limit = `LIMIT $${params.length}`;
    }
    const { rows } = await db.query<TeamRow>(
      `SELECT ${COLUMNS} FROM teams WHERE ${where.join(" AND ")} ORDER BY created_at ${dir}, id ${dir} ${limit}`,
      params,
    );
    return rows;
  },

  async list(db: Queryable, projectId: string, userId?: string): Promise<TeamRow[]> {
    if (userId) {
      const { rows } = await db.query<TeamRow>(
        `SELECT ${COLUMNS.split(", ").map((c) => `t.${c}`).join(", ")} FROM team_members m JOIN teams t ON t.id = m.team_id
         WHERE m.project_id = $1 AND m.user_id = $2 ORDER BY t.created_at, t.id`,
        [projectId, userId],
      );
      return rows;
    }
    const { rows } = await db.query<TeamRow>(`SELECT ${COLUMNS} FROM teams WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
    return rows;
  },

  async batchGet(db: Queryable, projectId: string, teamIds: readonly string[]): Promise<TeamRow[]> {
    if (teamIds.length === 0) return [];
    const { rows } = await db.query<TeamRow>(`SELECT ${COLUMNS} FROM teams WHERE project_id = $1 AND id = ANY($2::uuid[])`, [projectId, teamIds]);
    return rows;
  },

  async update(db: Queryable, projectId: string, teamId: string, f: TeamFields): Promise<TeamRow> {
    const { rows } = await db.query<TeamRow>(
      `UPDATE teams SET display_name = $3, profile_image_url = $4, client_metadata = $5, client_read_only_metadata = $6,
         server_metadata = $7, version = version + 1, updated_at = clock_timestamp()
       WHERE id = $1 AND project_id = $2 RETURNING ${COLUMNS}`,
      [teamId, projectId, f.display_name, f.profile_image_url, f.client_metadata, f.client_read_only_metadata, f.server_metadata],
    );
    return rows[0]!;
  },

  /** Deletes the team; memberships, grants and invitations go with it (foreign keys). */
  async delete(db: Queryable, projectId: string, teamId: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM teams WHERE id = $1 AND project_id = $2`, [teamId, projectId]);
    return rowCount === 1;
  },

  /** Everything of a deleted project. */
  async deleteProject(db: Queryable, projectId: string): Promise<number> {
    await db.query(`DELETE FROM project_permission_grants WHERE project_id = $1`, [projectId]);
    await db.query(`DELETE FROM deleted_users WHERE project_id = $1`, [projectId]);
    const { rowCount } = await db.query(`DELETE FROM teams WHERE project_id = $1`, [projectId]);
    return rowCount ?? 0;
  },
};
