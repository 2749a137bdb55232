import { consumeEvents, type Subscription } from "@vestibule/shared/events";
import { isUuid } from "@vestibule/shared/ids";
import { ApiKeys, noTeamDirectory, type TeamDirectory } from "./api-keys.ts";
import { ConsumedEvents } from "./events.ts";
import type { AuthRuntime } from "./runtime.ts";
import { cliLoginStore } from "./store/cli-login-store.ts";
import { totpStore } from "./store/totp-store.ts";
import { TotpSecrets } from "./totp.ts";

/** API keys, TOTP secrets and their helpers, built once per auth runtime (RPCs and consumers share them). */
export interface SecurityRuntime {
  readonly apiKeys: ApiKeys;
  readonly totp: TotpSecrets;
}

const runtimes = new WeakMap<AuthRuntime, SecurityRuntime>();

/**
 * The security parts of an auth runtime. `teams` tells who manages a team's API keys (for the secret-scanner
 * e-mails); until the teams service is wired in, `noTeamDirectory` knows no team.
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
      teams: opts.teams ?? noTeamDirectory,
    }),
    totp: new TotpSecrets({ pool: ctx.pool, secrets: ctx.secrets }),
  };
  runtimes.set(rt, sec);
  return sec;
}

/** Durable consumer names of this part (never renamed: a new name replays the stream). */
export const SECURITY_CONSUMERS = {
  userDeleted: "auth-identity-user-deleted-api-keys-totp",
} as const;

/**
 * Starts what keeps the security state in step on this replica: the API key check cache follows auth.api_key.*
 * (broadcast); a deleted user's API keys and TOTP secret go (durable, idempotent consumer of
 * identity.user.deleted.v1); CLI logins a day past expiry are removed hourly.
 */
export async function startSecurity(rt: AuthRuntime, intervalMs = 3_600_000): Promise<() => Promise<void>> {
  const { ctx } = rt;
  const sec = securityRuntime(rt);
  const subs: Subscription[] = [];
  try {
    subs.push(await sec.apiKeys.cache.subscribe(ctx.bus));
    subs.push(
      await consumeEvents({
        bus: ctx.bus,
        pool: ctx.pool,
        log: ctx.log,
        consumer: SECURITY_CONSUMERS.userDeleted,
        event: ConsumedEvents.userDeleted,
        handler: async ({ envelope, payload }, tx) => {
          const projectId = payload.projectId || envelope.projectId;
          if (!projectId || !isUuid(payload.userId)) return;
          const keys = await sec.apiKeys.deleteForOwnerIn(tx, projectId, "user", payload.userId);
          await totpStore.delete(tx, projectId, payload.userId);
          if (keys.length > 0) ctx.log.info({ project_id: projectId, user_id: payload.userId, api_keys: keys.length }, "deleted user's API keys removed");
        },
      }),
    );
  } catch (err) {
    await Promise.all(subs.map((s) => s.stop().catch(() => {})));
    throw err;
  }
  const timer = setInterval(() => {
    cliLoginStore.deleteExpired(ctx.pool).catch((err: unknown) => ctx.log.warn({ err: (err as Error).message }, "CLI login clean-up failed"));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await Promise.all(subs.map((s) => s.stop()));
  };
}
