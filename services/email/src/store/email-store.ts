import type { Queryable } from "@vestibule/shared/db";
import type { EmailStatus, NewEmail } from "../domain/email-request.ts";

export interface EmailRow {
  readonly id: string;
  readonly event_id: string | null;
  readonly project_id: string;
  readonly recipients: string[];
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  readonly template: string | null;
  readonly notification_category: string;
  readonly user_id: string | null;
  readonly status: EmailStatus;
  readonly error: string | null;
  readonly attempts: number;
  readonly created_at: Date;
  readonly sent_at: Date | null;
}

const COLUMNS =
  "id, event_id, project_id, recipients, subject, html, text, template, notification_category, user_id, status, error, attempts, created_at, sent_at";

export interface EmailFilter {
  readonly projectId?: string;
  /** A normalized (lower-cased) address. */
  readonly to?: string;
  readonly limit: number;
}

/** The only SQL about e-mails. */
export const emailStore = {
  /** Inserts the message; undefined when a message for `eventId` already exists. */
  async insert(db: Queryable, e: NewEmail & { id: string; eventId: string | null }): Promise<EmailRow | undefined> {
    const { rows } = await db.query<EmailRow>(
      `INSERT INTO emails (id, event_id, project_id, recipients, subject, html, text, template, notification_category, user_id,
         status, error, attempts, sent_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $11 = 'sent' THEN now() END)
       ON CONFLICT (event_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        e.id,
        e.eventId,
        e.projectId,
        e.recipients,
        e.subject,
        e.html,
        e.text,
        e.template,
        e.notificationCategory,
        e.userId,
        e.status,
        e.error,
        e.attempts,
      ],
    );
    return rows[0];
  },

  /** Newest first. */
  async list(db: Queryable, f: EmailFilter): Promise<EmailRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (f.projectId !== undefined) {
      params.push(f.projectId);
      where.push(`project_id = $${params.length}`);
    }
    if (f.to !== undefined) {
      params.push([f.to]);
      where.push(`recipients @> $${params.length}::text[]`);
    }
    params.push(f.limit);
    const { rows } = await db.query<EmailRow>(
      `SELECT ${COLUMNS} FROM emails ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows;
  },
};
