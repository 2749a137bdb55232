/** The longest delay a timer can take (setTimeout's 32-bit limit, spec §9). */
export const MAX_WAIT_MILLIS = 2_147_483_647;

/**
 * Resolves after `ms` milliseconds. The wait must be finite, non-negative and at most `MAX_WAIT_MILLIS` (spec §5):
 * anything else would fire at once or never in a browser, so it is refused.
 */
export function wait(ms: number): Promise<void> {
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_WAIT_MILLIS) {
    return Promise.reject(new RangeError(`Wait time must be finite, non-negative and below 2147483648 ms; got ${ms}`));
  }
  return new Promise((resolve) => setTimeout(resolve, ms));
}
