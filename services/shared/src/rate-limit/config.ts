import { int, oneOf, type ConfigOf } from "../config/index.ts";

/**
 * The environment settings of one service's brute-force protection, all named `VESTIBULE_<SERVICE>_RATE_LIMIT*`
 * (e.g. `rateLimitConfigSpec("AUTH")`: VESTIBULE_AUTH_RATE_LIMIT, VESTIBULE_AUTH_RATE_LIMIT_ACCOUNT_FAILURES, ...). On
 * by default; an account's windows are short and grow, a client IP has a daily bucket (backoff.ts). Spread it into the
 * service's own config spec.
 */
export function rateLimitConfigSpec(service: string) {
  const name = (suffix: string) => `VESTIBULE_${service}_RATE_LIMIT${suffix}`;
  return {
    rateLimitEnabled: oneOf(name(""), "brute-force protection (on/off)", ["on", "off"], "on"),
    accountThreshold: int(name("_ACCOUNT_FAILURES"), "failures per account (project + account + method) before the first block", {
      default: 5,
      min: 1,
      max: 1000,
    }),
    ipFailuresPerDay: int(
      name("_IP_FAILURES"),
      "failures per client IP and project per day (a bucket refilling over 24 h) for projects without auth.ipFailuresPerDay",
      { default: 100, min: 1, max: 1_000_000 },
    ),
    baseSeconds: int(name("_BASE_SECONDS"), "first block window in seconds; each further failure doubles it", { default: 1, min: 1, max: 3600 }),
    maxSeconds: int(name("_MAX_SECONDS"), "longest block window in seconds", { default: 60, min: 1, max: 86_400 }),
    resetSeconds: int(name("_RESET_SECONDS"), "failures are forgotten after this many seconds without one", { default: 900, min: 1, max: 86_400 * 30 }),
  };
}

/** What RateLimiter needs (a service's config read with `rateLimitConfigSpec` has these fields). */
export type RateLimitSettings = ConfigOf<ReturnType<typeof rateLimitConfigSpec>>;

/**
 * A project's own per-IP failure budget per day, `auth.ipFailuresPerDay` of its rendered config (identity validates
 * it, 10 to 1,000,000); undefined when it set none (the service's `ipFailuresPerDay` applies) or it is malformed.
 */
export function ipFailuresPerDayFromRendered(rendered: unknown): number | undefined {
  const auth = typeof rendered === "object" && rendered !== null ? (rendered as { auth?: unknown }).auth : undefined;
  const n = typeof auth === "object" && auth !== null ? (auth as { ipFailuresPerDay?: unknown }).ipFailuresPerDay : undefined;
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : undefined;
}
