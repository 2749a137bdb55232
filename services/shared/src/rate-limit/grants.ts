import { blockFor, type CounterPolicy } from "./backoff.ts";

/**
 * The pure rules of brute-force reservations (the caller holds the counters locked while it applies them). Attempts
 * are decided as if they came one after another: one goes ahead (is reserved, `pending`) only when none of its
 * counters is blocked and it could not be blocked by the attempts already in flight if they all failed; otherwise it
 * waits for them (a later round) or, when a counter is blocked, is refused with the seconds still to wait. Settling
 * an attempt ends its reservation and records its outcome with the same back-off as one failure at a time.
 */

/** A counter as read (locked). */
export interface CounterState {
  /** Failures in a row (0 once forgotten after the reset period; reservations past their lease count as failures). */
  readonly failures: number;
  /** Attempts reserved and not yet settled. */
  readonly pending: number;
  /** Seconds it is still blocked for (0 = not blocked). */
  readonly wait: number;
}

/** One counter an attempt counts against. */
export interface CounterRef {
  readonly key: string;
  readonly policy: CounterPolicy;
  /** A success forgets this counter's failures (the account's; never the client IP's). */
  readonly resetBySuccess: boolean;
}

/** What to write to a counter. `block`: seconds from now, 0 = no block any more, -1 = leave it as it is. */
export interface CounterWrite {
  readonly failures: number;
  readonly pending: number;
  readonly reserved: boolean;
  readonly failed: boolean;
  readonly block: number;
}

export type Decision = { readonly granted: true } | { readonly granted: false; readonly retryAfterSeconds: number | undefined };

/** The outcome of a checked attempt: a wrong guess, a right one, or neither (e.g. a code that exists but is used). */
export type AttemptOutcome = "failure" | "success" | "release";

/** The counters' state after the writes (a clean counter, no failure, nothing pending, not blocked, can go). */
export interface Writes {
  readonly writes: Map<string, CounterWrite>;
  /** Keys whose counter ends clean: delete it rather than write it. */
  readonly clean: string[];
}

class Counters {
  private readonly now = new Map<string, { failures: number; pending: number; wait: number; reserved: boolean; failed: boolean; block: number }>();

  constructor(private readonly state: ReadonlyMap<string, CounterState>) {}

  get(key: string) {
    let c = this.now.get(key);
    if (!c) {
      const s = this.state.get(key);
      c = { failures: s?.failures ?? 0, pending: s?.pending ?? 0, wait: s?.wait ?? 0, reserved: false, failed: false, block: -1 };
      this.now.set(key, c);
    }
    return c;
  }

  result(): Writes {
    const writes = new Map<string, CounterWrite>();
    const clean: string[] = [];
    for (const [key, c] of this.now) {
      if (c.failures === 0 && c.pending === 0 && c.wait === 0) clean.push(key);
      else if (c.reserved || c.failed || c.block >= 0 || c.pending !== this.state.get(key)?.pending || c.failures !== this.state.get(key)?.failures) {
        writes.set(key, { failures: c.failures, pending: c.pending, reserved: c.reserved, failed: c.failed, block: c.block });
      }
    }
    return { writes, clean };
  }
}

/** Decides a batch of attempts in order (see above); gives each one's decision and the counters' writes. */
export function reserveAttempts(attempts: readonly (readonly CounterRef[])[], state: ReadonlyMap<string, CounterState>): Writes & { decisions: Decision[] } {
  const counters = new Counters(state);
  const decisions = attempts.map((refs): Decision => {
    const wait = Math.max(0, ...refs.map((r) => counters.get(r.key).wait));
    if (wait > 0) return { granted: false, retryAfterSeconds: wait };
    // In flight and enough of them to block the counter if they all fail: wait for their outcome.
    if (refs.some((r) => counters.get(r.key).pending > 0 && blockFor(counters.get(r.key).failures + counters.get(r.key).pending, r.policy) > 0)) {
      return { granted: false, retryAfterSeconds: undefined };
    }
    for (const r of refs) {
      const c = counters.get(r.key);
      c.pending += 1;
      c.reserved = true;
    }
    return { granted: true };
  });
  return { decisions, ...counters.result() };
}

/**
 * Ends the reservations of checked attempts with their outcomes; gives the counters' writes. Attempts settled together
 * were in flight together: a success among them forgets the failures settled before, not theirs.
 */
export function settleAttempts(attempts: readonly { refs: readonly CounterRef[]; outcome: AttemptOutcome }[], state: ReadonlyMap<string, CounterState>): Writes {
  const counters = new Counters(state);
  const failuresLast = [...attempts.filter((a) => a.outcome !== "failure"), ...attempts.filter((a) => a.outcome === "failure")];
  for (const { refs, outcome } of failuresLast) {
    for (const r of refs) {
      const c = counters.get(r.key);
      c.pending = Math.max(0, c.pending - 1);
      if (outcome === "failure") {
        c.failures += 1;
        c.failed = true;
        const seconds = blockFor(c.failures, r.policy);
        if (seconds > 0) {
          c.block = seconds;
          c.wait = seconds;
        }
      } else if (outcome === "success" && r.resetBySuccess) {
        c.failures = 0;
        c.block = 0;
        c.wait = 0;
      }
    }
  }
  return counters.result();
}
