import type { Queryable } from "@vestibule/shared/db";

export interface TeamGrantRow {
  readonly team_id: string;
  readonly user_id: string;
  readonly permission_id: string;
}

export interface ProjectGrantRow {
  readonly user_id: string;
  readonly permission_id: string;
}

/** The only SQL about permission grants (team and project scope). */
export const grantStore = {
  /** Idempotent; true when the grant is new. The membership must exist (foreign key). */
  async grantTeam(db: Queryable, g: { projectId: string; teamId: string; userId: string; permissionId: string }): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO team_permission_grants (team_id, user_id, permission_id, project_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [g.teamId, g.userId, g.permissionId, g.projectId],
    );
    return rowCount === 1;
  },

  async revokeTeam(db: Queryable, g: { projectId: string; teamId: string; userId: string; permissionId: string }): Promise<boolean> {
    const { rowCount } = await db.query(
      `DELETE FROM team_permission_grants WHERE team_id = $1 AND user_id = $2 AND permission_id = $3 AND project_id = $4`,
      [g.teamId, g.userId, g.permissionId, g.projectId],
    );
    return rowCount === 1;
  },

  /** Direct team grants, filtered by team and/or user. */
  async listTeam(db: Queryable, projectId: string, filter: { teamId?: string; userId?: string }): Promise<TeamGrantRow[]> {
    const { rows } = await db.query<TeamGrantRow>(
      `SELECT team_id, user_id, permission_id FROM team_permission_grants
       WHERE project_id = $1 AND ($2::uuid IS NULL OR team_id = $2) AND ($3::uuid IS NULL OR user_id = $3)`,
      [projectId, filter.teamId ?? null, filter.userId ?? null],
    );
    return rows;
  },

  async grantProject(db: Queryable, g: { projectId: string; userId: string; permissionId: string }): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO project_permission_grants (project_id, user_id, permission_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [g.projectId, g.userId, g.permissionId],
    );
    return rowCount === 1;
  },

  async revokeProject(db: Queryable, g: { projectId: string; userId: string; permissionId: string }): Promise<boolean> {
    const { rowCount } = await db.query(
      `DELETE FROM project_permission_grants WHERE project_id = $1 AND user_id = $2 AND permission_id = $3`,
      [g.projectId, g.userId, g.permissionId],
    );
    return rowCount === 1;
  },

  async listProject(db: Queryable, projectId: string, userId?: string): Promise<ProjectGrantRow[]> {
    const { rows } = await db.query<ProjectGrantRow>(
      `SELECT user_id, permission_id FROM project_permission_grants WHERE project_id = $1 AND ($2::uuid IS NULL OR user_id = $2)`,
      [projectId, userId ?? null],
    );
    return rows;
  },

  async directProjectPermissions(db: Queryable, projectId: string, userId: string): Promise<string[]> {
    const { rows } = await db.query<{ permission_id: string }>({
      name: "tp_direct_project_permissions",
      text: `SELECT permission_id FROM project_permission_grants WHERE project_id = $1 AND user_id = $2`,
      values: [projectId, userId],
    });
    return rows.map((r) => r.permission_id);
  },

  async deleteProjectGrantsOfUser(db: Queryable, projectId: string, userId: string): Promise<string[]> {
    const { rows } = await db.query<{ permission_id: string }>(
      `DELETE FROM project_permission_grants WHERE project_id = $1 AND user_id = $2 RETURNING permission_id`,
      [projectId, userId],
    );
    return rows.map((r) => r.permission_id).sort();
  },

  /** Removes every grant of a permission id in one scope; returns them (for the events). */
  async deleteAllOf(db: Queryable, projectId: string, scope: "team" | "project", permissionId: string): Promise<TeamGrantRow[]> {
    if (scope === "team") {
      const { rows } = await db.query<TeamGrantRow>(
        `DELETE FROM team_permission_grants WHERE project_id = $1 AND permission_id = $2 RETURNING team_id, user_id, permission_id`,
        [projectId, permissionId],
      );
      return rows;
    }
    const { rows } = await db.query<{ user_id: string; permission_id: string }>(
      `DELETE FROM project_permission_grants WHERE project_id = $1 AND permission_id = $2 RETURNING user_id, permission_id`,
      [projectId, permissionId],
    );
    return rows.map((r) => ({ team_id: "", user_id: r.user_id, permission_id: r.permission_id }));
  },

  /** Renames a permission id in every grant of one scope (the new id holds no grants: callers delete stale ones first). */
  async rename(db: Queryable, projectId: string, scope: "team" | "project", oldId: string, newId: string): Promise<TeamGrantRow[]> {
    if (scope === "team") {
      const { rows } = await db.query<TeamGrantRow>(
        `UPDATE team_permission_grants SET permission_id = $3 WHERE project_id = $1 AND permission_id = $2 RETURNING team_id, user_id, permission_id`,
        [projectId, oldId, newId],
      );
      return rows;
    }
    const { rows } = await db.query<{ user_id: string; permission_id: string }>(
      `UPDATE project_permission_grants SET permission_id = $3 WHERE project_id = $1 AND permission_id = $2 RETURNING user_id, permission_id`,
      [projectId, oldId, newId],
    );
    return rows.map((r) => ({ team_id: "", user_id: r.user_id, permission_id: r.permission_id }));
  },
};
