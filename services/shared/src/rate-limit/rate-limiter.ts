import { withTransaction, type Pool } from "../db/index.ts";
import { statusError, type StatusError } from "../errors/index.ts";
import { hashSecret } from "../secrets/index.ts";
import { attemptStore } from "./attempt-store.ts";
import { rememberedFailures, tooManyAttemptsMessage, type BackoffPolicy, type CounterPolicy } from "./backoff.ts";
import type { RateLimitSettings } from "./config.ts";
import { reserveAttempts, settleAttempts, type AttemptOutcome, type CounterRef, type CounterState, type Writes } from "./grants.ts";

/**
 * What an attempt is counted against:
 *  - `account`: one account and one method (e.g. password sign-in of an e-mail in a project, or one code nonce), so
 *    that failures of one method never lock the owner out of another; a success resets it;
 *  - `ip`: the client IP within the project, across accounts and methods: a bucket of failures per day (generous: many
 *    users may share an IP; one project's traffic never fills another's bucket); never reset by a success. Loopback
 *    clients are exempt in development mode.
 */
export interface AttemptSubject {
  /** e.g. "password", "password_update", "code:password_reset". */
  readonly method: string;
  readonly projectId: string;
  readonly account?: string;
  readonly ip?: string;
}

/**
 * A reserved attempt, while it is being checked: say how the check went. Until then (and if the check throws) it
 * counts as a failure. The first report counts; the counters are written once the check has returned.
 */
export interface Attempt {
  /** The guess was wrong (also what an attempt nobody reports on counts as). */
  failure(): void;
  /** The guess was right: the account's failures are forgotten. */
  success(): void;
  /** Neither (e.g. a code that exists but is expired or used): the attempt does not count. */
  release(): void;
}

/** The client IP's bucket refills over a day (`ipFailuresPerDay`). */
export const IP_WINDOW_SECONDS = 86_400;

export interface RateLimiterOptions {
  /** `development`: loopback clients (127.0.0.0/8, ::1) are not counted per IP (one developer's test runs). */
  readonly mode?: "development" | "production";
  /** A project's own per-IP failure budget per day (its `auth.ipFailuresPerDay`), when it set one. */
  readonly ipFailuresPerDay?: (projectId: string) => Promise<number | undefined>;
}

/** Whether `ip` is a loopback address (IPv4 127.0.0.0/8, IPv6 ::1, and IPv4-mapped loopback). */
export function isLoopbackIp(ip: string): boolean {
  const v4 = ip.toLowerCase().replace(/^::ffff:/, "");
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || ip === "::1" || ip === "0:0:0:0:0:0:0:1";
}

/** Reservations of a replica that died mid-check end (as failures) after this long. */
const LEASE_SECONDS = 60;
/** How long an attempt may wait for attempts in flight before it gets the 429 (Retry-After 1) instead. */
const MAX_WAIT_MS = 5_000;

/** Wakes the attempts of this process that wait for others in flight as soon as one of their counters is settled here. */
class Settlements {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves when one of `keys` is settled in this process, or after `ms` (attempts in flight elsewhere). */
  wait(keys: readonly string[], ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        for (const k of keys) {
          const set = this.waiters.get(k);
          set?.delete(done);
          if (set?.size === 0) this.waiters.delete(k);
        }
        resolve();
      };
      const timer = setTimeout(done, ms);
      for (const k of keys) {
        let set = this.waiters.get(k);
        if (!set) this.waiters.set(k, (set = new Set()));
        set.add(done);
      }
    });
  }

  /**
   * Wakes the longest-waiting attempt of each of `keys` (one at a time: it passes the turn on once decided, so a
   * crowd of waiting guesses asks the database one after another, not all at once after every settle).
   */
  notify(keys: Iterable<string>): void {
    for (const k of keys) this.waiters.get(k)?.values().next().value?.();
  }
}

/**
 * Brute-force protection shared by every replica (counters in Postgres, keys hashed so no e-mail or IP is stored):
 * a blocked key answers 429 "Too many attempts. Please wait N seconds and try again." with Retry-After N, never a
 * 500.
 *
 * Each attempt is reserved before it is checked (one short transaction per batch of attempts: counters locked, each
 * attempt counted as in flight, in order) and settled after (one more), so guesses sent in parallel, or in one batch,
 * are checked no more often than one after another would be: an attempt that the ones in flight could block waits
 * for their outcome, then goes ahead or gets the 429. Concurrent right guesses (a user signing in on two devices) all
 * go through, a little later.
 */
export class RateLimiter {
  private readonly account: BackoffPolicy;
  private readonly settlements = new Settlements();

  constructor(
    private readonly pool: Pool,
    private readonly config: RateLimitSettings,
    private readonly options: RateLimiterOptions = {},
  ) {
    this.account = { threshold: config.accountThreshold, baseSeconds: config.baseSeconds, maxSeconds: config.maxSeconds };
  }

  get enabled(): boolean {
    return this.config.rateLimitEnabled === "on";
  }

  /**
   * Checks one guess: runs `check` once the attempt is reserved (throws the 429 instead when the account or the IP is
   * blocked), then records the outcome `check` reported on `attempt` (a failure when it reported none or threw).
   */
  async guard<T>(subject: AttemptSubject, check: (attempt: Attempt) => Promise<T>): Promise<T> {
    let value: T | undefined;
    const [error] = await this.guardMany([subject], async (_, attempt) => {
      value = await check(attempt);
    });
    if (error) throw error.error;
    return value as T;
  }

  /** Counts one attempt as a failure right away (e.g. an e-mail sent to an address); throws the 429 when blocked. */
  async count(subject: AttemptSubject): Promise<void> {
    await this.guard(subject, async () => {});
  }

  /**
   * `guard` for a batch: per subject, in order, `check(i, attempt)` runs once its attempt is reserved (all reserved
   * attempts of a round concurrently); gives per subject undefined when it was checked, else `{ error }`: the 429 when
   * it was refused, or what `check` threw. Failing to reach the database throws (nothing was checked, or the checked
   * attempts stay counted as failures).
   */
  async guardMany(subjects: readonly AttemptSubject[], check: (index: number, attempt: Attempt) => Promise<void>): Promise<({ error: unknown } | undefined)[]> {
    const refs = await this.countersOfAll(subjects);
    const results: ({ error: unknown } | undefined)[] = new Array(subjects.length).fill(undefined);
    const deadline = Date.now() + MAX_WAIT_MS;
    let waiting = subjects.map((_, i) => i);
    for (let pause = 10; waiting.length > 0; ) {
      const decisions = await this.transact(waiting.map((i) => refs[i]!), (state) => reserveAttempts(waiting.map((i) => refs[i]!), state));
      const granted = waiting.filter((_, k) => decisions[k]!.granted);
      // Decided (granted or refused): the next attempt waiting on these counters may be decided too.
      this.settlements.notify(new Set(waiting.filter((_, k) => decisions[k]!.granted || decisions[k]!.retryAfterSeconds !== undefined).flatMap((i) => refs[i]!.map((r) => r.key))));
      const next: number[] = [];
      waiting.forEach((i, k) => {
        const d = decisions[k]!;
        if (d.granted) return;
        if (d.retryAfterSeconds !== undefined) results[i] = { error: tooManyAttempts(d.retryAfterSeconds) };
        else if (Date.now() > deadline) results[i] = { error: tooManyAttempts(1) };
        else next.push(i);
      });
      if (granted.length > 0) await this.checkAndSettle(granted, refs, check, results);
      else if (next.length > 0) {
        // Only attempts of other calls are in flight: ask again once one of them is settled (or shortly, for
        // attempts of other replicas).
        await this.settlements.wait([...new Set(next.flatMap((i) => refs[i]!.map((r) => r.key)))], pause);
        pause = Math.min(pause * 2, 100);
      }
      waiting = next;
    }
    return results;
  }

  private async checkAndSettle(
    granted: readonly number[],
    refs: readonly (readonly CounterRef[])[],
    check: (index: number, attempt: Attempt) => Promise<void>,
    results: ({ error: unknown } | undefined)[],
  ): Promise<void> {
    const outcomes = await Promise.all(
      granted.map(async (i) => {
        let outcome: AttemptOutcome | undefined;
        const report = (o: AttemptOutcome) => void (outcome ??= o);
        try {
          await check(i, { failure: () => report("failure"), success: () => report("success"), release: () => report("release") });
        } catch (error) {
          results[i] = { error };
        }
        return outcome ?? "failure";
      }),
    );
    const settled = granted.map((i, k) => ({ refs: refs[i]!, outcome: outcomes[k]! }));
    await this.transact(settled.map((s) => s.refs), (state) => ({ decisions: undefined, ...settleAttempts(settled, state) }));
    this.settlements.notify(new Set(settled.flatMap((s) => s.refs.map((r) => r.key))));
  }

  /** Locks the counters of `refs`, applies `decide` to their state and writes what it gives, in one transaction. */
  private async transact<D>(refs: readonly (readonly CounterRef[])[], decide: (state: ReadonlyMap<string, CounterState>) => Writes & { decisions: D }): Promise<D> {
    const policies = new Map<string, CounterPolicy>(refs.flatMap((r) => r.map((c) => [c.key, c.policy] as const)));
    const keys = [...policies.keys()].sort();
    if (keys.length === 0) return decide(new Map()).decisions;
    return withTransaction(this.pool, async (tx) => {
      const stored = await attemptStore.lock(tx, keys);
      const state = new Map<string, CounterState>();
      for (const [key, c] of stored) {
        const failures = rememberedFailures(c.failures, c.idleSeconds, policies.get(key)!, this.config.resetSeconds) + c.expired;
        state.set(key, { failures, pending: c.pending, wait: c.wait });
      }
      const { writes, clean, decisions } = decide(state);
      await attemptStore.write(tx, writes, clean, LEASE_SECONDS);
      return decisions;
    });
  }

  /** The counters each attempt counts against (none when brute-force protection is off). */
  private async countersOfAll(subjects: readonly AttemptSubject[]): Promise<CounterRef[][]> {
    if (!this.enabled) return subjects.map(() => []);
    const budgets = new Map<string, Promise<number>>();
    const budgetOf = (projectId: string) => {
      let b = budgets.get(projectId);
      if (!b) {
        const own = this.options.ipFailuresPerDay?.(projectId).catch(() => undefined) ?? Promise.resolve(undefined);
        budgets.set(projectId, (b = own.then((n) => (n !== undefined && Number.isInteger(n) && n > 0 ? n : this.config.ipFailuresPerDay))));
      }
      return b;
    };
    return Promise.all(
      subjects.map(async (s) => {
        const refs: CounterRef[] = [];
        if (s.account) {
          const key = hashSecret(`account\u0000${s.method}\u0000${s.projectId}\u0000${s.account.toLowerCase()}`);
          refs.push({ key, policy: this.account, resetBySuccess: true });
        }
        if (s.ip && !(this.options.mode === "development" && isLoopbackIp(s.ip))) {
          // Per project: one tenant's bad traffic never fills another's bucket for the same address.
          const key = hashSecret(`ip\u0000${s.projectId}\u0000${s.ip}`);
          refs.push({ key, policy: { capacity: await budgetOf(s.projectId), windowSeconds: IP_WINDOW_SECONDS }, resetBySuccess: false });
        }
        return refs;
      }),
    );
  }
}

function tooManyAttempts(seconds: number): StatusError {
  return statusError(429, tooManyAttemptsMessage(seconds), { retryAfterSeconds: seconds });
}
