/** The overview charts' scale maths: round y-axis ticks, date labels of buckets, which x labels fit. */

import type { AdminActivityReport } from "@vestibule/js";

export type Granularity = AdminActivityReport["granularity"];

/** Y-axis ticks for counts from 0 to at least `max`: whole numbers on a 1-2-5 step, about `target` intervals. */
export function niceTicks(max: number, target = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude);
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += step) ticks.push(v);
  return ticks;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A short label of the bucket starting on the UTC day `start` (YYYY-MM-DD): "26 Nov", or "Nov 2026" for a month. */
export function bucketLabel(start: string, granularity: Granularity): string {
  const [y, m, d] = start.split("-").map(Number) as [number, number, number];
  return granularity === "month" ? `${MONTHS[m - 1]} ${y}` : `${d} ${MONTHS[m - 1]}`;
}

/** The bucket in words, for the hover value and the table: "26 Nov 2026", "week of 23 Nov 2026", "Nov 2026". */
export function bucketName(start: string, granularity: Granularity): string {
  const label = `${bucketLabel(start, "day")} ${start.slice(0, 4)}`;
  return granularity === "month" ? bucketLabel(start, "month") : granularity === "week" ? `week of ${label}` : label;
}

/** Indexes of at most `max` of `count` x-axis labels, as evenly spaced as whole bars allow, the first and the last included. */
export function labelIndexes(count: number, max: number): number[] {
  const n = Math.min(count, Math.max(1, max));
  if (n <= 0) return [];
  if (n === 1) return [count - 1];
  return Array.from({ length: n }, (_, k) => Math.round((k * (count - 1)) / (n - 1)));
}
