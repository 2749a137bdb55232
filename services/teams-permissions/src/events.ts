import { defineEvent } from "@vestibule/shared/events";
import {
  MembershipAddedSchema,
  MembershipRemovedSchema,
  PermissionGrantedSchema,
  PermissionRevokedSchema,
  TeamCreatedSchema,
  TeamDeletedSchema,
  TeamUpdatedSchema,
} from "@vestibule/proto/teams_permissions/v1/events";
import { ProjectDeletedSchema, UserCreatedSchema, UserDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { EmailRequestedSchema } from "@vestibule/proto/email/v1/email_requested";

/** Events the teams-permissions service publishes (stream of the `teams_permissions` producer). */
export const TeamsEvents = {
  teamCreated: defineEvent("teams_permissions.team.created.v1", TeamCreatedSchema),
  teamUpdated: defineEvent("teams_permissions.team.updated.v1", TeamUpdatedSchema),
  /** The team's memberships, grants and invitations went with it. */
  teamDeleted: defineEvent("teams_permissions.team.deleted.v1", TeamDeletedSchema),
  membershipAdded: defineEvent("teams_permissions.membership.added.v1", MembershipAddedSchema),
  membershipRemoved: defineEvent("teams_permissions.membership.removed.v1", MembershipRemovedSchema),
  permissionGranted: defineEvent("teams_permissions.permission.granted.v1", PermissionGrantedSchema),
  permissionRevoked: defineEvent("teams_permissions.permission.revoked.v1", PermissionRevokedSchema),
  /** An invitation e-mail; the e-mail service records and delivers it. */
  emailRequested: defineEvent("teams_permissions.email.requested.v1", EmailRequestedSchema),
} as const;

/** Events the service consumes. */
export const ConsumedEvents = {
  userCreated: defineEvent("identity.user.created.v1", UserCreatedSchema),
  userDeleted: defineEvent("identity.user.deleted.v1", UserDeletedSchema),
  projectDeleted: defineEvent("identity.project.deleted.v1", ProjectDeletedSchema),
} as const;

/** Durable consumer names: unique per (service, purpose) and never renamed (a new name replays the stream). */
export const CONSUMERS = {
  userCreated: "teams_permissions-identity-user-created",
  userDeleted: "teams_permissions-identity-user-deleted",
  projectDeleted: "teams_permissions-identity-project-deleted",
} as const;
