import { normalizeEmail } from "@vestibule/shared/emails";
import { NOTIFICATION_CATEGORIES, categoryByName } from "./categories.ts";

/** `cancelled`: an admin cancelled it in the outbox before delivery. */
export type EmailStatus = "queued" | "sent" | "failed" | "cancelled";

/** The system e-mails; producers name one of them in `template` together with its variables. */
export const SYSTEM_TEMPLATE_TYPES = ["email_verification", "password_reset", "magic_link", "team_invitation", "sign_in_invitation"] as const;
export type SystemTemplateType = (typeof SYSTEM_TEMPLATE_TYPES)[number];

export function isSystemTemplateType(value: string): value is SystemTemplateType {
  return (SYSTEM_TEMPLATE_TYPES as readonly string[]).includes(value);
}

/** An e-mail a producer asks for (the fields of <service>.email.requested.v1 and of RequestEmail). */
export interface EmailRequest {
  readonly projectId: string;
  readonly to: string;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly notificationCategory: string;
  readonly template: string;
  readonly userId: string;
  readonly variablesJson: string;
}

/** What the email service records for one e-mail. */
export interface NewEmail {
  readonly projectId: string;
  readonly recipients: readonly string[];
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  readonly template: string | null;
  readonly notificationCategory: string;
  readonly userId: string | null;
  readonly status: "queued" | "failed";
  readonly error: string | null;
}

/** Addresses are compared and listed lower-cased and trimmed (the mailbox filter is an exact match on that form). */
export const normalizeAddress: (address: string) => string = normalizeEmail;

const ADDRESS = /^[^\s@]+@[^\s@]+$/;

/** Checked facts of a request, before rendering. */
export interface CheckedRequest {
  readonly projectId: string;
  readonly to: string;
  readonly notificationCategory: string;
  readonly variables: Record<string, unknown>;
  /** Why it cannot be sent; empty when it can. */
  readonly problems: string[];
}

/**
 * Checks a request. A request that cannot be delivered (no or malformed recipient, no project, unknown category, bad
 * variables) is recorded as `failed` with the reasons rather than thrown: a throwing event handler would be
 * redelivered forever and, on the embedded bus, hold up every later e-mail behind it.
 */
export function checkRequest(req: EmailRequest, envelopeProjectId?: string): CheckedRequest {
  const problems: string[] = [];
  const projectId = req.projectId || envelopeProjectId || "";
  if (!projectId) problems.push("no project_id");
  const to = normalizeAddress(req.to);
  if (!to) problems.push("no recipient address");
  else if (!ADDRESS.test(to)) problems.push(`invalid recipient address "${to}"`);
  const notificationCategory = req.notificationCategory || "Transactional";
  if (!categoryByName(notificationCategory)) {
    problems.push(`unknown notification category "${notificationCategory}" (expected ${NOTIFICATION_CATEGORIES.map((c) => c.name).join(" or ")})`);
  }
  let variables: Record<string, unknown> = {};
  if (req.variablesJson) {
    try {
      const parsed: unknown = JSON.parse(req.variablesJson);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) variables = parsed as Record<string, unknown>;
      else problems.push("variables_json is not a JSON object");
    } catch {
      problems.push("variables_json is not valid JSON");
    }
  }
  return { projectId, to, notificationCategory, variables, problems };
}

/** The record of a checked request with its final body (rendered, or the producer's fallback). */
export function newEmail(
  req: EmailRequest,
  checked: CheckedRequest,
  body: { subject: string; html: string | null; text: string | null },
  extraProblems: readonly string[] = [],
): NewEmail {
  const problems = [...checked.problems, ...extraProblems];
  if (!body.html && !body.text && extraProblems.length === 0) problems.push("neither html nor text");
  return {
    projectId: checked.projectId,
    recipients: checked.to ? [checked.to] : [],
    subject: body.subject,
    html: body.html || null,
    text: body.text || null,
    template: req.template || null,
    notificationCategory: checked.notificationCategory,
    userId: req.userId || null,
    status: problems.length > 0 ? "failed" : "queued",
    error: problems.length > 0 ? `Cannot send this e-mail: ${problems.join("; ")}.` : null,
  };
}
