import type { Client } from "@connectrpc/connect";
import type { ItemService } from "@vestibule/proto/billing/v1/item_service";
import { EmailRequester } from "@vestibule/shared/emails";
import { RateLimiter } from "@vestibule/shared/rate-limit";
import type { ServiceContext } from "@vestibule/shared/service";
import { readTeamsConfig } from "./config.ts";
import { createBillingItemsClient } from "./dashboard-admins.ts";
import { TeamsEvents } from "./events.ts";
import { createIdentityClients, type IdentityClients } from "./peers.ts";
import { PermissionChecker } from "./permission-checker.ts";
import { ProjectSettingsCache } from "./project-settings.ts";

/** What the RPCs and consumers of one service instance share. */
export interface TeamsRuntime {
  readonly ctx: ServiceContext;
  readonly identity: IdentityClients;
  readonly settings: ProjectSettingsCache;
  readonly checker: PermissionChecker;
  /** Brute-force protection of invitation codes (per account and client IP, shared by the replicas). */
  readonly limiter: RateLimiter;
  /** Asks for e-mails through the outbox, their codes sealed. */
  readonly mailer: EmailRequester;
  /** Billing's item quantities (the `dashboard_admins` limit of the internal project's teams). */
  readonly billingItems: Client<typeof ItemService>;
}

const runtimes = new WeakMap<ServiceContext, TeamsRuntime>();

/** The runtime of a service context (created on first use; `start` and `routes` get the same one). */
export function teamsRuntime(ctx: ServiceContext): TeamsRuntime {
  let rt = runtimes.get(ctx);
  if (!rt) {
    const identity = createIdentityClients(ctx);
    const settings = new ProjectSettingsCache(identity);
    const limiter = new RateLimiter(ctx.pool, readTeamsConfig(ctx.env), {
      mode: ctx.config.mode,
      ipFailuresPerDay: async (projectId) => (await settings.get(projectId)).ipFailuresPerDay,
    });
    const mailer = new EmailRequester(ctx.outbox, ctx.config.masterKeys, TeamsEvents.emailRequested);
    let billingItems: Client<typeof ItemService> | undefined;
    rt = {
      ctx,
      identity,
      settings,
      checker: new PermissionChecker(ctx.pool, settings),
      limiter,
      mailer,
      // Created on first use: billing may start after this service (each asks the other), its URL known by then.
      get billingItems() {
        return (billingItems ??= createBillingItemsClient(ctx));
      },
    };
    runtimes.set(ctx, rt);
  }
  return rt;
}
