import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about users already set up after their creation (migration 0004). */
export const setUpUserStore = {
  /** Marks the user as set up; false when they were already (the caller then changes nothing). */
  async claim(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`INSERT INTO set_up_users (project_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [projectId, userId]);
    return rowCount === 1;
  },

  async deleteUser(db: Queryable, projectId: string, userId: string): Promise<void> {
    await db.query(`DELETE FROM set_up_users WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
  },

  async deleteProject(db: Queryable, projectId: string): Promise<void> {
    await db.query(`DELETE FROM set_up_users WHERE project_id = $1`, [projectId]);
  },
};
