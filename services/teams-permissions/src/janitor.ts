import type { ServiceContext } from "@vestibule/shared/service";
import { invitationStore } from "./store/invitation-store.ts";

/** Removes invitations a day after they expired, hourly (any replica may run it; the delete is idempotent). */
export function startJanitor(ctx: ServiceContext, intervalMs = 3_600_000): () => Promise<void> {
  const run = async () => {
    try {
      const n = await invitationStore.deleteExpired(ctx.pool);
      if (n > 0) ctx.log.info({ invitations: n }, "expired invitations removed");
    } catch (err) {
      ctx.log.warn({ err: (err as Error).message }, "invitation clean-up failed");
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  return async () => clearInterval(timer);
}
