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

/**
 * The client IP's policy (issue 18): a bucket of `capacity` failures that refills evenly over `windowSeconds` (100 a
 * day by default, like the common "suspicious IP throttling"): generous enough for an office or carrier NAT whose
 * users each mistype now and then, while one noisy client that empties it gets one more failure per refill interval
 * (`windowSeconds / capacity`, 864 s at 100 a day).
 */
export interface BucketPolicy {
  readonly capacity: number;
  readonly windowSeconds: number;
}

export type CounterPolicy = BackoffPolicy | BucketPolicy;

function isBucket(policy: CounterPolicy): policy is BucketPolicy {
  return "capacity" in policy;
}

/** Seconds to block after the `failures`-th failure (0 = not blocked). */
export function blockFor(failures: number, policy: CounterPolicy): number {
  if (!isBucket(policy)) return blockSeconds(failures, policy);
  if (failures < policy.capacity) return 0;
  // Until enough has refilled for one more failure.
  return Math.min(Math.ceil(((failures - policy.capacity + 1) * policy.windowSeconds) / policy.capacity), policy.windowSeconds);
}

/**
 * The failures a counter still remembers after `idleSeconds` without one: a back-off counter forgets them all after
 * `resetSeconds`; a bucket refills one failure per `windowSeconds / capacity` (whole ones: the fraction is lost when the
 * counter is written, which only ever makes the refill slower).
 */
export function rememberedFailures(failures: number, idleSeconds: number, policy: CounterPolicy, resetSeconds: number): number {
  if (!isBucket(policy)) return idleSeconds > resetSeconds ? 0 : failures;
  return Math.max(0, failures - Math.floor((Math.max(0, idleSeconds) * policy.capacity) / policy.windowSeconds));
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
