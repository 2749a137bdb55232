/**
 * Listing users: keyset pages in sign-up or activity order, substring search on two access paths (see SEARCH_SAMPLE),
 * and the recent-users lists of the metrics page. Part of userStore (user-store.ts).
 */
import { createHash } from "node:crypto";
import { LoadingCache } from "@vestibule/shared/cache";
import type { Pool, Queryable } from "@vestibule/shared/db";
import type { SearchPools } from "./search-pools.ts";
import { SELECT_USER, selectShownUsers, type ShownUserRow, type UserRow } from "./user-rows.ts";
import { substringPattern } from "../domain/users.ts";

export interface ListUsersQuery {
  readonly projectId: string;
  /** 0 = everything. */
  readonly limit: number;
  /**
   * The first user of the page (inclusive): the page starts at this user's position in the listing order. A cursor
   * user that is not in the project (deleted between two pages) gives an empty page.
   */
  readonly cursor?: string;
  readonly desc: boolean;
  /** Case-insensitive substring of the display name or of a contact channel value (search_text), if searching. */
  readonly search?: string;
  /** A query that is a UUID also matches that user id exactly. */
  readonly exactId?: string;
  readonly includeAnonymous: boolean;
  readonly userIds?: readonly string[];
  /** Only anonymous users. */
  readonly onlyAnonymous?: boolean;
  /**
   * Leave restricted users out (@vestibule/shared/restriction): admin-restricted ones, and, where the project requires
   * verified e-mails, those without a verified primary e-mail. Anonymous users are governed by includeAnonymous.
   */
  readonly excludeRestricted?: { readonly requireEmailVerification: boolean };
  /** Listing order: sign-up time (default) or last activity (sign-up time until the user is seen again). */
  readonly orderBy?: "signed_up_at" | "last_active_at";
  /** Filters of the dashboard's users table. */
  readonly filters?: UserFilters;
}

export type AuthMethod = "password" | "otp" | "passkey" | "oauth";

export interface UserFilters {
  /** Whether the primary e-mail is verified (false includes users without one). */
  readonly emailVerified?: boolean;
  /** Whether two-factor (TOTP) is on. */
  readonly hasMfa?: boolean;
  /** A sign-in method the user has. */
  readonly authMethod?: AuthMethod;
  /** Signed up at or after / before these instants (ISO strings). */
  readonly signedUpAfter?: string;
  readonly signedUpBefore?: string;
  /** Only restricted users (restrictionConditions negated); anonymous ones are governed by includeAnonymous. */
  readonly onlyRestricted?: { readonly requireEmailVerification: boolean };
}

const AUTH_METHOD_CONDITIONS: Record<AuthMethod, string> = {
  password: "u.has_password",
  otp: "u.otp_auth_enabled",
  passkey: "u.passkey_auth_enabled",
  oauth: "jsonb_array_length(u.oauth_providers) > 0",
};

/** The sort key of a listing, as an expression on users u. */
function sortKey(q: ListUsersQuery, alias: string): string {
  return q.orderBy === "last_active_at"
    ? `coalesce((SELECT x.last_active_at FROM user_activity x WHERE x.user_id = ${alias}.id), ${alias}.signed_up_at)`
    : `${alias}.signed_up_at`;
}

/** Listing users (spread into userStore). */
export const userListing = {
  /**
   * A page of users in sign-up order: `limit + 1` rows when there are more (the extra one is the next page's first).
   * Without a search, one walk of the sign-up index. With one, see SEARCH_SAMPLE.
   */
  async list(pool: Pool, q: ListUsersQuery, searchPools?: SearchPools): Promise<ShownUserRow[]> {
    if (q.search === undefined && q.exactId === undefined) {
      const { text, values } = pageStatement(q);
      const { rows } = await pool.query<ShownUserRow>(text, values);
      return rows;
    }
    const page = new PageQuery(q);
    let ids: string[] = [];
    if (q.search !== undefined && q.limit === 0) {
      ids = await searchIds(pool, q, q.search);
    } else if (q.search !== undefined) {
      if (!searchPools) throw new Error("a paginated search needs the search pools");
      let searchPool = searchPools.trigram;
      const known = searchPaths.peek(searchPathKey(q, q.search));
      if (known) {
        searchPool = known === "walk" ? searchPools.walk : searchPools.trigram;
      } else if (q.exactId === undefined && !looksRare(q.search)) {
        // Filter the next SEARCH_SAMPLE users in order; execution stops as soon as the page is full.
        const sample = new PageQuery(q);
        const text = sample.select(`(SELECT w.* FROM (SELECT * FROM users u WHERE ${sample.where()} ${sample.order("u")} LIMIT ${sample.param(SEARCH_SAMPLE)}) w
                          WHERE w.search_text LIKE ${sample.param(substringPattern(q.search))} ${sample.order("w")} ${sample.limit()}) u`);
        const { rows } = await pool.query<ShownUserRow>({ name: statementName("identity_search_sample", text), text, values: sample.params });
        if (rows.length > q.limit) return rows;
        // Not full: the whole sample was read and these are all its matches, which tell how common the term is.
        const path = rows.length >= SEARCH_WALK_MIN_MATCHES ? "walk" : "trigram";
        searchPaths.set(searchPathKey(q, q.search), path);
        searchPool = path === "walk" ? searchPools.walk : searchPools.trigram;
      }
      // The page itself, in one statement on the pinned connections (unless an id must join the matches).
      if (q.exactId === undefined) return searchPage(searchPool, q, q.search, searchPool === searchPools.trigram);
      ids = await searchIds(searchPool, q, q.search, searchPool === searchPools.trigram);
    }
    // A query that is a user id also matches that user (when it is in the listing and at or after the cursor).
    if (q.exactId !== undefined && !ids.includes(q.exactId)) ids.push(q.exactId);
    if (ids.length === 0) return [];
    // Looked up by primary key (a walk of the listing filtered by id could read far more rows).
    const byId = page.param(ids);
    const { rows } = await pool.query<ShownUserRow>(
      page.select(`(SELECT u.* FROM unnest(${byId}::uuid[]) AS x(id) JOIN users u ON u.id = x.id
                    WHERE ${page.where()} ${page.order("u")} ${page.limit()}) u`),
      page.params,
    );
    return rows;
  },

  /** The most recently signed-up users. */
  async recentlyRegistered(pool: Pool, projectId: string, includeAnonymous: boolean, limit: number): Promise<ShownUserRow[]> {
    const rows = await userListing.list(pool, { projectId, limit, desc: true, includeAnonymous });
    return rows.slice(0, limit);
  },

  /** The most recently active users (by recorded activity). */
  async recentlyActive(db: Queryable, projectId: string, includeAnonymous: boolean, limit: number): Promise<UserRow[]> {
    const { rows } = await db.query<UserRow>(
      `${SELECT_USER}
        JOIN (SELECT r.user_id FROM user_activity r JOIN users x ON x.id = r.user_id
               WHERE r.project_id = $1${includeAnonymous ? "" : " AND NOT x.is_anonymous"}
               ORDER BY r.last_active_at DESC LIMIT $2) recent ON recent.user_id = u.id
       ORDER BY a.last_active_at DESC, u.id`,
      [projectId, limit],
    );
    return rows;
  },
};

/**
 * The statement of a page without a search: one walk of the listing's index from the cursor's position, the page's
 * channels and activity joined to its rows only. Planned per page, not prepared: a generic plan cannot see the LIMIT
 * and would join the whole contact_channels table.
 */
export function pageStatement(q: ListUsersQuery): { text: string; values: unknown[] } {
  const page = new PageQuery(q);
  return { text: page.select(`(SELECT * FROM users u WHERE ${page.where()} ${page.order("u")} ${page.limit()}) u`), values: page.params };
}

/**
 * The SQL side of restrictionOf (@vestibule/shared/restriction) for non-anonymous users: not restricted by an admin,
 * and with a verified primary e-mail where the project requires one.
 */
function restrictionConditions(requireEmailVerification: boolean): string[] {
  const conditions = ["NOT u.restricted_by_admin"];
  if (requireEmailVerification) {
    conditions.push("EXISTS (SELECT 1 FROM contact_channels v WHERE v.user_id = u.id AND v.is_primary AND v.is_verified)");
  }
  return conditions;
}

/** Builds the SQL of one listing request: parameters, the listing's conditions, its order and limit. */
class PageQuery {
  readonly params: unknown[];
  private readonly conditions: string[];
  private readonly dir: "ASC" | "DESC";

  constructor(private readonly q: ListUsersQuery) {
    this.params = [q.projectId];
    this.dir = q.desc ? "DESC" : "ASC";
    this.conditions = ["u.project_id = $1"];
    if (!q.includeAnonymous) this.conditions.push("NOT u.is_anonymous");
    if (q.onlyAnonymous) this.conditions.push("u.is_anonymous");
    if (q.excludeRestricted) this.conditions.push(...restrictionConditions(q.excludeRestricted.requireEmailVerification));
    if (q.userIds) this.conditions.push(`u.id = ANY(${this.param(q.userIds)}::uuid[])`);
    if (q.filters) this.conditions.push(...this.filterConditions(q.filters));
    // Keyset: the page starts at the cursor user (inclusive). Its position is read in the same statement (an InitPlan
    // the index scan starts from), which saves a round trip per page; NULL when it is not in the project, so no rows.
    if (q.cursor !== undefined) {
      const cursor = this.param(q.cursor);
      const at = `(SELECT ${sortKey(q, "c")} FROM users c WHERE c.project_id = $1 AND c.id = ${cursor}::uuid), ${cursor}::uuid`;
      this.conditions.push(`(${sortKey(q, "u")}, u.id) ${q.desc ? "<=" : ">="} (${at})`);
    }
  }

  /**
   * The conditions of the table filters. The listing walks its order index and stops once the page is full, so a rare
   * filter reads more rows per page; these are admin-only listings.
   */
  private filterConditions(f: UserFilters): string[] {
    const out: string[] = [];
    const verified = "EXISTS (SELECT 1 FROM contact_channels v WHERE v.user_id = u.id AND v.is_primary AND v.is_verified)";
    if (f.emailVerified !== undefined) out.push(f.emailVerified ? verified : `NOT ${verified}`);
    if (f.hasMfa !== undefined) out.push(f.hasMfa ? "u.requires_totp_mfa" : "NOT u.requires_totp_mfa");
    if (f.authMethod) out.push(AUTH_METHOD_CONDITIONS[f.authMethod]);
    if (f.signedUpAfter) out.push(`u.signed_up_at >= ${this.param(f.signedUpAfter)}::timestamptz`);
    if (f.signedUpBefore) out.push(`u.signed_up_at < ${this.param(f.signedUpBefore)}::timestamptz`);
    if (f.onlyRestricted) out.push(`(u.is_anonymous OR NOT (${restrictionConditions(f.onlyRestricted.requireEmailVerification).join(" AND ")}))`);
    return out;
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  where(...extra: string[]): string {
    return [...this.conditions, ...extra].join(" AND ");
  }

  order(alias: string): string {
    return `ORDER BY ${sortKey(this.q, alias)} ${this.dir}, ${alias}.id ${this.dir}`;
  }

  limit(): string {
    return this.q.limit > 0 ? `LIMIT ${this.param(this.q.limit + 1)}` : "";
  }

  /**
   * The page's rows with their primary channel and activity. `source` is the page, a LIMIT subquery aliased u: cut
   * from users alone (the LIMIT is a fence), so the joins apply to its rows only, even when it comes from sorting
   * many search matches.
   */
  select(source: string): string {
    return `${selectShownUsers(source)} ${this.order("u")}`;
  }
}

/**
 * Search access paths. The planner estimates how common a substring is from a histogram, often several times off near
 * the point where walking the sign-up index and reading the trigram index cost the same (tens of milliseconds either
 * way at a million users when it picks wrong). So a paginated search first filters the next SEARCH_SAMPLE users in
 * order, which serves common terms outright (the page fills long before the sample ends) and otherwise measures the
 * term's frequency; the rest is then searched on connections pinned to one access path (store/search-pools.ts):
 * - "walk": the sign-up index, filtered, stopping when the page is full; reads about limit / rate rows, sequentially
 *   (the heap is in sign-up order);
 * - "trigram": the trigram index finds every match, which are sorted; reads every match (and false positive) at a
 *   random heap position, roughly 20 times dearer per row.
 * The two cost the same near rate² = 5 / users (0.22 % at a million users), hence SEARCH_WALK_MIN_MATCHES.
 */
const SEARCH_SAMPLE = 5_000;
const SEARCH_WALK_MIN_MATCHES = 11;

/**
 * The access path the sample chose for a term, remembered for a while per process (terms do not change frequency from
 * one minute to the next): the next pages of a search and repeated searches skip the sample. Only a performance hint;
 * both paths return the same rows.
 */
const searchPaths = new LoadingCache<"walk" | "trigram">(() => Promise.reject(new Error("searchPaths is filled with set()")), { ttlMs: 10 * 60_000, maxEntries: 20_000 });

function searchPathKey(q: ListUsersQuery, search: string): string {
  return `${JSON.stringify(q.filters ?? null)}|${q.projectId}|${q.includeAnonymous ? 1 : 0}|${q.onlyAnonymous ? 1 : 0}|${q.excludeRestricted ? (q.excludeRestricted.requireEmailVerification ? 2 : 1) : 0}|${q.orderBy ?? ""}|${search.toLowerCase()}`;
}

/** A name for a prepared statement, derived from its text (one plan per distinct statement and connection). */
function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
}

/**
 * Ids of the matching users from the cursor on (at most limit + 1 when paginated), in listing order. The access path
 * is the one `pool`'s connections are pinned to (or the planner's choice on the main pool).
 */
async function searchIds(pool: Pool, q: ListUsersQuery, search: string, trigram = false): Promise<string[]> {
  const query = new PageQuery(q);
  const { rows } = await pool.query<{ id: string }>(
    `SELECT u.id FROM users u WHERE ${query.where(...searchConditions(query, search, trigram))} ${query.order("u")} ${query.limit()}`,
    query.params,
  );
  return rows.map((r) => r.id);
}

/**
 * A page of matching users, rows and all, in one statement on a pool pinned to one access path. Prepared per
 * connection under a name derived from its text, so the plan is made once (the pinned pools plan generically: the
 * access path is fixed anyway, and planning would cost more than a millisecond per search).
 */
async function searchPage(pool: Pool, q: ListUsersQuery, search: string, trigram: boolean): Promise<ShownUserRow[]> {
  const page = new PageQuery(q);
  const conditions = searchConditions(page, search, trigram);
  const text = page.select(`(SELECT u.* FROM users u WHERE ${page.where(...conditions)} ${page.order("u")} ${page.limit()}) u`);
  const { rows } = await pool.query<ShownUserRow>({ name: statementName("identity_search", text), text, values: page.params });
  return rows;
}

/** The search term's conditions on `u.search_text`, with the trigram index driven by the term's most distinctive part. */
function searchConditions(query: PageQuery, search: string, trigram: boolean): string[] {
  const key = trigram ? indexKey(search) : undefined;
  if (key === undefined) return [`u.search_text LIKE ${query.param(substringPattern(search))}`];
  // The whole term is checked on the rows found, as an expression the index cannot take (so that the common trigrams
  // are not looked up).
  return [`u.search_text LIKE ${query.param(substringPattern(key))}`, `(u.search_text || '') LIKE ${query.param(substringPattern(search))}`];
}

/** Terms that are certainly rare (e-mail addresses, ids) skip the sample and go straight to the trigram index. */
function looksRare(query: string): boolean {
  const at = query.lastIndexOf("@");
  return (at >= 3 && query.length >= 8) || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(query.trim());
}

/**
 * The part of an e-mail-like term that drives the trigram index: the local part. Domain trigrams ("gmail.com") occur
 * in a large share of all rows, and intersecting their posting lists costs more than the rest of the search.
 */
function indexKey(query: string): string | undefined {
  const at = query.lastIndexOf("@");
  return at >= 3 ? query.slice(0, at) : undefined;
}
