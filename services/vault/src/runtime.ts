import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";
import { ProjectKeys } from "./project-keys.ts";
import { ProjectStoresCache } from "./project-stores.ts";

/** What the vault's RPCs and consumers share, built once per service instance. */
export interface VaultRuntime {
  readonly ctx: ServiceContext;
  readonly stores: ProjectStoresCache;
  readonly keys: ProjectKeys;
}

const runtimes = new WeakMap<ServiceContext, VaultRuntime>();

export function vaultRuntime(ctx: ServiceContext): VaultRuntime {
  let rt = runtimes.get(ctx);
  if (rt) return rt;
  const projects = createServiceClient(ProjectService, { baseUrl: peerUrl("identity", ctx.env), caller: "vault", secret: ctx.config.serviceSecret });
  rt = { ctx, stores: new ProjectStoresCache(projects), keys: new ProjectKeys({ pool: ctx.pool, secrets: ctx.secrets }) };
  runtimes.set(ctx, rt);
  return rt;
}
