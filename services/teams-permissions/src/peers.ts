import type { Client } from "@connectrpc/connect";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { ContactChannelService } from "@vestibule/proto/identity/v1/contact_channel_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { normalizeEmail } from "@vestibule/shared/emails";
import { fromConnectError, isKnownError, knownError, type KnownErrorCode } from "@vestibule/shared/errors";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";

/** The identity services this service calls (users exist? project configuration; a user's verified e-mails). */
export interface IdentityClients {
  readonly users: Client<typeof UserService>;
  readonly projects: Client<typeof ProjectService>;
  readonly contactChannels: Client<typeof ContactChannelService>;
}

export function createIdentityClients(ctx: Pick<ServiceContext, "env" | "config">): IdentityClients {
  const opts = { baseUrl: peerUrl("identity", ctx.env), caller: "teams_permissions", secret: ctx.config.serviceSecret };
  return {
    users: createServiceClient(UserService, opts),
    projects: createServiceClient(ProjectService, opts),
    contactChannels: createServiceClient(ContactChannelService, opts),
  };
}

/** True when an error from an identity RPC carries the given known error (or one below it). */
export function isPeerError(err: unknown, code: KnownErrorCode): boolean {
  return isKnownError(fromConnectError(err), code);
}

/** The user, or USER_NOT_FOUND. */
export async function requireUser(identity: IdentityClients, projectId: string, userId: string): Promise<User> {
  try {
    const { user } = await identity.users.getUser({ projectId, userId });
    if (!user) throw knownError("USER_NOT_FOUND");
    return user;
  } catch (err) {
    if (isPeerError(err, "USER_NOT_FOUND") || isPeerError(err, "USER_ID_DOES_NOT_EXIST")) throw knownError("USER_NOT_FOUND");
    throw err;
  }
}

/** The user's verified e-mail addresses (lower-cased), or USER_NOT_FOUND. */
export async function verifiedEmailsOf(identity: IdentityClients, projectId: string, userId: string): Promise<Set<string>> {
  await requireUser(identity, projectId, userId);
  const { contactChannels } = await identity.contactChannels.listContactChannels({ projectId, userId });
  return new Set(contactChannels.filter((c) => c.type === "email" && c.isVerified).map((c) => normalizeEmail(c.value)));
}
