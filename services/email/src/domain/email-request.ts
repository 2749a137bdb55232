import type { EmailRequested } from "@vestibule/proto/auth/v1/events";

export type EmailStatus = "queued" | "sent" | "failed";
export type DeliveryMode = "development" | "production";

export const NOTIFICATION_CATEGORIES = ["Transactional", "Marketing"] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

/** What the email service records for one requested e-mail. */
export interface NewEmail {
  readonly projectId: string;
  readonly recipients: readonly string[];
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  readonly template: string | null;
  readonly notificationCategory: string;
  readonly userId: string | null;
  readonly status: EmailStatus;
  readonly error: string | null;
  readonly attempts: number;
}

/** Addresses are compared and listed lower-cased and trimmed (the mailbox filter is an exact match on that form). */
export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

const ADDRESS = /^[^\s@]+@[^\s@]+$/;

/**
 * Turns an `auth.email.requested.v1` payload into the message to record.
 *
 * A request that cannot be delivered (no or malformed recipient, no project, no body, unknown category) is recorded
 * as `failed` with the reasons rather than thrown: a throwing handler would be redelivered forever and, on the
 * embedded bus, hold up every later e-mail behind it.
 *
 * A good request is `sent` at once in development, because there the dev mailbox (ListMailboxMessages) IS the
 * delivery; in production it is `queued` for the SMTP sender, which a later issue adds and which will move it to
 * `sent` or `failed` (counting `attempts`).
 */
export function emailFromRequest(req: EmailRequested, opts: { mode: DeliveryMode; envelopeProjectId?: string }): NewEmail {
  const problems: string[] = [];
  const projectId = req.projectId || opts.envelopeProjectId || "";
  if (!projectId) problems.push("no project_id");
  const to = normalizeAddress(req.to);
  if (!to) problems.push("no recipient address");
  else if (!ADDRESS.test(to)) problems.push(`invalid recipient address "${to}"`);
  if (!req.html && !req.text) problems.push("neither html nor text");
  const notificationCategory = req.notificationCategory || "Transactional";
  if (!(NOTIFICATION_CATEGORIES as readonly string[]).includes(notificationCategory)) {
    problems.push(`unknown notification category "${notificationCategory}" (expected ${NOTIFICATION_CATEGORIES.join(" or ")})`);
  }
  const fields = {
    projectId,
    recipients: to ? [to] : [],
    subject: req.subject,
    html: req.html || null,
    text: req.text || null,
    template: req.template || null,
    notificationCategory,
    userId: req.userId || null,
  };
  if (problems.length > 0) return { ...fields, status: "failed", error: `Cannot send this e-mail: ${problems.join("; ")}.`, attempts: 0 };
  if (opts.mode === "development") return { ...fields, status: "sent", error: null, attempts: 1 };
  return { ...fields, status: "queued", error: null, attempts: 0 };
}
