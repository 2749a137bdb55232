import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about deleted users (tombstones from identity.user.deleted.v1). */
export const deletedUserStore = {
  async insert(db: Queryable, projectId: string, userId: string): Promise<void> {
    await db.query(`INSERT INTO deleted_users (project_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [projectId, userId]);
  },

  async isDeleted(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rows } = await db.query(`SELECT 1 FROM deleted_users WHERE project_id = $1 AND user_id = $2`, [projectId, userId]);
    return rows.length > 0;
  },
};
