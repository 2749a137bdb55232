export { SERVICE_TOKEN_HEADER, mintServiceToken, verifyServiceToken, serviceTokenSource, serviceSecretProblem } from "./service-auth.ts";
export type { ServiceClientOptions } from "./client.ts";
export { createServiceClient, createHealthClient, serviceTransport, replicaUrls } from "./client.ts";
export type { Replica, ReplicaOptions } from "./replicas.ts";
export { replicatedTransport, failureKind, isIdempotent } from "./replicas.ts";
export type { RpcServer, RpcServerOptions } from "./server.ts";
export { createRpcServer, HealthState, LIVENESS_SERVICE, ServingStatus } from "./server.ts";
export { lazyService } from "./lazy-service.ts";
