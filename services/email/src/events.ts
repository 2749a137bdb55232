import { defineEvent, type EventDefinition } from "@vestibule/shared/events";
import { EmailRequestedSchema } from "@vestibule/proto/email/v1/email_requested";
import { ProjectDeletedSchema, UserDeletedSchema } from "@vestibule/proto/identity/v1/events";

/** A producer of e-mail requests: its event (all share EmailRequested's wire shape) and our durable consumer name. */
export interface EmailRequestSource {
  readonly event: EventDefinition<typeof EmailRequestedSchema>;
  readonly consumer: string;
}

/**
 * Every producer whose e-mail requests this service renders and delivers. Supporting another one is one line here:
 * its `<service>.email.requested.v1` subject, decoded with the same wire shape (vestibule.email.v1.EmailRequested field
 * names and numbers), and a new durable consumer name.
 */
export const EMAIL_REQUEST_SOURCES: readonly EmailRequestSource[] = [
  { event: defineEvent("auth.email.requested.v1", EmailRequestedSchema), consumer: "email-auth-email-requested" },
  { event: defineEvent("teams_permissions.email.requested.v1", EmailRequestedSchema), consumer: "email-teams-permissions-email-requested" },
];

/** The fields producers seal into EmailRequested.sealed_content: one spec, shared with them. */
export { SEALED_EMAIL_FIELDS } from "@vestibule/shared/emails";

/** Other events the email service consumes (it publishes none yet). */
export const ConsumedEvents = {
  /** The auth service wants an e-mail sent (verification, password reset, magic link). Stream of the auth producer. */
  emailRequested: EMAIL_REQUEST_SOURCES[0]!.event,
  /** A user is gone: their notification preferences and unsubscribe links go too. */
  userDeleted: defineEvent("identity.user.deleted.v1", UserDeletedSchema),
  /** A project is gone: its themes, templates, drafts and preferences go too (its e-mail log stays). */
  projectDeleted: defineEvent("identity.project.deleted.v1", ProjectDeletedSchema),
} as const;

/** Durable consumer names: unique per (service, purpose) and never renamed (a new name replays the stream). */
export const CONSUMERS = {
  emailRequested: EMAIL_REQUEST_SOURCES[0]!.consumer,
  userDeleted: "email-identity-user-deleted",
  projectDeleted: "email-identity-project-deleted",
} as const;
