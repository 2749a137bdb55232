import type { Pool } from "../db/index.ts";
import { statusError } from "../errors/index.ts";
import { hashSecret } from "../secrets/index.ts";
import { attemptStore } from "./attempt-store.ts";
import { blockSeconds, tooManyAttemptsMessage, type BackoffPolicy } from "./backoff.ts";
import type { RateLimitSettings } from "./config.ts";

/**
 * What an attempt is counted against:
 *  - `account`: one account and one method (e.g. password sign-in of an e-mail in a project, or one code nonce), so
 *    that failures of one method never lock the owner out of another; a success resets it;
 *  - `ip`: the client IP, across accounts, methods and projects (more lenient: many users may share an IP); never
 *    reset by a success.
 */
export interface AttemptSubject {
  /** e.g. "password", "password_update", "code:password_reset". */
  readonly method: string;
  readonly projectId: string;
  readonly account?: string;
  readonly ip?: string;
}

/** One guarded attempt: report its outcome. */
export interface Attempt {
  failure(): Promise<void>;
  success(): Promise<void>;
}

/** The hashed counter keys of a subject, to read their state together with other data (`RateLimiter.keysOf`). */
export interface AttemptKeys {
  readonly account: string | undefined;
  readonly ip: string | undefined;
  /** The keys to read: pass them to a query that returns their state (`attemptStore.state`'s `wait` per key). */
  readonly list: readonly string[];
}

const NOOP: Attempt = { failure: async () => {}, success: async () => {} };
const NO_KEYS: AttemptKeys = { account: undefined, ip: undefined, list: [] };

/**
 * Brute-force protection shared by every replica (counters in Postgres, keys hashed so no e-mail or IP is stored):
 * a blocked key answers 429 "Too many attempts. Please wait N seconds and try again." with Retry-After N, never a
 * 500. Costs one indexed read per attempt (or none of its own: `keysOf` + `start` let a caller read the counters in
 * a query it makes anyway), plus writes only for failures and for the first success after failures.
 */
export class RateLimiter {
  private readonly account: BackoffPolicy;
  private readonly ip: BackoffPolicy;

  constructor(
    private readonly pool: Pool,
    private readonly config: RateLimitSettings,
  ) {
    this.account = { threshold: config.accountThreshold, baseSeconds: config.baseSeconds, maxSeconds: config.maxSeconds };
    this.ip = { threshold: config.ipThreshold, baseSeconds: config.baseSeconds, maxSeconds: config.maxSeconds };
  }

  get enabled(): boolean {
    return this.config.rateLimitEnabled === "on";
  }

  /** Starts an attempt: throws the 429 when the account or the IP is blocked now. */
  async begin(s: AttemptSubject): Promise<Attempt> {
    if (!this.enabled) return NOOP;
    const keys = this.keysOf(s);
    return this.start(keys, await attemptStore.state(this.pool, keys.list));
  }

  /** The counter keys of a subject (none when brute-force protection is off). */
  keysOf(s: AttemptSubject): AttemptKeys {
    if (!this.enabled) return NO_KEYS;
    const account = s.account ? hashSecret(`account\u0000${s.method}\u0000${s.projectId}\u0000${s.account.toLowerCase()}`) : undefined;
    const ip = s.ip ? hashSecret(`ip\u0000${s.ip}`) : undefined;
    return { account, ip, list: [account, ip].filter((k): k is string => k !== undefined) };
  }

  /**
   * Starts an attempt from the counters' state read by the caller (key → seconds still blocked, for the keys that
   * have a counter): throws the 429 when the account or the IP is blocked now.
   */
  start(keys: AttemptKeys, state: ReadonlyMap<string, number>): Attempt {
    if (keys.list.length === 0) return NOOP;
    const { account, ip } = keys;
    const wait = Math.max(0, ...state.values());
    if (wait > 0) throw statusError(429, tooManyAttemptsMessage(wait), { retryAfterSeconds: wait });
    return {
      failure: async () => {
        await Promise.all([account ? this.count(account, this.account) : undefined, ip ? this.count(ip, this.ip) : undefined]);
      },
      // Nothing to write when the account had no counter (the usual case): only failures leave one.
      success: async () => {
        if (account && state.has(account)) await attemptStore.reset(this.pool, account);
      },
    };
  }

  private async count(key: string, policy: BackoffPolicy): Promise<void> {
    const failures = await attemptStore.recordFailure(this.pool, key, this.config.resetSeconds);
    const seconds = blockSeconds(failures, policy);
    if (seconds > 0) await attemptStore.block(this.pool, key, seconds);
  }
}
