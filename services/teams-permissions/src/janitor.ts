import { attemptStore } from "@vestibule/shared/rate-limit";
import type { ServiceContext } from "@vestibule/shared/service";
import { invitationStore } from "./store/invitation-store.ts";

/**
 * Removes invitations a day after they expired and brute-force counters idle for a day, hourly (any replica may run
 * it; the deletes are idempotent).
 */
export function startJanitor(ctx: ServiceContext, intervalMs = 3_600_000): () => Promise<void> {
  const run = async () => {
    try {
      const n = await invitationStore.deleteExpired(ctx.pool);
      const counters = await attemptStore.deleteStale(ctx.pool, 86_400);
      if (n + counters > 0) ctx.log.info({ invitations: n, counters }, "expired invitations and idle attempt counters removed");
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, "invitation clean-up failed");
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return async () => clearInterval(timer);
}
