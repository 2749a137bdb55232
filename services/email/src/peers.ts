import type { Client } from "@connectrpc/connect";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { UserService } from "@vestibule/proto/identity/v1/user_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";

/** The identity services the e-mail service calls (project settings, users). */
export interface IdentityClients {
  readonly projects: Client<typeof ProjectService>;
  readonly users: Client<typeof UserService>;
}

export function createIdentityClients(ctx: Pick<ServiceContext, "env" | "config">): IdentityClients {
  const opts = { baseUrl: peerUrl("identity", ctx.env), caller: "email", secret: ctx.config.serviceSecret };
  return { projects: createServiceClient(ProjectService, opts), users: createServiceClient(UserService, opts) };
}
