/** Durations of the payments config: `[count, unit]` (free trials, price intervals, included-item repeats). */
export const DURATION_UNITS = ["millisecond", "second", "minute", "hour", "day", "week", "month", "year"] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];
export type Duration = readonly [number, DurationUnit];

const FIXED_MS: Partial<Record<DurationUnit, number>> = {
  millisecond: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};

/** A `[count, unit]` with a non-negative integer count and a known unit, else undefined. */
export function parseDuration(value: unknown): Duration | undefined {
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [count, unit] = value as [unknown, unknown];
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) return undefined;
  if (typeof unit !== "string" || !(DURATION_UNITS as readonly string[]).includes(unit)) return undefined;
  return [count, unit as DurationUnit];
}

/** `date` plus `times` × the duration (calendar months and years; the others fixed lengths). */
export function addDuration(date: Date, [count, unit]: Duration, times = 1): Date {
  const fixed = FIXED_MS[unit];
  if (fixed !== undefined) return new Date(date.getTime() + fixed * count * times);
  const d = new Date(date.getTime());
  d.setUTCMonth(d.getUTCMonth() + count * times * (unit === "year" ? 12 : 1));
  return d;
}

/** How many whole durations fit between `from` and `to` (0 when the duration is empty or `to` is not after `from`). */
export function wholeDurationsBetween(from: Date, to: Date, duration: Duration): number {
  if (duration[0] === 0 || to.getTime() <= from.getTime()) return 0;
  const fixed = FIXED_MS[duration[1]];
  if (fixed !== undefined) return Math.floor((to.getTime() - from.getTime()) / (fixed * duration[0]));
  let n = Math.floor((to.getTime() - from.getTime()) / (28 * 86_400_000 * duration[0] * (duration[1] === "year" ? 12 : 1)));
  while (n > 0 && addDuration(from, duration, n).getTime() > to.getTime()) n--;
  while (addDuration(from, duration, n + 1).getTime() <= to.getTime()) n++;
  return n;
}
