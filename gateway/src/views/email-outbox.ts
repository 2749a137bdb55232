import type { SentEmail } from "@vestibule/proto/email/v1/email_service";

/**
 * An e-mail as the current SDK's outbox reads it (`GET /emails/outbox[/{id}]`, stack-shared's emailOutboxReadSchema).
 * Vestibule renders an e-mail when it is requested, so every e-mail is past rendering; its TSX source and variables
 * are not kept (`tsx_source` "", `variables` {}), and its bodies are not shown (`html`/`text` null: they carry codes
 * and are dropped once delivered). Statuses: paused, scheduled, queued, sent, server-error (failed for good), skipped
 * (cancelled by an admin).
 */
export function outboxEmailView(e: SentEmail): Record<string, unknown> {
  const created = Number(e.createdAtMillis);
  const scheduled = Number(e.scheduledAtMillis) || created;
  const status = statusOf(e);
  const base: Record<string, unknown> = {
    id: e.id,
    created_at_millis: created,
    updated_at_millis: Number(e.updatedAtMillis) || created,
    tsx_source: "",
    theme_id: null,
    to: e.userId ? { type: "user-primary-email", user_id: e.userId } : { type: "custom-emails", emails: e.to },
    variables: {},
    skip_deliverability_check: false,
    scheduled_at_millis: scheduled,
    created_with: "programmatic-call",
    email_draft_id: null,
    email_programmatic_call_template_id: null,
    send_retries: Math.max(0, e.attempts - 1),
    next_send_retry_at_millis: e.status === "queued" && e.attempts > 0 && e.nextAttemptAtMillis ? Number(e.nextAttemptAtMillis) : null,
    send_attempt_errors: e.error ? [{ attempt_number: e.attempts, timestamp: new Date(Number(e.updatedAtMillis) || created).toISOString(), external_message: e.error, external_details: {}, internal_message: e.error, internal_details: {} }] : null,
    status,
    simple_status: SIMPLE[status],
    is_paused: status === "paused",
    has_rendered: false,
    has_delivered: false,
  };
  if (status === "paused") return base;
  const rendered = {
    started_rendering_at_millis: created,
    rendered_at_millis: created,
    subject: e.subject,
    html: null,
    text: null,
    is_transactional: e.notificationCategory !== "Marketing",
    is_high_priority: false,
    notification_category_id: null,
  };
  if (status === "skipped") {
    return { ...base, ...rendered, has_rendered: true, skipped_at_millis: Number(e.updatedAtMillis) || created, skipped_reason: "MANUALLY_CANCELLED", skipped_details: {} };
  }
  if (status === "scheduled" || status === "queued") return { ...base, ...rendered, has_rendered: true };
  const startedSending = { started_sending_at_millis: Math.max(scheduled, created) };
  if (status === "server-error") {
    return { ...base, ...rendered, ...startedSending, has_rendered: true, error_at_millis: Number(e.updatedAtMillis) || created, server_error: e.error };
  }
  return { ...base, ...rendered, ...startedSending, has_rendered: true, delivered_at_millis: Number(e.sentAtMillis), has_delivered: true, can_have_delivery_info: false };
}

const SIMPLE: Record<string, string> = {
  paused: "in-progress",
  scheduled: "in-progress",
  queued: "in-progress",
  sent: "ok",
  skipped: "ok",
  "server-error": "error",
};

function statusOf(e: SentEmail): string {
  switch (e.status) {
    case "sent":
      return "sent";
    case "failed":
      return "server-error";
    case "cancelled":
      return "skipped";
    default:
      if (e.paused) return "paused";
      return Number(e.scheduledAtMillis) > Date.now() ? "scheduled" : "queued";
  }
}
