import { TeamDeletedSchema } from "@vestibule/proto/teams_permissions/v1/events";
import { consumeDeletedUsers, consumeEvents, defineEvent, type Subscription } from "@vestibule/shared/events";
import { isUuid } from "@vestibule/shared/ids";
import { ApiKeys, type TeamDirectory } from "./api-keys/api-keys.ts";
import type { AuthRuntime } from "./runtime.ts";
import { cliLoginStore } from "./cli/store/cli-login-store.ts";
import { deletedTeamStore } from "./api-keys/store/deleted-team-store.ts";
import { teamsServiceDirectory } from "./api-keys/team-directory.ts";
import { totpStore } from "./mfa/store/totp-store.ts";
import { TotpSecrets } from "./mfa/totp.ts";

/** API keys, TOTP secrets and their helpers, built once per auth runtime (RPCs and consumers share them). */
export interface SecurityRuntime {
  readonly apiKeys: ApiKeys;
  readonly totp: TotpSecrets;
}

const runtimes = new WeakMap<AuthRuntime, SecurityRuntime>();

/**
 * The security parts of an auth runtime. `teams` tells who manages a team's API keys (for the secret-scanner
 * e-mails); by default the teams-permissions service is asked (team-directory.ts).
 */
export function securityRuntime(rt: AuthRuntime, opts: { teams?: TeamDirectory } = {}): SecurityRuntime {
  let sec = runtimes.get(rt);
  if (sec) return sec;
  const { ctx } = rt;
  sec = {
    apiKeys: new ApiKeys({
      pool: ctx.pool,
      outbox: ctx.outbox,
      log: ctx.log,
      mailer: rt.mailer,
      identity: rt.identity,
      settings: rt.settings,
      teams: opts.teams ?? teamsServiceDirectory(ctx, rt.identity),
    }),
    totp: new TotpSecrets({ pool: ctx.pool, secrets: ctx.secrets }),
  };
  runtimes.set(rt, sec);
  return sec;
}

/** The teams-permissions event this part follows. */
export const TeamEvents = {
  teamDeleted: defineEvent("teams_permissions.team.deleted.v1", TeamDeletedSchema),
} as const;

/** Durable consumer names of this part (never renamed: a new name replays the stream). */
export const SECURITY_CONSUMERS = {
  userDeleted: "auth-identity-user-deleted-api-keys-totp",
  teamDeleted: "auth-teams-team-deleted-api-keys",
} as const;

/**
 * Starts what keeps the security state in step on this replica: the API key check cache follows auth.api_key.*
 * (broadcast); a deleted user's API keys and TOTP secret go (durable, idempotent consumer of
 * identity.user.deleted.v1), and so do a deleted team's API keys (teams_permissions.team.deleted.v1; each deleted key
 * publishes auth.api_key.deleted.v1, which drops it from the check caches of every auth and gateway replica); CLI
 * logins a day past expiry and deleted-team tombstones after 30 days are removed hourly.
 */
export async function startSecurity(rt: AuthRuntime, intervalMs = 3_600_000): Promise<() => Promise<void>> {
  const { ctx } = rt;
  const sec = securityRuntime(rt);
  const subs: Subscription[] = [];
  try {
    subs.push(await sec.apiKeys.cache.subscribe(ctx.bus));
    subs.push(
      await consumeDeletedUsers({
        bus: ctx.bus,
        pool: ctx.pool,
        log: ctx.log,
        consumer: SECURITY_CONSUMERS.userDeleted,
        handler: async ({ projectId, userId }, tx) => {
          const keys = await sec.apiKeys.deleteForOwnerIn(tx, projectId, "user", userId);
          await totpStore.delete(tx, projectId, userId);
          if (keys.length > 0) ctx.log.info({ project_id: projectId, user_id: userId, api_keys: keys.length }, "deleted user's API keys removed");
        },
      }),
      await consumeEvents({
        bus: ctx.bus,
        pool: ctx.pool,
        log: ctx.log,
        consumer: SECURITY_CONSUMERS.teamDeleted,
        event: TeamEvents.teamDeleted,
        handler: async ({ envelope, payload }, tx) => {
          const projectId = payload.projectId || envelope.projectId;
          if (!projectId || !isUuid(payload.teamId)) {
            ctx.log.warn({ event_id: envelope.id }, "teams_permissions.team.deleted.v1 without a usable project or team id; ignored");
            return;
          }
          const keys = await sec.apiKeys.deleteTeamKeysIn(tx, projectId, payload.teamId);
          if (keys.length > 0) ctx.log.info({ project_id: projectId, team_id: payload.teamId, api_keys: keys.length }, "deleted team's API keys removed");
        },
      }),
    );
  } catch (err) {
    await Promise.all(subs.map((s) => s.stop().catch(() => {})));
    throw err;
  }
  const timer = setInterval(() => {
    cliLoginStore.deleteExpired(ctx.pool).catch((err: unknown) => ctx.log.warn({ err: (err as Error).message }, "CLI login clean-up failed"));
    deletedTeamStore.deleteOld(ctx.pool, 30).catch((err: unknown) => ctx.log.warn({ err: (err as Error).message }, "deleted-team clean-up failed"));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await Promise.all(subs.map((s) => s.stop()));
  };
}
