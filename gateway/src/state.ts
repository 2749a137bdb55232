import type { ApiKeyCheckCache } from "./auth/api-key-checks.ts";
import type { KeyCache, ProjectCache } from "./auth/caches.ts";
import type { RefreshBatcher } from "./auth/refresh-batcher.ts";
import type { SignInBatcher } from "./auth/sign-in-batcher.ts";
import type { TeamAccess } from "./auth/team-access.ts";
import type { TeamCache } from "./auth/team-cache.ts";
import type { UsageRecorder } from "./auth/usage.ts";
import type { UserCache } from "./auth/user-cache.ts";
import type { ServiceClients } from "./clients.ts";
import type { GatewayConfig } from "./config.ts";
import type { ItemReads } from "./payments/item-reads.ts";

/**
 * The gateway's collaborators, built once by buildGateway and named once here: the Gateway handle extends it, route
 * registration keeps it, and every handler's context (RouteContext) extends it. Caches, batchers and clients only; no
 * domain state.
 */
export interface GatewayState {
  readonly config: GatewayConfig;
  readonly clients: ServiceClients;
  readonly projects: ProjectCache;
  readonly keys: KeyCache;
  readonly users: UserCache;
  /** Teams by id (teams-permissions service), for the `selected_team` of user views; dropped by team events. */
  readonly teamCache: TeamCache;
  /** Token refreshes, batched into RefreshSessions calls. */
  readonly refreshes: RefreshBatcher;
  /** User and team API key checks, cached until the key changes. */
  readonly apiKeyChecks: ApiKeyCheckCache;
  /** Teams and team permissions (team API keys). */
  readonly teams: TeamAccess;
  /** Password sign-ins, batched into SignInWithPasswords calls. */
  readonly signIns: SignInBatcher;
  /** Session activity (last used, IP), recorded in batches. */
  readonly usage: UsageRecorder;
  /** Item quantity reads, batched into GetItems calls. */
  readonly itemReads: ItemReads;
}
