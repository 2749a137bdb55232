import type { Queryable } from "@vestibule/shared/db";
import type { EmailStatus, NewEmail } from "../domain/email-request.ts";

export interface SenderConfigJson {
  readonly type: "shared" | "standard";
  readonly host?: string;
  readonly port?: number;
  readonly username?: string;
  readonly sender_name?: string;
  readonly sender_email?: string;
}

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
  readonly next_attempt_at: Date;
  readonly sender_config: SenderConfigJson | null;
  readonly scheduled_at: Date | null;
  readonly paused: boolean;
  readonly updated_at: Date;
}

/** A row claimed for delivery, with the lease that must still be held to record the outcome. */
export interface ClaimedEmail extends EmailRow {
  readonly lease_id: string;
}

const COLUMNS =
  "id, event_id, project_id, recipients, subject, html, text, template, notification_category, user_id, status, error, attempts, created_at, sent_at, " +
  "next_attempt_at, sender_config, scheduled_at, paused, updated_at";

export interface EmailFilter {
  readonly projectId?: string;
  /** A normalized (lower-cased) address. */
  readonly to?: string;
  readonly limit: number;
}

const DUE = `status = 'queued' AND NOT paused AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())`;

/** The outbox statuses and simple statuses as conditions on a row (statuses Vestibule never has match nothing). */
export const OUTBOX_CONDITIONS: Readonly<Record<string, string>> = {
  paused: "status = 'queued' AND paused",
  scheduled: "status = 'queued' AND NOT paused AND scheduled_at > now()",
  queued: "status = 'queued' AND NOT paused AND (scheduled_at IS NULL OR scheduled_at <= now())",
  sent: "status = 'sent'",
  "server-error": "status = 'failed'",
  skipped: "status = 'cancelled'",
  "in-progress": "status = 'queued'",
  ok: "status IN ('sent', 'cancelled')",
  error: "status = 'failed'",
};

/** The only SQL about e-mails and their delivery queue. */
export const emailStore = {
  /**
   * Inserts the message; undefined when a message for `eventId` already exists. Queued rows wake the senders. A
   * `scheduledAt` row is due only then (it waits in the queue like a retry, across restarts).
   */
  async insert(db: Queryable, e: NewEmail & { id: string; eventId: string | null; scheduledAt?: Date }): Promise<EmailRow | undefined> {
    const { rows } = await db.query<EmailRow>(
      `INSERT INTO emails (id, event_id, project_id, recipients, subject, html, text, template, notification_category, user_id,
         status, error, attempts, scheduled_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0, $13, COALESCE($13, now()))
       ON CONFLICT (event_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [e.id, e.eventId, e.projectId, e.recipients, e.subject, e.html, e.text, e.template, e.notificationCategory, e.userId, e.status, e.error, e.scheduledAt ?? null],
    );
    if (rows[0]?.status === "queued") await db.query(`SELECT pg_notify('email_queue', '')`);
    return rows[0];
  },

  /**
   * Claims due e-mails for delivery: at most `perProject` of each project (oldest due first across projects, so one
   * project's flood or slow server never holds the others back), none of the `busyProjects`, at most `limit` in all.
   * Rows another replica is claiming are skipped (SKIP LOCKED); the claim counts an attempt and leases the row.
   */
  async claimDue(
    db: Queryable,
    opts: { limit: number; perProject: number; busyProjects: readonly string[]; leaseId: string; leaseSeconds: number },
  ): Promise<ClaimedEmail[]> {
    const { rows } = await db.query<ClaimedEmail>(
      `WITH due_projects AS (
         SELECT project_id, min(next_attempt_at) AS first_due FROM emails
         WHERE ${DUE} AND NOT (project_id = ANY($1::text[]))
         GROUP BY project_id ORDER BY first_due LIMIT $2
       ), picked AS (
         SELECT e.id FROM due_projects p
         CROSS JOIN LATERAL (
           SELECT id FROM emails
           WHERE project_id = p.project_id AND ${DUE}
           ORDER BY next_attempt_at LIMIT $3
           FOR UPDATE SKIP LOCKED
         ) e
         LIMIT $2
       )
       UPDATE emails SET lease_id = $4, lease_until = now() + make_interval(secs => $5), attempts = attempts + 1, last_attempt_at = now()
       WHERE id IN (SELECT id FROM picked)
       RETURNING ${COLUMNS}, lease_id`,
      [opts.busyProjects, opts.limit, opts.perProject, opts.leaseId, opts.leaseSeconds],
    );
    return rows;
  },

  /** Records a delivery (and drops the body); false when the lease was lost (another replica took the row over). */
  async markSent(db: Queryable, id: string, leaseId: string, senderConfig: SenderConfigJson): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE emails SET status = 'sent', sent_at = now(), error = NULL, lease_id = NULL, lease_until = NULL, sender_config = $3,
         html = NULL, text = NULL
       WHERE id = $1 AND lease_id = $2 AND status = 'queued'`,
      [id, leaseId, senderConfig],
    );
    return rowCount === 1;
  },

  /** Keeps the row queued for another attempt after `delayMs`, with the error of this one. */
  async markRetry(db: Queryable, id: string, leaseId: string, error: string, delayMs: number, senderConfig: SenderConfigJson | null): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE emails SET error = $3, next_attempt_at = now() + make_interval(secs => $4), lease_id = NULL, lease_until = NULL,
         sender_config = COALESCE($5, sender_config)
       WHERE id = $1 AND lease_id = $2 AND status = 'queued'`,
      [id, leaseId, error, delayMs / 1000, senderConfig],
    );
    return rowCount === 1;
  },

  async markFailed(db: Queryable, id: string, leaseId: string, error: string, senderConfig: SenderConfigJson | null): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE emails SET status = 'failed', error = $3, lease_id = NULL, lease_until = NULL, sender_config = COALESCE($4, sender_config),
         html = NULL, text = NULL
       WHERE id = $1 AND lease_id = $2 AND status = 'queued'`,
      [id, leaseId, error, senderConfig],
    );
    return rowCount === 1;
  },

  /** When the next queued e-mail falls due (for the sender's sleep), or undefined when none is queued. */
  async nextDue(db: Queryable): Promise<Date | undefined> {
    const { rows } = await db.query<{ at: Date | null }>(`SELECT min(next_attempt_at) AS at FROM emails WHERE status = 'queued' AND NOT paused`);
    return rows[0]?.at ?? undefined;
  },

  async get(db: Queryable, id: string): Promise<EmailRow | undefined> {
    const { rows } = await db.query<EmailRow>(`SELECT ${COLUMNS} FROM emails WHERE id = $1`, [id]);
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

  /** One e-mail of a project. */
  async getInProject(db: Queryable, projectId: string, id: string, forUpdate = false): Promise<EmailRow | undefined> {
    const { rows } = await db.query<EmailRow>(`SELECT ${COLUMNS} FROM emails WHERE project_id = $1 AND id = $2${forUpdate ? " FOR UPDATE" : ""}`, [
      projectId,
      id,
    ]);
    return rows[0];
  },

  /**
   * A project's e-mails, newest first, keyset-paged after (created_at, id) of the previous page's last row, optionally
   * only those matching `where` (a condition from OUTBOX_CONDITIONS, never user text).
   */
  async page(
    db: Queryable,
    projectId: string,
    limit: number,
    after: { createdAt: Date; id: string } | undefined,
    where = "TRUE",
  ): Promise<EmailRow[]> {
    const { rows } = await db.query<EmailRow>(
      `SELECT ${COLUMNS} FROM emails WHERE project_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid)) AND (${where})
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [projectId, after?.createdAt ?? null, after?.id ?? null, limit],
    );
    return rows;
  },

  /**
   * Outbox edits of a queued e-mail (not leased by a sender right now): pause/resume, reschedule (due then), cancel
   * (bodies dropped). Returns the row after the edit, undefined when it is no longer editable.
   */
  async editQueued(
    db: Queryable,
    projectId: string,
    id: string,
    edit: { paused?: boolean; scheduledAt?: Date; cancel?: boolean },
  ): Promise<EmailRow | undefined> {
    const { rows } = await db.query<EmailRow>(
      `UPDATE emails SET
         paused = COALESCE($3, paused),
         scheduled_at = COALESCE($4, scheduled_at),
         next_attempt_at = COALESCE($4, next_attempt_at),
         status = CASE WHEN $5 THEN 'cancelled' ELSE status END,
         html = CASE WHEN $5 THEN NULL ELSE html END,
         text = CASE WHEN $5 THEN NULL ELSE text END,
         updated_at = now()
       WHERE project_id = $1 AND id = $2 AND status = 'queued' AND (lease_until IS NULL OR lease_until < now())
       RETURNING ${COLUMNS}`,
      [projectId, id, edit.paused ?? null, edit.scheduledAt ?? null, edit.cancel === true],
    );
    if (rows[0]?.status === "queued" && !rows[0].paused) await db.query(`SELECT pg_notify('email_queue', '')`);
    return rows[0];
  },

  /** E-mails of a project delivered since each of the given times (`GET /emails/delivery-info`). */
  async sentSince(db: Queryable, projectId: string, since: readonly Date[]): Promise<number[]> {
    const { rows } = await db.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM emails WHERE project_id = $1 AND status = 'sent' AND sent_at >= t) AS n
       FROM unnest($2::timestamptz[]) WITH ORDINALITY AS s(t, i) ORDER BY i`,
      [projectId, since],
    );
    return rows.map((r) => Number(r.n));
  },

  /** The project's capacity boost: its expiry when one is active. */
  async activeBoost(db: Queryable, projectId: string): Promise<Date | undefined> {
    const { rows } = await db.query<{ expires_at: Date }>(`SELECT expires_at FROM email_capacity_boosts WHERE project_id = $1 AND expires_at > now()`, [projectId]);
    return rows[0]?.expires_at;
  },

  /** Starts a boost of `seconds` unless one is active; returns the new expiry, or undefined when one was active. */
  async startBoost(db: Queryable, projectId: string, seconds: number): Promise<Date | undefined> {
    const { rows } = await db.query<{ expires_at: Date }>(
      `INSERT INTO email_capacity_boosts (project_id, expires_at) VALUES ($1, now() + make_interval(secs => $2))
       ON CONFLICT (project_id) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE email_capacity_boosts.expires_at <= now()
       RETURNING expires_at`,
      [projectId, seconds],
    );
    return rows[0]?.expires_at;
  },
};
