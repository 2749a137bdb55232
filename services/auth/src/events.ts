import { defineEvent } from "@vestibule/shared/events";
import { SessionRevokedSchema, SigningKeyRotatedSchema } from "@vestibule/proto/auth/v1/events";
import { UserCreatedSchema, UserDeletedSchema, UserUpdatedSchema } from "@vestibule/proto/identity/v1/events";
import { EmailRequestedSchema } from "@vestibule/proto/email/v1/email_requested";

/** Events the auth service publishes (stream of the `auth` producer, subjects auth.>). */
export const AuthEvents = {
  /** An e-mail to send (verification, password reset); the e-mail service records and delivers it. */
  emailRequested: defineEvent("auth.email.requested.v1", EmailRequestedSchema),
  /** A project's signing key changed: verifiers drop their cached keys of that project. */
  signingKeyRotated: defineEvent("auth.signing_key.rotated.v1", SigningKeyRotatedSchema),
  /** One session (session_id set) or all of a user's sessions (session_id empty) were revoked. */
  sessionRevoked: defineEvent("auth.session.revoked.v1", SessionRevokedSchema),
} as const;

/** Events the auth service consumes. */
export const ConsumedEvents = {
  userCreated: defineEvent("identity.user.created.v1", UserCreatedSchema),
  userUpdated: defineEvent("identity.user.updated.v1", UserUpdatedSchema),
  userDeleted: defineEvent("identity.user.deleted.v1", UserDeletedSchema),
} as const;

/** Durable consumer names: unique per (service, purpose) and never renamed (a new name replays the stream). */
export const CONSUMERS = {
  userCreated: "auth-identity-user-created",
  userUpdated: "auth-identity-user-updated",
  userDeleted: "auth-identity-user-deleted",
} as const;
