/**
 * The speed targets the benchmarks check, each with the concurrency it is measured at and its verdict. Issue 19 says
 * "concurrency 10 unless said" (GET /users/me is at 50) and compares each figure with a yardstick measured in the same
 * run: the bare fastify route at the same concurrency, or the argon2id hash rate; issue 16's item read is at 50.
 * `npm run bench` prints the verdicts of the loads it runs; bench:list and the permission-check bench print theirs.
 */

/** The yardsticks of one run. */
export interface Yardsticks {
  /** Requests/s of the bare fastify route at the scenario's concurrency. */
  readonly bareRps: number;
  /** argon2id hashes/s with the auth service's parameters (the mean of the rates measured during the run). */
  readonly argon2Rate: number;
}

export interface Measured {
  readonly rps: number;
  readonly p99: number;
}

export interface LoadTarget {
  readonly issue: number;
  /** Concurrent connections the issue measures the scenario at. */
  readonly concurrency: number;
  readonly text: string;
  met(measured: Measured, yardsticks: Yardsticks): boolean;
}

/** `npm run bench` scenarios (the names of `--only`) that have a target. */
export const LOAD_TARGETS: Readonly<Record<string, LoadTarget>> = {
  me: { issue: 19, concurrency: 50, text: ">= 1/4 of the bare route and p99 < 20 ms", met: (m, y) => m.rps * 4 >= y.bareRps && m.p99 < 20 },
  refresh: { issue: 19, concurrency: 10, text: ">= 1/12 of the bare route", met: (m, y) => m.rps * 12 >= y.bareRps },
  "sign-in": { issue: 19, concurrency: 10, text: ">= 0.85 of the argon2id hash rate", met: (m, y) => m.rps >= 0.85 * y.argon2Rate },
  "sign-up": { issue: 19, concurrency: 10, text: ">= 0.6 of the argon2id hash rate", met: (m, y) => m.rps >= 0.6 * y.argon2Rate },
  "get-item": { issue: 16, concurrency: 50, text: "p99 < 10 ms", met: (m) => m.p99 < 10 },
};

/** Concurrency of scenarios without a target (the users page of `npm run bench`, measured at a few users). */
export const DEFAULT_CONCURRENCY = 10;

/** p99 targets (ms) of the single-call benches: one call at a time, so a p99 is the whole target. */
export const LATENCY_TARGETS = {
  /** bench:list at 1,000,000 users (issue 19). */
  usersPage: 10,
  usersSearch: 20,
  /** The permission-check bench at 10,000 members (issue 19). */
  permissionCheck: 2,
} as const;

export function verdict(met: boolean): string {
  return met ? "met" : "NOT met";
}
