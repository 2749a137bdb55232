import { defineEvent } from "@vestibule/shared/events";
import {
  ApiKeySetCreatedSchema,
  ApiKeySetUpdatedSchema,
  ProjectCreatedSchema,
  ProjectDeletedSchema,
  ProjectUpdatedSchema,
} from "@vestibule/proto/identity/v1/events";

/** Events the identity service publishes (stream VESTIBULE_IDENTITY, subjects identity.>). */
export const IdentityEvents = {
  projectCreated: defineEvent("identity.project.created.v1", ProjectCreatedSchema),
  projectUpdated: defineEvent("identity.project.updated.v1", ProjectUpdatedSchema),
  projectDeleted: defineEvent("identity.project.deleted.v1", ProjectDeletedSchema),
  apiKeySetCreated: defineEvent("identity.api_key_set.created.v1", ApiKeySetCreatedSchema),
  apiKeySetUpdated: defineEvent("identity.api_key_set.updated.v1", ApiKeySetUpdatedSchema),
} as const;
