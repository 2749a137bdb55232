import { int, readConfig, str, type ConfigOf } from "@vestibule/shared/config";

/**
 * The default retry schedule: the delays after the 1st, 2nd, ... failed attempt (5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h: eight attempts over about 27 hours), each stretched or shrunk by up to ±20% jitter so that the retries of many
 * messages to one endpoint that came back do not arrive together.
 */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

function scheduleProblem(value: string): string | null {
  const parts = value.split(",").map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) return "a comma-separated list of positive millisecond delays";
  return null;
}

/** Settings of webhook delivery (environment variables, read once at start). */
export const webhookConfigSpec = {
  retryScheduleMs: str("VESTIBULE_WEBHOOK_RETRY_SCHEDULE_MS", "delays (ms, comma-separated) before each retry of a failed webhook delivery", {
    default: DEFAULT_RETRY_SCHEDULE_MS.join(","),
    check: scheduleProblem,
  }),
  timeoutMs: int("VESTIBULE_WEBHOOK_TIMEOUT_MS", "time limit of one webhook request (connect to end of the answer)", { default: 10_000, min: 100, max: 120_000 }),
  concurrency: int("VESTIBULE_WEBHOOK_CONCURRENCY", "webhook requests in flight per replica", { default: 32, min: 1, max: 1024 }),
  endpointConcurrency: int("VESTIBULE_WEBHOOK_ENDPOINT_CONCURRENCY", "webhook requests in flight per endpoint and replica", { default: 4, min: 1, max: 64 }),
  leaseMs: int("VESTIBULE_WEBHOOK_LEASE_MS", "how long a claimed message stays with its replica before another may retry it (> timeout)", {
    default: 60_000,
    min: 200,
    max: 3_600_000,
  }),
  pollMs: int("VESTIBULE_WEBHOOK_POLL_MS", "how often due webhook messages are looked for when no notification arrives", { default: 1_000, min: 10, max: 60_000 }),
  disableAfterMs: int("VESTIBULE_WEBHOOK_DISABLE_AFTER_MS", "an endpoint failing without a success for this long is disabled and its owners e-mailed", {
    default: 5 * 86_400_000,
    min: 1,
    max: 365 * 86_400_000,
  }),
  secretOverlapMs: int("VESTIBULE_WEBHOOK_SECRET_OVERLAP_MS", "how long the previous signing secret stays valid after a rotation", {
    default: 86_400_000,
    min: 0,
    max: 30 * 86_400_000,
  }),
  retentionDays: int("VESTIBULE_WEBHOOK_RETENTION_DAYS", "days delivery attempts and finished messages are kept", { default: 30, min: 1, max: 3650 }),
  pruneIntervalMs: int("VESTIBULE_WEBHOOK_PRUNE_INTERVAL_MS", "how often old attempts and messages are pruned", { default: 3_600_000, min: 1_000, max: 86_400_000 }),
};

export type WebhookConfig = ConfigOf<typeof webhookConfigSpec>;

export function readWebhookConfig(env: Readonly<Record<string, string | undefined>>): WebhookConfig {
  return readConfig(webhookConfigSpec, env);
}

export function retrySchedule(config: WebhookConfig): number[] {
  return config.retryScheduleMs.split(",").map((p) => Number(p.trim()));
}

/** Delay before the retry after failed attempt number `attempts` (from 1), ±20% jitter; undefined = no retry left. */
export function retryDelayAfter(schedule: readonly number[], attempts: number, random = Math.random): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (0.8 + 0.4 * random()));
}
