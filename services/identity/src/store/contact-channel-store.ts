import type { Queryable } from "@vestibule/shared/db";

export interface ContactChannelRow {
  readonly id: string;
  readonly project_id: string;
  readonly user_id: string;
  readonly type: string;
  readonly value: string;
  readonly is_verified: boolean;
  readonly is_primary: boolean;
  readonly used_for_auth: boolean;
}

/** Unique indexes whose violations the services turn into contract errors. */
export const CHANNEL_CONSTRAINTS = {
  /** (project, type, value) among channels used for auth. */
  authValue: "contact_channels_auth_value",
  /** (user, type, value). */
  userValue: "contact_channels_user_value",
  /** One primary channel per (user, type). */
  primary: "contact_channels_primary",
} as const;

const COLUMNS = "id, project_id, user_id, type, value, is_verified, is_primary, used_for_auth";

/** The only SQL about contact channels. */
export const contactChannelStore = {
  async list(db: Queryable, projectId: string, userId?: string): Promise<ContactChannelRow[]> {
    const { rows } = userId
      ? await db.query<ContactChannelRow>(
          `SELECT ${COLUMNS} FROM contact_channels WHERE project_id = $1 AND user_id = $2 ORDER BY created_at, id`,
          [projectId, userId],
        )
      : await db.query<ContactChannelRow>(`SELECT ${COLUMNS} FROM contact_channels WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
    return rows;
  },

  async get(db: Queryable, projectId: string, userId: string, id: string): Promise<ContactChannelRow | undefined> {
    const { rows } = await db.query<ContactChannelRow>(
      `SELECT ${COLUMNS} FROM contact_channels WHERE project_id = $1 AND user_id = $2 AND id = $3`,
      [projectId, userId, id],
    );
    return rows[0];
  },

  async getPrimary(db: Queryable, userId: string, type = "email"): Promise<ContactChannelRow | undefined> {
    const { rows } = await db.query<ContactChannelRow>(
      `SELECT ${COLUMNS} FROM contact_channels WHERE user_id = $1 AND type = $2 AND is_primary`,
      [userId, type],
    );
    return rows[0];
  },

  async findByUserValue(db: Queryable, userId: string, type: string, value: string): Promise<ContactChannelRow | undefined> {
    const { rows } = await db.query<ContactChannelRow>(
      `SELECT ${COLUMNS} FROM contact_channels WHERE user_id = $1 AND type = $2 AND value = $3`,
      [userId, type, value],
    );
    return rows[0];
  },

  /** The channel some user of the project signs in with, if any. */
  async findAuthChannel(db: Queryable, projectId: string, type: string, value: string): Promise<ContactChannelRow | undefined> {
    const { rows } = await db.query<ContactChannelRow>(
      `SELECT ${COLUMNS} FROM contact_channels WHERE project_id = $1 AND type = $2 AND value = $3 AND used_for_auth`,
      [projectId, type, value],
    );
    return rows[0];
  },

  async insert(db: Queryable, c: ContactChannelRow): Promise<void> {
    await db.query(
      `INSERT INTO contact_channels (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [c.id, c.project_id, c.user_id, c.type, c.value, c.is_verified, c.is_primary, c.used_for_auth],
    );
  },

  async update(db: Queryable, c: ContactChannelRow): Promise<void> {
    await db.query(
      `UPDATE contact_channels SET value = $2, is_verified = $3, is_primary = $4, used_for_auth = $5 WHERE id = $1`,
      [c.id, c.value, c.is_verified, c.is_primary, c.used_for_auth],
    );
  },

  /** Makes every channel of the user of that type non-primary (before another becomes primary). */
  async demotePrimary(db: Queryable, userId: string, type: string): Promise<void> {
    await db.query(`UPDATE contact_channels SET is_primary = false WHERE user_id = $1 AND type = $2 AND is_primary`, [userId, type]);
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db.query(`DELETE FROM contact_channels WHERE id = $1`, [id]);
  },
};
