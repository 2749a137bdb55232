import type { ServiceContext } from "@vestibule/shared/service";
import { attemptStore } from "@vestibule/shared/rate-limit";
import { claimsStore } from "./sessions/store/claims-store.ts";
import { codeStore } from "./codes/store/code-store.ts";
import { impersonationTicketStore } from "./sessions/store/impersonation-ticket-store.ts";
import { oauthStore } from "./oauth/store/oauth-store.ts";
import { sessionStore } from "./sessions/store/session-store.ts";
import { signingKeyStore } from "./signing/store/signing-key-store.ts";

/**
 * Hourly clean-up of rows nothing reads any more: sessions and codes a day past expiry, attempt counters idle for a
 * day, signing keys 30 days past their publication, deleted users' claim tombstones after 30 days, OAuth flows and authorization codes a day past expiry, expired impersonation tickets. Idempotent deletes, so every replica may run it.
 */
export function startJanitor(ctx: ServiceContext, intervalMs = 3_600_000): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= (async () => {
      try {
        const [sessions, codes, counters, keys, tombstones] = [
          await sessionStore.deleteExpired(ctx.pool),
          await codeStore.deleteExpired(ctx.pool),
          await attemptStore.deleteStale(ctx.pool, 86_400),
          await signingKeyStore.deleteExpired(ctx.pool, 30),
          await claimsStore.deleteOldTombstones(ctx.pool, 30),
        ];
        const oauth = await oauthStore.deleteExpired(ctx.pool);
        const tickets = await impersonationTicketStore.deleteExpired(ctx.pool);
        if (sessions + codes + counters + keys + tombstones + oauth + tickets > 0) {
          ctx.log.info({ sessions, codes, counters, keys, tombstones, oauth, tickets }, "expired auth rows removed");
        }
      } catch (err) {
        ctx.log.warn({ err: (err as Error).message }, "auth clean-up failed; retrying next round");
      } finally {
        running = undefined;
      }
    })();
  };
  const first = setTimeout(run, 30_000);
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
