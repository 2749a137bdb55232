/**
 * The users table's sort orders and filters, as the list-users endpoint answers them (GET /users: order_by
 * signed_up_at | last_active_at, desc, include_restricted, include_anonymous, only_anonymous). Filters the endpoint
 * cannot answer (verified e-mail, MFA, sign-in method, sign-up dates) are not offered: filtering one page in the
 * browser would show short or empty pages while matching users exist further on.
 */
import type { ServerListUsersOptions } from "@vestibule/js";

export const SORTS = [
  { value: "signed-up-desc", label: "Newest sign-ups first" },
  { value: "signed-up-asc", label: "Oldest sign-ups first" },
  { value: "active-desc", label: "Recently active first" },
  { value: "active-asc", label: "Least recently active first" },
] as const;

export const FILTERS = [
  { value: "all", label: "All users (restricted included)" },
  { value: "unrestricted", label: "Unrestricted users only" },
  { value: "with-anonymous", label: "All users and anonymous users" },
  { value: "anonymous", label: "Anonymous users only" },
] as const;

export type SortValue = (typeof SORTS)[number]["value"];
export type FilterValue = (typeof FILTERS)[number]["value"];

export const isSort = (v: string | null): v is SortValue => SORTS.some((s) => s.value === v);
export const isFilter = (v: string | null): v is FilterValue => FILTERS.some((f) => f.value === v);

/** The SDK options of one sort order and filter (the page's cursor, limit and search come on top). */
export function listOptions(sort: SortValue, filter: FilterValue): ServerListUsersOptions {
  const order: ServerListUsersOptions = {
    orderBy: sort.startsWith("active") ? "lastActiveAt" : "signedUpAt",
    desc: sort.endsWith("desc"),
  };
  switch (filter) {
    case "all":
      return { ...order, includeRestricted: true };
    case "unrestricted":
      return order;
    case "with-anonymous":
      return { ...order, includeAnonymous: true };
    case "anonymous":
      return { ...order, onlyAnonymous: true };
  }
}
