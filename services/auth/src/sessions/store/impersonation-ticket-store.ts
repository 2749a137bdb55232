import type { Queryable } from "@vestibule/shared/db";

/** The only SQL about impersonation tickets. */
export const impersonationTicketStore = {
  async insert(db: Queryable, t: { ticketHash: string; projectId: string; userId: string; sessionLifetimeMs: number; expiresAt: Date }): Promise<void> {
    await db.query(`INSERT INTO impersonation_tickets (ticket_hash, project_id, user_id, session_lifetime_ms, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
      t.ticketHash,
      t.projectId,
      t.userId,
      t.sessionLifetimeMs,
      t.expiresAt,
    ]);
  },

  /**
   * Takes a live ticket of the project: deletes it and returns what it grants, in one statement, so of two concurrent
   * exchanges only one gets it. Undefined for unknown, used, expired and other projects' tickets.
   */
  async take(db: Queryable, projectId: string, ticketHash: string): Promise<{ userId: string; sessionLifetimeMs: number } | undefined> {
    const { rows } = await db.query<{ user_id: string; session_lifetime_ms: string }>(
      `DELETE FROM impersonation_tickets WHERE ticket_hash = $1 AND project_id = $2 AND expires_at > now() RETURNING user_id, session_lifetime_ms`,
      [ticketHash, projectId],
    );
    const row = rows[0];
    return row ? { userId: row.user_id, sessionLifetimeMs: Number(row.session_lifetime_ms) } : undefined;
  },

  async deleteExpired(db: Queryable): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM impersonation_tickets WHERE expires_at < now()`);
    return rowCount ?? 0;
  },
};
