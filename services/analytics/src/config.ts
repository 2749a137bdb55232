import { int, readConfig, type ConfigOf } from "@vestibule/shared/config";

/**
 * Settings of the analytics service beyond the common ones (environment variables, read once at start). The quotas
 * bound what one session (and one whole project) can store, so the public ingestion endpoints cannot fill the disk;
 * sizes are of the decoded (uncompressed) JSON.
 */
export const analyticsConfigSpec = {
  retentionDays: int("VESTIBULE_ANALYTICS_RETENTION_DAYS", "days analytics events are kept", { default: 90, min: 1, max: 3650 }),
  replayRetentionDays: int("VESTIBULE_ANALYTICS_REPLAY_RETENTION_DAYS", "days session replays are kept", { default: 30, min: 1, max: 3650 }),
  sessionEventsPerMinute: int("VESTIBULE_ANALYTICS_SESSION_EVENTS_PER_MINUTE", "events one session may send per minute", {
    default: 1_200,
    min: 1,
    max: 1_000_000,
  }),
  sessionBytesPerMinute: int("VESTIBULE_ANALYTICS_SESSION_BYTES_PER_MINUTE", "event bytes one session may send per minute", {
    default: 2_000_000,
    min: 1_000,
    max: 1_000_000_000,
  }),
  sessionReplayBytesPerMinute: int("VESTIBULE_ANALYTICS_SESSION_REPLAY_BYTES_PER_MINUTE", "replay bytes one session may send per minute", {
    default: 20_000_000,
    min: 1_000,
    max: 1_000_000_000,
  }),
  projectBytesPerDay: int("VESTIBULE_ANALYTICS_PROJECT_BYTES_PER_DAY", "event and replay bytes one project may store per day (UTC)", {
    default: 2_000_000_000,
    min: 1_000,
    max: Number.MAX_SAFE_INTEGER,
  }),
  janitorIntervalMs: int("VESTIBULE_ANALYTICS_JANITOR_INTERVAL_MS", "how often expired events, replays and quota windows are deleted", {
    default: 3_600_000,
    min: 100,
    max: 86_400_000,
  }),
};

export type AnalyticsConfig = ConfigOf<typeof analyticsConfigSpec>;

export function readAnalyticsConfig(env: Readonly<Record<string, string | undefined>>): AnalyticsConfig {
  return readConfig(analyticsConfigSpec, env);
}
