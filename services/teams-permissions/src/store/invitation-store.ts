import type { Queryable } from "@vestibule/shared/db";

export interface InvitationRow {
  readonly id: string;
  readonly project_id: string;
  readonly team_id: string;
  readonly recipient_email: string;
  readonly created_at: Date;
  readonly expires_at: Date;
  readonly used_at: Date | null;
  readonly attempts: number;
}

const COLUMNS = "id, project_id, team_id, recipient_email, created_at, expires_at, used_at, attempts";

/** The only SQL about team invitations. */
export const invitationStore = {
  async insert(
    db: Queryable,
    i: { id: string; projectId: string; teamId: string; email: string; codeHash: string; tailHash: string; invitedBy: string | null; lifetimeMs: number },
  ): Promise<InvitationRow> {
    const { rows } = await db.query<InvitationRow>(
      `INSERT INTO team_invitations (id, project_id, team_id, recipient_email, code_hash, tail_hash, invited_by_user_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + make_interval(secs => $8)) RETURNING ${COLUMNS}`,
      [i.id, i.projectId, i.teamId, i.email, i.codeHash, i.tailHash, i.invitedBy, i.lifetimeMs / 1000],
    );
    return rows[0]!;
  },

  /** Pending invitations of a team (not used, not expired), oldest first. */
  async listPending(db: Queryable, projectId: string, teamId: string): Promise<InvitationRow[]> {
    const { rows } = await db.query<InvitationRow>(
      `SELECT ${COLUMNS} FROM team_invitations WHERE project_id = $1 AND team_id = $2 AND used_at IS NULL AND expires_at > now()
       ORDER BY created_at, id`,
      [projectId, teamId],
    );
    return rows;
  },

  /** Pending invitations to any of `emails` (lower-cased), oldest first, with their team's display name. */
  async listPendingFor(db: Queryable, projectId: string, emails: readonly string[]): Promise<Array<InvitationRow & { team_display_name: string }>> {
    if (emails.length === 0) return [];
    const { rows } = await db.query<InvitationRow & { team_display_name: string }>(
      `SELECT ${COLUMNS.split(", ").map((c) => `i.${c}`).join(", ")}, t.display_name AS team_display_name
         FROM team_invitations i JOIN teams t ON t.id = i.team_id
        WHERE i.project_id = $1 AND i.recipient_email = ANY($2::text[]) AND i.used_at IS NULL AND i.expires_at > now()
        ORDER BY i.created_at, i.id`,
      [projectId, emails],
    );
    return rows;
  },

  /** A pending-or-not invitation by id (locked with forUpdate). */
  async byId(db: Queryable, projectId: string, id: string, forUpdate = false): Promise<InvitationRow | undefined> {
    const { rows } = await db.query<InvitationRow>(
      `SELECT ${COLUMNS} FROM team_invitations WHERE id = $1 AND project_id = $2${forUpdate ? " FOR UPDATE" : ""}`,
      [id, projectId],
    );
    return rows[0];
  },

  async delete(db: Queryable, projectId: string, teamId: string, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM team_invitations WHERE id = $1 AND project_id = $2 AND team_id = $3`, [id, projectId, teamId]);
    return rowCount === 1;
  },

  /** Counts one attempt on every invitation code of the project sharing the tail (the code itself included). */
  async countAttempt(db: Queryable, projectId: string, tailHash: string): Promise<void> {
    await db.query(`UPDATE team_invitations SET attempts = attempts + 1 WHERE project_id = $1 AND tail_hash = $2`, [projectId, tailHash]);
  },

  async byHash(db: Queryable, projectId: string, codeHash: string, forUpdate = false): Promise<InvitationRow | undefined> {
    const { rows } = await db.query<InvitationRow>(
      `SELECT ${COLUMNS} FROM team_invitations WHERE code_hash = $1 AND project_id = $2${forUpdate ? " FOR UPDATE" : ""}`,
      [codeHash, projectId],
    );
    return rows[0];
  },

  /** Marks the invitation used unless it already is; false when it was. */
  async markUsed(db: Queryable, id: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE team_invitations SET used_at = clock_timestamp(), used_by_user_id = $2 WHERE id = $1 AND used_at IS NULL`,
      [id, userId],
    );
    return rowCount === 1;
  },

  async deleteExpired(db: Queryable): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM team_invitations WHERE expires_at < now() - interval '1 day'`);
    return rowCount ?? 0;
  },
};
