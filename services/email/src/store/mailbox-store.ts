import type { Queryable } from "@vestibule/shared/db";

export interface MailboxRow {
  readonly id: string;
  readonly email_id: string | null;
  readonly received_at: Date;
  readonly recipients: string[];
  readonly from_header: string;
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  // From the e-mail record, when the message has one.
  readonly project_id: string | null;
  readonly template: string | null;
  readonly status: string | null;
  readonly error: string | null;
  readonly user_id: string | null;
}

/** The only SQL about the dev mailbox. */
export const mailboxStore = {
  async insert(
    db: Queryable,
    m: { id: string; emailId: string | null; envelopeFrom: string; recipients: string[]; fromHeader: string; subject: string; html: string | null; text: string | null; size: number },
  ): Promise<void> {
    await db.query(
      `INSERT INTO dev_mailbox_messages (id, email_id, envelope_from, recipients, from_header, subject, html, text, size)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [m.id, m.emailId, m.envelopeFrom, m.recipients, m.fromHeader, m.subject, m.html, m.text, m.size],
    );
  },

  /** Newest first; `to` is a normalized address. */
  async list(db: Queryable, f: { projectId?: string; to?: string; limit: number }): Promise<MailboxRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (f.projectId !== undefined) {
      params.push(f.projectId);
      where.push(`e.project_id = $${params.length}`);
    }
    if (f.to !== undefined) {
      params.push([f.to]);
      where.push(`m.recipients @> $${params.length}::text[]`);
    }
    params.push(f.limit);
    const { rows } = await db.query<MailboxRow>(
      `SELECT m.id, m.email_id, m.received_at, m.recipients, m.from_header, m.subject, m.html, m.text,
              e.project_id, e.template, e.status, e.error, e.user_id
       FROM dev_mailbox_messages m LEFT JOIN emails e ON e.id = m.email_id
       ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY m.received_at DESC, m.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows;
  },
};
