import { ConnectError, type Client } from "@connectrpc/connect";
import { createServiceClient } from "@vestibule/shared/rpc";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { ApiKeySetService } from "@vestibule/proto/identity/v1/api_key_service";
import type { GatewayConfig } from "./config.ts";

/** RPC clients of the services, one shared HTTP/2 connection per service. */
export interface ServiceClients {
  readonly projects: Client<typeof ProjectService>;
  readonly apiKeySets: Client<typeof ApiKeySetService>;
}

/**
 * Marks RPC failures with the service they were addressed to, so a service that is down is answered with a
 * plain-text 503 naming it (see http/replies.ts).
 */
function tagged<T extends object>(client: T, service: string): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (err) {
          if (err instanceof ConnectError) Object.assign(err, { service });
          throw err;
        }
      };
    },
  });
}

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const base = { caller: "gateway", secret: config.serviceSecret };
  return {
    projects: tagged(createServiceClient(ProjectService, { ...base, baseUrl: config.identityUrl }), "identity"),
    apiKeySets: tagged(createServiceClient(ApiKeySetService, { ...base, baseUrl: config.identityUrl }), "identity"),
  };
}
