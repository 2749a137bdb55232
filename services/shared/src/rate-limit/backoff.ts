/**
 * Brute-force back-off: after `threshold` failures in a row, each further failure blocks the key for a window that
 * doubles from `baseSeconds` up to `maxSeconds` (defaults: 5 failures, then 1 s, 2 s, 4 s ... capped at 60 s).
 * Short growing windows rather than one long lockout: the published SDK waits for Retry-After and retries by itself,
 * and an attacker still gets at most one guess per window. Pure functions, no I/O.
 */
export interface BackoffPolicy {
  /** Failures allowed before the first block. */
  readonly threshold: number;
  readonly baseSeconds: number;
  readonly maxSeconds: number;
}

/** Seconds to block after the `failures`-th failure in a row (0 = not blocked). */
export function blockSeconds(failures: number, policy: BackoffPolicy): number {
  if (failures < policy.threshold) return 0;
  const exponent = Math.min(failures - policy.threshold, 30);
  return Math.min(policy.baseSeconds * 2 ** exponent, policy.maxSeconds);
}

/** The 429 text (the SDK shows nothing of it; it waits `Retry-After` and retries). */
export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  return `Too many attempts. Please wait ${retryAfterSeconds} seconds and try again.`;
}
