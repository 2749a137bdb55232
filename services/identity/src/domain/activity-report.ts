/**
 * The overview's activity report (issue 21): sign-ups and active users per day, week or month over a date range, and
 * weekly retention cohorts, assembled from the store's rows. Days are UTC calendar dates (YYYY-MM-DD); weeks are ISO
 * weeks (Monday first), as PostgreSQL's date_trunc('week') counts them.
 */
import type { CohortRow, DailyStatRow } from "../store/user-activity-store.ts";
import { utcDay } from "./users.ts";

export const GRANULARITIES = ["day", "week", "month"] as const;
export type Granularity = (typeof GRANULARITIES)[number];

const DAY_MS = 86_400_000;
const ms = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** The first day of the day, ISO week or month that `day` falls in. */
export function bucketStart(day: string, granularity: Granularity): string {
  if (granularity === "day") return day;
  if (granularity === "month") return `${day.slice(0, 7)}-01`;
  const weekday = (new Date(ms(day)).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return utcDay(ms(day) - weekday * DAY_MS);
}

/** Every bucket from the one holding `from` to the one holding `to`, oldest first. */
export function bucketStarts(from: string, to: string, granularity: Granularity): string[] {
  const out: string[] = [];
  const last = bucketStart(to, granularity);
  for (let start = bucketStart(from, granularity); start <= last; ) {
    out.push(start);
    if (granularity === "month") {
      const d = new Date(ms(start));
      start = utcDay(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
    } else start = utcDay(ms(start) + (granularity === "week" ? 7 : 1) * DAY_MS);
  }
  return out;
}

/** Whole weeks from the ISO week `from` to the ISO week `to` (both Mondays). */
export function weeksBetween(from: string, to: string): number {
  return Math.round((ms(to) - ms(from)) / (7 * DAY_MS));
}

export interface ActivityBucket {
  readonly start: string;
  readonly sign_ups: number;
  readonly active_users: number;
}

export interface RetentionCohort {
  /** Monday of the week its users signed up in. */
  readonly week: string;
  readonly users: number;
  /** For each later week up to the current one (offset 1 = the week after sign-up): users active then, and their share. */
  readonly retained: ReadonlyArray<{ readonly offset: number; readonly users: number; readonly share: number }>;
}

export interface ActivityReport {
  readonly granularity: Granularity;
  readonly from: string;
  readonly to: string;
  readonly buckets: readonly ActivityBucket[];
  readonly retention: readonly RetentionCohort[];
}

/**
 * Sums the daily sign-ups into buckets (the range widened to whole buckets), places the distinct active users per
 * bucket, and turns cohort rows into shares; every bucket and every week up to `to` is present, zero when empty.
 */
export function activityReport(input: {
  readonly from: string;
  readonly to: string;
  readonly granularity: Granularity;
  readonly daily: readonly DailyStatRow[];
  readonly active: ReadonlyArray<{ readonly start: string; readonly users: number }>;
  readonly cohorts: readonly CohortRow[];
}): ActivityReport {
  const { from, to, granularity } = input;
  const signUps = new Map<string, number>();
  for (const d of input.daily) {
    const start = bucketStart(d.day, granularity);
    signUps.set(start, (signUps.get(start) ?? 0) + d.sign_ups);
  }
  const active = new Map(input.active.map((a) => [a.start, a.users]));
  const buckets = bucketStarts(from, to, granularity).map((start) => ({ start, sign_ups: signUps.get(start) ?? 0, active_users: active.get(start) ?? 0 }));

  const currentWeek = bucketStart(to, "week");
  const retention: RetentionCohort[] = [];
  for (const week of bucketStarts(from, to, "week")) {
    const users = input.cohorts.find((c) => c.week === week && c.active_week === null)?.users ?? 0;
    const retained = [];
    for (let offset = 1; offset <= weeksBetween(week, currentWeek); offset++) {
      const activeWeek = utcDay(ms(week) + offset * 7 * DAY_MS);
      const n = input.cohorts.find((c) => c.week === week && c.active_week === activeWeek)?.users ?? 0;
      retained.push({ offset, users: n, share: users === 0 ? 0 : n / users });
    }
    retention.push({ week, users, retained });
  }
  return { granularity, from, to, buckets, retention };
}
