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

export interface LatencyTarget {
  /** p99 under this many ms (one call at a time, so the p99 is the whole target). */
  readonly p99Ms: number;
  /** The scale it holds at: users in the project (bench:list) or members of the team (permission-check bench). */
  readonly at: number;
}

/** Issue 19's targets for the single-call benches. */
export const LATENCY_TARGETS = {
  usersPage: { p99Ms: 10, at: 1_000_000 },
  usersSearch: { p99Ms: 20, at: 1_000_000 },
  permissionCheck: { p99Ms: 2, at: 10_000 },
} as const satisfies Record<string, LatencyTarget>;

/** What a verdict line adds when the run was smaller than the target's scale. */
export function scaleNote(target: LatencyTarget, measuredAt: number, unit: string): string {
  return measuredAt >= target.at ? "" : ` (the target is at ${target.at.toLocaleString("en-US")} ${unit}; this run has ${measuredAt.toLocaleString("en-US")})`;
}

export function verdict(met: boolean): string {
  return met ? "met" : "NOT met";
}
