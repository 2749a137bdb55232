import { createHash } from "node:crypto";
import type { Queryable } from "@vestibule/shared/db";

/** Rows of the webhook tables (migrations/0004_webhooks.sql) and the SQL on them. */

export interface EndpointRow {
  id: string;
  project_id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  endpoint_id: string;
  project_id: string;
  event_id: string;
  event_type: string;
  payload: unknown;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  trigger: string;
  /** Re-sends and replays so far; an attempt's outcome is written only if none came while it was in flight. */
  requeues: number;
  created_at: Date;
}

export interface AttemptRow {
  id: string;
  message_id: string;
  endpoint_id: string;
  project_id: string;
  event_type: string;
  attempted_at: Date;
  response_status: number;
  succeeded: boolean;
  latency_ms: number;
  response_excerpt: string;
  error: string;
  trigger: string;
}

/** The webhook-id of an event's message to an endpoint: the same for every delivery of that event to it. */
export function webhookMessageId(eventId: string, endpointId: string): string {
  return `msg_${createHash("sha256").update(`${eventId}\n${endpointId}`).digest("base64url").slice(0, 27)}`;
}

/** Cursor of time-ordered listings: "<millis>_<id>". */
function parseCursor(cursor: string): { at: Date; id: string } | undefined {
  const m = /^(\d{1,15})_(.{1,80})$/.exec(cursor);
  return m ? { at: new Date(Number(m[1])), id: m[2]! } : undefined;
}

export const webhookStore = {
  async insertEndpoint(
    db: Queryable,
    e: { id: string; projectId: string; url: string; description: string; eventTypes: readonly string[]; enabled: boolean; secretSealed: string },
  ): Promise<EndpointRow> {
    const { rows } = await db.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, project_id, url, description, event_types, enabled, secret_sealed)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [e.id, e.projectId, e.url, e.description, e.eventTypes, e.enabled, e.secretSealed],
    );
    return rows[0]!;
  },

  async listEndpoints(db: Queryable, projectId: string): Promise<EndpointRow[]> {
    const { rows } = await db.query<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
    return rows;
  },

  async getEndpoint(db: Queryable, projectId: string, id: string): Promise<EndpointRow | undefined> {
    const { rows } = await db.query<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rows[0];
  },

  async endpointById(db: Queryable, id: string): Promise<EndpointRow | undefined> {
    const { rows } = await db.query<EndpointRow>(`SELECT * FROM webhook_endpoints WHERE id = $1`, [id]);
    return rows[0];
  },

  async updateEndpoint(
    db: Queryable,
    projectId: string,
    id: string,
    p: { url?: string; description?: string; eventTypes?: readonly string[]; enabled?: boolean },
  ): Promise<EndpointRow | undefined> {
    const { rows } = await db.query<EndpointRow>(
      `UPDATE webhook_endpoints SET
         url = COALESCE($3, url), description = COALESCE($4, description), event_types = COALESCE($5, event_types),
         enabled = COALESCE($6, enabled),
         disabled_reason = CASE WHEN $6::boolean IS NULL THEN disabled_reason ELSE '' END,
         failing_since = CASE WHEN $6::boolean THEN NULL ELSE failing_since END,
         updated_at = now()
       WHERE project_id = $1 AND id = $2 RETURNING *`,
      [projectId, id, p.url ?? null, p.description ?? null, p.eventTypes ?? null, p.enabled ?? null],
    );
    return rows[0];
  },

  async deleteEndpoint(db: Queryable, projectId: string, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM webhook_endpoints WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rowCount === 1;
  },

  async rotateSecret(db: Queryable, projectId: string, id: string, sealed: string, previousSealed: string, overlapMs: number): Promise<EndpointRow | undefined> {
    const { rows } = await db.query<EndpointRow>(
      `UPDATE webhook_endpoints SET secret_sealed = $3, previous_secret_sealed = $4,
         previous_secret_expires_at = now() + $5 * interval '1 millisecond', updated_at = now()
       WHERE project_id = $1 AND id = $2 RETURNING *`,
      [projectId, id, sealed, previousSealed, overlapMs],
    );
    return rows[0];
  },

  /**
   * One message per enabled endpoint of the project whose filter takes `eventType` (empty filter = all, `test.event`
   * only through sendTest). A message that exists already (a redelivered event) is left alone. Wakes the deliverers.
   */
  /** Whether the project has an enabled endpoint (events of a project with none need no transaction). */
  async hasEnabledEndpoint(db: Queryable, projectId: string): Promise<boolean> {
    const { rows } = await db.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE project_id = $1 AND enabled) AS found`, [projectId]);
    return rows[0]?.found ?? false;
  },

  async enqueueForEvent(db: Queryable, m: { projectId: string; eventId: string; eventType: string; payload: unknown }): Promise<number> {
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM webhook_endpoints WHERE project_id = $1 AND enabled AND (cardinality(event_types) = 0 OR $2 = ANY(event_types))`,
      [m.projectId, m.eventType],
    );
    let queued = 0;
    for (const { id } of rows) queued += await this.insertMessage(db, { ...m, endpointId: id });
    if (queued > 0) await db.query(`SELECT pg_notify('webhook_queue', '')`);
    return queued;
  },

  async insertMessage(db: Queryable, m: { projectId: string; endpointId: string; eventId: string; eventType: string; payload: unknown }): Promise<number> {
    const { rowCount } = await db.query(
      `INSERT INTO webhook_messages (id, endpoint_id, project_id, event_id, event_type, payload) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO NOTHING`,
      [webhookMessageId(m.eventId, m.endpointId), m.endpointId, m.projectId, m.eventId, m.eventType, JSON.stringify(m.payload)],
    );
    return rowCount ?? 0;
  },

  /**
   * Claims due messages of enabled endpoints, at most `perEndpoint` per endpoint and none of `busyEndpoints` (at
   * their limit in this replica); rows another replica holds are skipped (FOR UPDATE SKIP LOCKED). A claimed message
   * is due again only when the lease runs out: a deliverer that dies mid-request loses nothing.
   */
  async claimDue(db: Queryable, o: { limit: number; perEndpoint: number; busyEndpoints: readonly string[]; leaseMs: number }): Promise<MessageRow[]> {
    const { rows } = await db.query<MessageRow>(
      `WITH candidates AS (
         SELECT id FROM (
           SELECT m.id, m.next_attempt_at, row_number() OVER (PARTITION BY m.endpoint_id ORDER BY m.next_attempt_at, m.id) AS n
           FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
           WHERE m.status = 'pending' AND m.next_attempt_at <= now() AND e.enabled AND NOT (m.endpoint_id = ANY($3::uuid[]))
         ) ranked WHERE n <= $2 ORDER BY next_attempt_at LIMIT $1
       ), locked AS (
         SELECT id FROM webhook_messages WHERE id IN (SELECT id FROM candidates) AND status = 'pending' AND next_attempt_at <= now()
         FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_messages m SET attempts = attempts + 1, next_attempt_at = now() + $4 * interval '1 millisecond'
       FROM locked WHERE m.id = locked.id RETURNING m.*`,
      [o.limit, o.perEndpoint, o.busyEndpoints, o.leaseMs],
    );
    return rows;
  },

  async recordAttempt(db: Queryable, a: Omit<AttemptRow, "attempted_at">): Promise<void> {
    await db.query(
      `INSERT INTO webhook_attempts (id, message_id, endpoint_id, project_id, event_type, response_status, succeeded, latency_ms, response_excerpt, error, trigger)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [a.id, a.message_id, a.endpoint_id, a.project_id, a.event_type, a.response_status, a.succeeded, a.latency_ms, a.response_excerpt, a.error, a.trigger],
    );
  },

  /**
   * The outcome of an attempt of `claimed`. When a re-send or replay came while it was in flight, the message stays
   * queued for that one (the endpoint's health is still recorded).
   */
  async markDelivered(db: Queryable, claimed: Pick<MessageRow, "id" | "requeues">, endpointId: string): Promise<void> {
    await db.query(`UPDATE webhook_messages SET status = 'delivered', delivered_at = now(), trigger = 'scheduled' WHERE id = $1 AND requeues = $2`, [
      claimed.id,
      claimed.requeues,
    ]);
    await db.query(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, [endpointId]);
  },

  /** A failed attempt: retried after `retryInMs`, or `failed` when undefined. Returns since when the endpoint fails. */
  async markFailed(db: Queryable, claimed: Pick<MessageRow, "id" | "requeues">, endpointId: string, retryInMs: number | undefined): Promise<Date> {
    if (retryInMs === undefined) {
      await db.query(`UPDATE webhook_messages SET status = 'failed', trigger = 'scheduled' WHERE id = $1 AND requeues = $2`, [claimed.id, claimed.requeues]);
    } else {
      await db.query(
        `UPDATE webhook_messages SET next_attempt_at = now() + $3 * interval '1 millisecond', trigger = 'scheduled' WHERE id = $1 AND requeues = $2`,
        [claimed.id, claimed.requeues, retryInMs],
      );
    }
    const { rows } = await db.query<{ failing_since: Date }>(
      `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()) WHERE id = $1 RETURNING failing_since`,
      [endpointId],
    );
    return rows[0]?.failing_since ?? new Date();
  },

  /** Disables an endpoint that is still enabled; true when this call did it. */
  async disableEndpoint(db: Queryable, endpointId: string, reason: string): Promise<boolean> {
    const { rowCount } = await db.query(`UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = now() WHERE id = $1 AND enabled`, [
      endpointId,
      reason,
    ]);
    return rowCount === 1;
  },

  /** Queues one message again now (whatever its state), same webhook-id. */
  async resend(db: Queryable, projectId: string, messageId: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE webhook_messages SET status = 'pending', next_attempt_at = now(), trigger = 'resend', requeues = requeues + 1 WHERE project_id = $1 AND id = $2`,
      [projectId, messageId],
    );
    if (rowCount === 1) await db.query(`SELECT pg_notify('webhook_queue', '')`);
    return rowCount === 1;
  },

  async replaySince(db: Queryable, projectId: string, endpointId: string, since: Date): Promise<number> {
    const { rowCount } = await db.query(
      `UPDATE webhook_messages SET status = 'pending', next_attempt_at = now(), trigger = 'replay', requeues = requeues + 1
       WHERE project_id = $1 AND endpoint_id = $2 AND created_at >= $3`,
      [projectId, endpointId, since],
    );
    if (rowCount) await db.query(`SELECT pg_notify('webhook_queue', '')`);
    return rowCount ?? 0;
  },

  async listAttempts(
    db: Queryable,
    f: { projectId: string; endpointId?: string; status?: "succeeded" | "failed"; eventType?: string; messageId?: string; limit: number; cursor?: string },
  ): Promise<AttemptRow[]> {
    const c = f.cursor ? parseCursor(f.cursor) : undefined;
    const { rows } = await db.query<AttemptRow>(
      `SELECT * FROM webhook_attempts WHERE project_id = $1
         AND ($2::uuid IS NULL OR endpoint_id = $2) AND ($3::boolean IS NULL OR succeeded = $3)
         AND ($4::text IS NULL OR event_type = $4) AND ($5::text IS NULL OR message_id = $5)
         AND ($6::timestamptz IS NULL OR (attempted_at, id) < ($6, $7::uuid))
       ORDER BY attempted_at DESC, id DESC LIMIT $8`,
      [f.projectId, f.endpointId ?? null, f.status === undefined ? null : f.status === "succeeded", f.eventType ?? null, f.messageId ?? null, c?.at ?? null, c?.id ?? null, f.limit],
    );
    return rows;
  },

  async listMessages(
    db: Queryable,
    f: { projectId: string; endpointId?: string; status?: string; eventType?: string; limit: number; cursor?: string },
  ): Promise<MessageRow[]> {
    const c = f.cursor ? parseCursor(f.cursor) : undefined;
    const { rows } = await db.query<MessageRow>(
      `SELECT * FROM webhook_messages WHERE project_id = $1
         AND ($2::uuid IS NULL OR endpoint_id = $2) AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR event_type = $4)
         AND ($5::timestamptz IS NULL OR (created_at, id) < ($5, $6::text))
       ORDER BY created_at DESC, id DESC LIMIT $7`,
      [f.projectId, f.endpointId ?? null, f.status ?? null, f.eventType ?? null, c?.at ?? null, c?.id ?? null, f.limit],
    );
    return rows;
  },

  /** Attempts and finished messages older than the retention; expired portal tokens and old membership removals. */
  async prune(db: Queryable, retentionDays: number): Promise<{ attempts: number; messages: number }> {
    const a = await db.query(`DELETE FROM webhook_attempts WHERE attempted_at < now() - $1 * interval '1 day'`, [retentionDays]);
    const m = await db.query(`DELETE FROM webhook_messages WHERE status <> 'pending' AND created_at < now() - $1 * interval '1 day'`, [retentionDays]);
    await db.query(`DELETE FROM webhook_portal_tokens WHERE expires_at < now()`);
    await db.query(`DELETE FROM webhook_team_members WHERE removed_at < now() - interval '1 day'`);
    return { attempts: a.rowCount ?? 0, messages: m.rowCount ?? 0 };
  },

  async deleteProject(db: Queryable, projectId: string): Promise<void> {
    await db.query(`DELETE FROM webhook_endpoints WHERE project_id = $1`, [projectId]);
    await db.query(`DELETE FROM webhook_team_members WHERE project_id = $1`, [projectId]);
    await db.query(`DELETE FROM webhook_portal_tokens WHERE project_id = $1`, [projectId]);
  },

  // ---- team memberships (for user.deleted payloads) ----
  async memberAdded(db: Queryable, projectId: string, teamId: string, userId: string): Promise<void> {
    await db.query(
      `INSERT INTO webhook_team_members (project_id, team_id, user_id) VALUES ($1, $2, $3)
       ON CONFLICT (project_id, user_id, team_id) DO UPDATE SET removed_at = NULL`,
      [projectId, teamId, userId],
    );
  },

  async memberRemoved(db: Queryable, projectId: string, teamId: string, userId: string, at: Date): Promise<void> {
    await db.query(
      `INSERT INTO webhook_team_members (project_id, team_id, user_id, removed_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, user_id, team_id) DO UPDATE SET removed_at = LEAST(COALESCE(webhook_team_members.removed_at, $4), $4)`,
      [projectId, teamId, userId, at],
    );
  },

  async teamRemoved(db: Queryable, projectId: string, teamId: string, at: Date): Promise<void> {
    await db.query(`UPDATE webhook_team_members SET removed_at = $3 WHERE project_id = $1 AND team_id = $2 AND removed_at IS NULL`, [projectId, teamId, at]);
  },

  /** Teams the user was in when deleted at `at` (memberships not removed before it); forgets them. */
  async teamsOfDeletedUser(db: Queryable, projectId: string, userId: string, at: Date): Promise<string[]> {
    const { rows } = await db.query<{ team_id: string; removed_at: Date | null }>(
      `DELETE FROM webhook_team_members WHERE project_id = $1 AND user_id = $2 RETURNING team_id, removed_at`,
      [projectId, userId],
    );
    return rows.filter((r) => r.removed_at === null || r.removed_at >= at).map((r) => r.team_id).sort();
  },

  // ---- portal tokens ----
  async insertPortalToken(db: Queryable, tokenHash: string, projectId: string, expiresAt: Date): Promise<void> {
    await db.query(`INSERT INTO webhook_portal_tokens (token_hash, project_id, expires_at) VALUES ($1, $2, $3)`, [tokenHash, projectId, expiresAt]);
  },

  async portalTokenProject(db: Queryable, tokenHash: string): Promise<string | undefined> {
    const { rows } = await db.query<{ project_id: string }>(`SELECT project_id FROM webhook_portal_tokens WHERE token_hash = $1 AND expires_at > now()`, [tokenHash]);
    return rows[0]?.project_id;
  },
};
