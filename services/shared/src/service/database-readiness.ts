import type { Pool } from "../db/index.ts";
import type { Logger } from "../log/index.ts";
import { ServingStatus, type HealthState } from "../rpc/index.ts";

/**
 * Readiness follows the database: every `intervalMs` a `SELECT 1` (bounded by `timeoutMs`); after `failures`
 * failed checks in a row the service reports NOT_SERVING (balancers and the gateway's /health stop counting on it),
 * and SERVING again at the first check that answers. The pool reconnects by itself: nothing restarts. Returns the
 * stop function (call it before the server's graceful close sets NOT_SERVING for good).
 */
export function followDatabase(
  pool: Pool,
  health: HealthState,
  log: Logger,
  options: { intervalMs?: number; timeoutMs?: number; failures?: number } = {},
): () => void {
  const intervalMs = options.intervalMs ?? 1_000;
  const timeoutMs = options.timeoutMs ?? 3_000;
  const threshold = options.failures ?? 2;
  let failed = 0;
  let stopped = false;
  let running = false;
  const check = async (): Promise<void> => {
    if (running || stopped) return;
    running = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        pool.query("SELECT 1"),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
      ]);
      if (!stopped && failed >= threshold) log.info("database reachable again: SERVING");
      failed = 0;
      if (!stopped && health.get() !== ServingStatus.SERVING) health.set(ServingStatus.SERVING);
    } catch (err) {
      failed++;
      if (!stopped && failed === threshold) {
        log.warn({ err: (err as Error).message }, "database unreachable: NOT_SERVING until it answers");
        health.set(ServingStatus.NOT_SERVING);
      }
    } finally {
      clearTimeout(timer);
      running = false;
    }
  };
  const interval = setInterval(() => void check(), intervalMs);
  interval.unref();
  return () => {
    stopped = true;
    clearInterval(interval);
  };
}
