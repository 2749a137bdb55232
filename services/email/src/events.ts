import { defineEvent } from "@vestibule/shared/events";
import { EmailRequestedSchema } from "@vestibule/proto/auth/v1/events";

/** Events the email service consumes (it publishes none yet). */
export const ConsumedEvents = {
  /** The auth service wants an e-mail sent (verification, password reset, magic link, ...). Stream VESTIBULE_AUTH. */
  emailRequested: defineEvent("auth.email.requested.v1", EmailRequestedSchema),
  /**
   * The teams-permissions service wants an e-mail sent (team invitations). Its payload is wire-compatible with
   * auth's EmailRequested (fields 1-8; its field 9, the template variables, is not read yet). Stream
   * VESTIBULE_TEAMS_PERMISSIONS.
   */
  teamsEmailRequested: defineEvent("teams_permissions.email.requested.v1", EmailRequestedSchema),
} as const;

/** Durable consumer names: unique per (service, purpose) and never renamed (a new name replays the stream). */
export const CONSUMERS = {
  emailRequested: "email-auth-email-requested",
  teamsEmailRequested: "email-teams-permissions-email-requested",
} as const;
