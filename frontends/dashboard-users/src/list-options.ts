/**
 * The users table's sort orders and filters, as the list-users endpoint answers them (GET /users: order_by
 * signed_up_at | last_active_at, desc, include_restricted, include_anonymous, only_anonymous, and the Vestibule
 * extensions only_restricted, email_verified, has_mfa, auth_method, signed_up_after/before_millis). The endpoint
 * filters, not the browser: filtering one page here would show short or empty pages while matches exist further on.
 */
import type { ServerListUsersOptions } from "@vestibule/js";

export const SORTS = [
  { value: "signed-up-desc", label: "Newest sign-ups first" },
  { value: "signed-up-asc", label: "Oldest sign-ups first" },
  { value: "active-desc", label: "Recently active first" },
  { value: "active-asc", label: "Least recently active first" },
] as const;

export const SHOW = [
  { value: "all", label: "All users (restricted included)" },
  { value: "restricted", label: "Restricted users only" },
  { value: "unrestricted", label: "Unrestricted users only" },
  { value: "with-anonymous", label: "All users and anonymous users" },
  { value: "anonymous", label: "Anonymous users only" },
] as const;

export const EMAIL = [
  { value: "any", label: "Any" },
  { value: "verified", label: "Verified" },
  { value: "unverified", label: "Not verified" },
] as const;

export const MFA = [
  { value: "any", label: "Any" },
  { value: "on", label: "On" },
  { value: "off", label: "Off" },
] as const;

export const METHODS = [
  { value: "any", label: "Any" },
  { value: "password", label: "Password" },
  { value: "otp", label: "E-mail code" },
  { value: "passkey", label: "Passkey" },
  { value: "oauth", label: "OAuth provider" },
] as const;

type Value<T extends readonly { value: string }[]> = T[number]["value"];
export type SortValue = Value<typeof SORTS>;

export interface TableFilters {
  readonly show: Value<typeof SHOW>;
  readonly email: Value<typeof EMAIL>;
  readonly mfa: Value<typeof MFA>;
  readonly method: Value<typeof METHODS>;
  /** Signed up on or after this day (YYYY-MM-DD, the owner's time zone); "" = any. */
  readonly from: string;
  /** Signed up on or before this day; "" = any. */
  readonly to: string;
}

export const NO_FILTERS: TableFilters = { show: "all", email: "any", mfa: "any", method: "any", from: "", to: "" };

/** Whether `v` is one of `options`' values (a select's value, a value from the address). */
export const isOption = <T extends readonly { value: string }[]>(options: T, v: string | null): v is Value<T> => options.some((o) => o.value === v);

/** Local midnight of a YYYY-MM-DD day, `days` later; undefined for an empty or malformed day. */
function dayStart(day: string, days = 0): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The sentence for sign-up dates that cannot match, else null. */
export function dateRangeError(f: Pick<TableFilters, "from" | "to">): string | null {
  const from = dayStart(f.from);
  const to = dayStart(f.to);
  return from && to && from > to ? "The end date is before the start date." : null;
}

/** The SDK options of one sort order and the filters (the page's cursor, limit and search come on top). */
export function listOptions(sort: SortValue, f: TableFilters): ServerListUsersOptions {
  const options: ServerListUsersOptions = {
    orderBy: sort.startsWith("active") ? "lastActiveAt" : "signedUpAt",
    desc: sort.endsWith("desc"),
    ...(f.show === "all" ? { includeRestricted: true } : {}),
    ...(f.show === "restricted" ? { onlyRestricted: true } : {}),
    ...(f.show === "with-anonymous" ? { includeAnonymous: true } : {}),
    ...(f.show === "anonymous" ? { onlyAnonymous: true } : {}),
    ...(f.email !== "any" ? { emailVerified: f.email === "verified" } : {}),
    ...(f.mfa !== "any" ? { hasMfa: f.mfa === "on" } : {}),
    ...(f.method !== "any" ? { authMethod: f.method } : {}),
  };
  const after = dayStart(f.from);
  // The end day is included: up to the next day's midnight.
  const before = dayStart(f.to, 1);
  if (after) options.signedUpAfter = after;
  if (before) options.signedUpBefore = before;
  return options;
}
