/**
 * Pure rules about users and contact channels: input normalisation, metadata texts, search patterns, sign-in methods
 * and the aggregate deltas that keep the metrics tables in step with the users table.
 */

/** E-mails are compared and stored trimmed and lower-cased: the one rule, shared with the other services. */
export { normalizeEmail } from "@vestibule/shared/emails";

/** `""` display names are stored as null. */
export function normalizeDisplayName(name: string | undefined | null): string | null {
  return name ? name : null;
}

/**
 * A metadata field arrives as a JSON text: "" or "null" mean null; anything else must be valid JSON. Returns the text
 * to store (canonical JSON, or null). Throws a message naming the field when it is not JSON.
 */
export function parseMetadataJson(text: string | undefined, field: string): string | null {
  if (text === undefined || text === "" || text === "null") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MetadataError(`${field} is not valid JSON`);
  }
  return value === null ? null : JSON.stringify(value);
}

export class MetadataError extends Error {
  override readonly name = "MetadataError";
}

/** A LIKE pattern matching `query` as a case-insensitive substring (wildcards in the query match literally). */
export function substringPattern(query: string): string {
  return `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The credential flags that decide which sign-in methods a user has. */
export interface LoginMethodFlags {
  readonly hasPassword: boolean;
  readonly otpAuthEnabled: boolean;
  readonly passkeyAuthEnabled: boolean;
  readonly oauthProviderIds: readonly string[];
}

/** Sign-in methods of a user as the metrics count them: "password", "otp", "passkey" and each OAuth provider id. */
export function loginMethodsOf(flags: LoginMethodFlags): string[] {
  const methods = new Set<string>();
  for (const id of flags.oauthProviderIds) if (id) methods.add(id.toLowerCase());
  if (flags.hasPassword) methods.add("password");
  if (flags.passkeyAuthEnabled) methods.add("passkey");
  if (flags.otpAuthEnabled) methods.add("otp");
  return [...methods].sort();
}

/** What of a user the aggregates depend on. */
export interface UserAggregateKey {
  readonly projectId: string;
  /** UTC date of sign-up, YYYY-MM-DD. */
  readonly signUpDay: string;
  readonly isAnonymous: boolean;
  readonly countryCode: string | null;
  readonly loginMethods: readonly string[];
}

export interface AggregateDeltas {
  /** [projectId, day, isAnonymous, delta] */
  readonly signUps: ReadonlyArray<readonly [string, string, boolean, number]>;
  /** [projectId, countryCode, isAnonymous, delta] */
  readonly countries: ReadonlyArray<readonly [string, string, boolean, number]>;
  /** [projectId, method, isAnonymous, delta] */
  readonly loginMethods: ReadonlyArray<readonly [string, string, boolean, number]>;
}

/**
 * The changes to the aggregate counters when a user goes from `before` to `after` (null = does not exist): create,
 * delete, anonymous upgrade, new sign-in methods. Zero deltas are dropped; rows come sorted so that concurrent
 * transactions lock aggregate rows in the same order.
 */
export function aggregateDeltas(before: UserAggregateKey | null, after: UserAggregateKey | null): AggregateDeltas {
  const signUps = new Map<string, [string, string, boolean, number]>();
  const countries = new Map<string, [string, string, boolean, number]>();
  const methods = new Map<string, [string, string, boolean, number]>();
  const add = (map: Map<string, [string, string, boolean, number]>, projectId: string, key: string, anon: boolean, d: number) => {
    const k = `${projectId}\u0000${key}\u0000${anon}`;
    const row = map.get(k) ?? [projectId, key, anon, 0];
    row[3] += d;
    map.set(k, row);
  };
  const apply = (u: UserAggregateKey, d: number) => {
    add(signUps, u.projectId, u.signUpDay, u.isAnonymous, d);
    if (u.countryCode) add(countries, u.projectId, u.countryCode, u.isAnonymous, d);
    for (const m of u.loginMethods) add(methods, u.projectId, m, u.isAnonymous, d);
  };
  if (before) apply(before, -1);
  if (after) apply(after, 1);
  const rows = (map: Map<string, [string, string, boolean, number]>) =>
    [...map.entries()]
      .filter(([, r]) => r[3] !== 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, r]) => r as readonly [string, string, boolean, number]);
  return { signUps: rows(signUps), countries: rows(countries), loginMethods: rows(methods) };
}

/** UTC calendar date (YYYY-MM-DD) of an instant. */
export function utcDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The `days` UTC dates ending today (oldest first), e.g. the 31 data points of the metrics' daily series. */
export function lastUtcDays(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const out: string[] = [];
  for (let i = days - 1; i >= 0; i--) out.push(utcDay(today - i * 86_400_000));
  return out;
}
