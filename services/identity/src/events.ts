import { defineEvent } from "@vestibule/shared/events";
import {
  ApiKeySetCreatedSchema,
  ApiKeySetUpdatedSchema,
  ContactChannelChangedSchema,
  ProjectCreatedSchema,
  ProjectDeletedSchema,
  ProjectUpdatedSchema,
  UserCreatedSchema,
  UserDeletedSchema,
  UserUpdatedSchema,
} from "@vestibule/proto/identity/v1/events";

/** Events the identity service publishes (stream VESTIBULE_IDENTITY, subjects identity.>). */
export const IdentityEvents = {
  projectCreated: defineEvent("identity.project.created.v1", ProjectCreatedSchema),
  projectUpdated: defineEvent("identity.project.updated.v1", ProjectUpdatedSchema),
  projectDeleted: defineEvent("identity.project.deleted.v1", ProjectDeletedSchema),
  apiKeySetCreated: defineEvent("identity.api_key_set.created.v1", ApiKeySetCreatedSchema),
  apiKeySetUpdated: defineEvent("identity.api_key_set.updated.v1", ApiKeySetUpdatedSchema),
  /** A user was created (payload: the user and how they signed up). */
  userCreated: defineEvent("identity.user.created.v1", UserCreatedSchema),
  /** A user as shown changed (payload: the full user after the change, with its new version). */
  userUpdated: defineEvent("identity.user.updated.v1", UserUpdatedSchema),
  /** A user and their contact channels were deleted; other services drop what they hold for the user. */
  userDeleted: defineEvent("identity.user.deleted.v1", UserDeletedSchema),
  /** A contact channel was created, changed or deleted (`deleted`); not sent for channels removed with their user. */
  contactChannelUpdated: defineEvent("identity.contact_channel.updated.v1", ContactChannelChangedSchema),
} as const;
