import type { Queryable } from "@vestibule/shared/db";
import { statusError } from "@vestibule/shared/errors";

/**
 * The quota of `POST /internal/send-sign-in-invitation` (issue 18): a server key may mail any address, so without one
 * a leaked key (or a buggy loop) could flood an inbox or the project's sender reputation. Counted from the e-mails
 * recorded in the last hour (template `sign_in_invitation`, refused ones not counted), per recipient and per project; over it the caller gets
 * 429 with Retry-After: the seconds until the oldest counted invitation leaves the window.
 */
export const INVITATION_WINDOW_SECONDS = 3600;
export const INVITATIONS_PER_RECIPIENT = 5;
export const INVITATIONS_PER_PROJECT = 1000;

/**
 * Throws the 429 when the project or the recipient (trimmed, lower-case, as stored) has used its quota. Call it in the
 * transaction that records the invitation: it takes a lock per project, so concurrent invitations are counted in turn.
 */
export async function assertInvitationQuota(tx: Queryable, projectId: string, recipient: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('sign_in_invitation:' || $1))`, [projectId]);
  const { rows } = await tx.query<{ project_count: number; project_wait: number | null; recipient_count: number; recipient_wait: number | null }>(
    `SELECT count(*)::int AS project_count,
            ceil(extract(epoch FROM min(created_at) + make_interval(secs => $3) - now()))::int AS project_wait,
            (count(*) FILTER (WHERE recipients @> ARRAY[$2::text]))::int AS recipient_count,
            ceil(extract(epoch FROM min(created_at) FILTER (WHERE recipients @> ARRAY[$2::text]) + make_interval(secs => $3) - now()))::int AS recipient_wait
       FROM emails
      WHERE project_id = $1 AND template = 'sign_in_invitation' AND status <> 'failed' AND created_at > now() - make_interval(secs => $3)`,
    [projectId, recipient, INVITATION_WINDOW_SECONDS],
  );
  const r = rows[0]!;
  const wait = (seconds: number | null) => Math.min(INVITATION_WINDOW_SECONDS, Math.max(1, seconds ?? 1));
  if (r.recipient_count >= INVITATIONS_PER_RECIPIENT) {
    const s = wait(r.recipient_wait);
    throw statusError(429, `Too many sign-in invitations to this address. Please wait ${s} seconds and try again.`, { retryAfterSeconds: s });
  }
  if (r.project_count >= INVITATIONS_PER_PROJECT) {
    const s = wait(r.project_wait);
    throw statusError(429, `Too many sign-in invitations from this project. Please wait ${s} seconds and try again.`, { retryAfterSeconds: s });
  }
}
