import { EmailRequester } from "@vestibule/shared/emails";
import { RateLimiter } from "@vestibule/shared/rate-limit";
import type { ServiceContext } from "@vestibule/shared/service";
import { readTeamsConfig } from "./config.ts";
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
    rt = { ctx, identity, settings, checker: new PermissionChecker(ctx.pool, settings), limiter, mailer };
    runtimes.set(ctx, rt);
  }
  return rt;
}
