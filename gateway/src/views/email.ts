import type { ThemeSelection } from "@vestibule/proto/email/v1/email";
import type { SentEmail } from "@vestibule/proto/email/v1/email_service";
import type { NotificationPreference } from "@vestibule/proto/email/v1/notification_preference_service";
import { create } from "@bufbuild/protobuf";
import { ThemeSelectionSchema } from "@vestibule/proto/email/v1/email";
import { knownError } from "@vestibule/shared/errors";
import type { FastifyRequest } from "fastify";
import { isUuid } from "../validation/index.ts";

/**
 * Wire shapes of the e-mail endpoints (contract endpoints.md sections 8 and 12) and the `theme_id` convention:
 * a theme's UUID, `false` for no theme, `null` (or absent in a response) for the project's selected theme.
 */
export type ThemeIdInput = string | boolean | null;

/** `theme_id` of a response: the UUID, false, or undefined (the key is left out) for the project's theme. */
export function themeIdView(theme: ThemeSelection | undefined): string | false | undefined {
  const s = theme?.selection;
  if (s?.case === "themeId") return s.value;
  if (s?.case === "noTheme" && s.value) return false;
  return undefined;
}

/** A `SCHEMA_ERROR` in the validator's wording for a rule the JSON schema cannot say. */
export function schemaError(req: FastifyRequest, line: string): never {
  throw knownError("SCHEMA_ERROR", { message: `Request validation failed on ${req.method} ${req.url.split("?")[0]}:\n  - ${line}` });
}

/** The request's `theme_id` (uuid | false | null) as a selection; undefined (the project's theme) for null. */
export function themeSelection(req: FastifyRequest, value: ThemeIdInput | undefined, field = "body.theme_id"): ThemeSelection | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === false) return create(ThemeSelectionSchema, { selection: { case: "noTheme", value: true } });
  if (typeof value === "string" && isUuid(value)) return create(ThemeSelectionSchema, { selection: { case: "themeId", value } });
  schemaError(req, `${field} must be a UUID, false or null`);
}

export function sentEmailView(e: SentEmail): Record<string, unknown> {
  const sc = e.senderConfig;
  const senderConfig: Record<string, unknown> = { type: sc?.type || "shared" };
  if (sc?.type === "standard") {
    Object.assign(senderConfig, { host: sc.host, port: sc.port, username: sc.username, sender_name: sc.senderName, sender_email: sc.senderEmail });
  }
  return {
    id: e.id,
    subject: e.subject,
    // When it was sent; for an e-mail not (yet) sent, when it was requested (see `status`).
    sent_at_millis: Number(e.sentAtMillis || e.createdAtMillis),
    to: e.to,
    sender_config: senderConfig,
    ...(e.error ? { error: e.error } : {}),
    // Vestibule additions: the delivery state.
    status: e.status,
    attempts: e.attempts,
    created_at_millis: Number(e.createdAtMillis),
  };
}

export function notificationPreferenceView(p: NotificationPreference): Record<string, unknown> {
  return {
    notification_category_id: p.notificationCategoryId,
    notification_category_name: p.notificationCategoryName,
    enabled: p.enabled,
    can_disable: p.canDisable,
  };
}
