import type { ServiceContext } from "@vestibule/shared/service";
import type { AnalyticsConfig } from "./config.ts";
import { eventStore } from "./store/event-store.ts";
import { quotaStore } from "./store/quota-store.ts";
import { replayStore } from "./store/replay-store.ts";

/**
 * Retention: deletes events received more than VESTIBULE_ANALYTICS_RETENTION_DAYS ago, replays idle for
 * VESTIBULE_ANALYTICS_REPLAY_RETENTION_DAYS (with their chunks) and quota windows two days old, in bounded batches
 * (repeated while a batch comes back full, so one round catches up without holding long locks). Idempotent deletes,
 * so every replica may run it.
 */
export function startJanitor(ctx: ServiceContext, config: AnalyticsConfig): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= (async () => {
      try {
        let events = 0;
        let replays = 0;
        for (let n = 10_000; n === 10_000; events += n) n = await eventStore.deleteExpired(ctx.pool, config.retentionDays, 10_000);
        for (let n = 1_000; n === 1_000; replays += n) n = await replayStore.deleteExpired(ctx.pool, config.replayRetentionDays, 1_000);
        const windows = await quotaStore.deleteOld(ctx.pool);
        if (events + replays + windows > 0) ctx.log.info({ events, replays, windows }, "expired analytics rows removed");
      } catch (err) {
        ctx.log.warn({ err: (err as Error).message }, "analytics clean-up failed; retrying next round");
      } finally {
        running = undefined;
      }
    })();
  };
  const first = setTimeout(run, Math.min(30_000, config.janitorIntervalMs));
  const timer = setInterval(run, config.janitorIntervalMs);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
