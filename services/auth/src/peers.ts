import type { Client } from "@connectrpc/connect";
import { ContactChannelService } from "@vestibule/proto/identity/v1/contact_channel_service";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { fromConnectError, isKnownError, type KnownErrorCode } from "@vestibule/shared/errors";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";

/** The identity services the auth service calls (users, contact channels, projects). */
export interface IdentityClients {
  readonly users: Client<typeof UserService>;
  readonly contactChannels: Client<typeof ContactChannelService>;
  readonly projects: Client<typeof ProjectService>;
}

export function createIdentityClients(ctx: Pick<ServiceContext, "env" | "config">): IdentityClients {
  const opts = { baseUrl: peerUrl("identity", ctx.env), caller: "auth", secret: ctx.config.serviceSecret };
  return {
    users: createServiceClient(UserService, opts),
    contactChannels: createServiceClient(ContactChannelService, opts),
    projects: createServiceClient(ProjectService, opts),
  };
}

/** True when an error from an identity RPC carries the given known error (or one below it). */
export function isPeerError(err: unknown, code: KnownErrorCode): boolean {
  return isKnownError(fromConnectError(err), code);
}
