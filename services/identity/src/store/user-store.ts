import { createHash } from "node:crypto";
import { LoadingCache } from "@vestibule/shared/cache";
import type { Pool, Queryable } from "@vestibule/shared/db";
import type { SearchPools } from "./search-pools.ts";
import { substringPattern, type AggregateDeltas } from "../domain/users.ts";

/** One user as the API shows it: the users row plus its primary e-mail channel and last activity. */
export interface UserRow {
  readonly id: string;
  readonly project_id: string;
  readonly display_name: string | null;
  readonly profile_image_url: string | null;
  /** JSON texts; null = JSON null. */
  readonly client_metadata: string | null;
  readonly client_read_only_metadata: string | null;
  readonly server_metadata: string | null;
  readonly has_password: boolean;
  readonly otp_auth_enabled: boolean;
  readonly passkey_auth_enabled: boolean;
  readonly requires_totp_mfa: boolean;
  readonly oauth_providers: readonly StoredOAuthProvider[];
  readonly is_anonymous: boolean;
  readonly selected_team_id: string | null;
  readonly sign_up_method: string;
  readonly country_code: string | null;
  readonly risk_score_bot: number;
  readonly risk_score_free_trial_abuse: number;
  readonly restricted_by_admin: boolean;
  readonly restricted_by_admin_reason: string | null;
  readonly restricted_by_admin_private_details: string | null;
  readonly signed_up_at_millis: number;
  readonly last_active_at_millis: number;
  /** UTC date of sign-up, YYYY-MM-DD. */
  readonly sign_up_day: string;
  readonly version: number;
  readonly primary_email: string | null;
  readonly primary_email_verified: boolean;
  readonly primary_email_auth_enabled: boolean;
}

export interface StoredOAuthProvider {
  readonly id: string;
  readonly account_id: string;
  readonly email: string | null;
}

/** The writable columns of users (everything the API can set). */
export interface UserFields {
  readonly display_name: string | null;
  readonly profile_image_url: string | null;
  readonly client_metadata: string | null;
  readonly client_read_only_metadata: string | null;
  readonly server_metadata: string | null;
  readonly has_password: boolean;
  readonly otp_auth_enabled: boolean;
  readonly passkey_auth_enabled: boolean;
  readonly requires_totp_mfa: boolean;
  readonly is_anonymous: boolean;
  readonly selected_team_id: string | null;
  readonly restricted_by_admin: boolean;
  readonly restricted_by_admin_reason: string | null;
  readonly restricted_by_admin_private_details: string | null;
  readonly country_code: string | null;
  readonly risk_score_bot: number;
  readonly risk_score_free_trial_abuse: number;
}

export interface NewUser extends UserFields {
  readonly id: string;
  readonly project_id: string;
  readonly oauth_providers: readonly StoredOAuthProvider[];
  readonly sign_up_method: string;
}

/** Users of `source` (a table or a subquery aliased u) with their primary e-mail channel and last activity. */
function selectUsers(source: string): string {
  return `
  SELECT u.id, u.project_id, u.display_name, u.profile_image_url,
         u.client_metadata::text AS client_metadata,
         u.client_read_only_metadata::text AS client_read_only_metadata,
         u.server_metadata::text AS server_metadata,
         u.has_password, u.otp_auth_enabled, u.passkey_auth_enabled, u.requires_totp_mfa, u.oauth_providers,
         u.is_anonymous, u.selected_team_id, u.sign_up_method, u.country_code, u.risk_score_bot,
         u.risk_score_free_trial_abuse, u.restricted_by_admin, u.restricted_by_admin_reason,
         u.restricted_by_admin_private_details,
         floor(extract(epoch FROM u.signed_up_at) * 1000)::int8 AS signed_up_at_millis,
         floor(extract(epoch FROM coalesce(a.last_active_at, u.signed_up_at)) * 1000)::int8 AS last_active_at_millis,
         (u.signed_up_at AT TIME ZONE 'UTC')::date::text AS sign_up_day,
         u.version,
         p.value AS primary_email,
         coalesce(p.is_verified, false) AS primary_email_verified,
         coalesce(p.used_for_auth, false) AS primary_email_auth_enabled
    FROM ${source}
    LEFT JOIN contact_channels p ON p.user_id = u.id AND p.is_primary
    LEFT JOIN user_activity a ON a.user_id = u.id`;
}

const SELECT_USER = selectUsers("users u");

export interface ListUsersQuery {
  readonly projectId: string;
  /** 0 = everything. */
  readonly limit: number;
  /** Keyset position of the first user of the page (inclusive). */
  readonly from?: { readonly signedUpAt: string; readonly id: string };
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
}

/** The sort key of a listing, as an expression on users u. */
function sortKey(q: ListUsersQuery, alias: string): string {
  return q.orderBy === "last_active_at"
    ? `coalesce((SELECT x.last_active_at FROM user_activity x WHERE x.user_id = ${alias}.id), ${alias}.signed_up_at)`
    : `${alias}.signed_up_at`;
}

/** A user (id) whose first activity of a UTC day was just recorded. */
export interface NewlyActive {
  readonly project_id: string;
  readonly day: string;
  readonly is_anonymous: boolean;
  readonly users: number;
}

export interface DailyStatRow {
  readonly day: string;
  readonly sign_ups: number;
  readonly active_users: number;
}

/** The only SQL about users, their activity and the user aggregates. */
export const userStore = {
  async get(db: Queryable, projectId: string, userId: string, forUpdate = false): Promise<UserRow | undefined> {
    const { rows } = await db.query<UserRow>(
      `${SELECT_USER} WHERE u.project_id = $1 AND u.id = $2${forUpdate ? " FOR UPDATE OF u" : ""}`,
      [projectId, userId],
    );
    return rows[0];
  },

  /**
   * The users who sign in with each (project, e-mail) pair, by the pairs' position: one statement for a whole batch
   * of password sign-ins (the partial unique index contact_channels_auth_value serves each pair). E-mails must be
   * normalised by the caller.
   */
  async findByAuthEmails(
    db: Queryable,
    lookups: readonly { projectId: string; email: string }[],
  ): Promise<Map<number, UserRow & { auth_email_verified: boolean }>> {
    if (lookups.length === 0) return new Map();
    const { rows } = await db.query<UserRow & { i: string; auth_email_verified: boolean }>({
      name: "identity_users_by_auth_emails",
      text: `WITH m AS (
               SELECT q.i, c.user_id, c.is_verified
                 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q (project_id, email, i)
                 JOIN contact_channels c ON c.project_id = q.project_id AND c.type = 'email' AND c.value = q.email AND c.used_for_auth)
             SELECT m.i, m.is_verified AS auth_email_verified, s.*
               FROM m JOIN (${selectUsers("users u")} WHERE u.id IN (SELECT user_id FROM m)) s ON s.id = m.user_id`,
      values: [lookups.map((l) => l.projectId), lookups.map((l) => l.email)],
    });
    return new Map(rows.map(({ i, ...row }) => [Number(i) - 1, row]));
  },

  /** Locks the user row (serialises changes of one user's channels); false when there is no such user. */
  async lock(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`SELECT 1 FROM users WHERE project_id = $1 AND id = $2 FOR UPDATE`, [projectId, userId]);
    return rowCount === 1;
  },

  async getMany(db: Queryable, projectId: string, userIds: readonly string[]): Promise<UserRow[]> {
    if (userIds.length === 0) return [];
    const { rows } = await db.query<UserRow>(`${SELECT_USER} WHERE u.project_id = $1 AND u.id = ANY($2::uuid[])`, [projectId, userIds]);
    return rows;
  },

  async insert(db: Queryable, u: NewUser): Promise<void> {
    await db.query(
      `INSERT INTO users (id, project_id, display_name, profile_image_url, client_metadata, client_read_only_metadata,
         server_metadata, has_password, otp_auth_enabled, passkey_auth_enabled, requires_totp_mfa, oauth_providers,
         is_anonymous, selected_team_id, sign_up_method, country_code, restricted_by_admin, restricted_by_admin_reason,
         restricted_by_admin_private_details, risk_score_bot, risk_score_free_trial_abuse)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
      [
        u.id, u.project_id, u.display_name, u.profile_image_url, u.client_metadata, u.client_read_only_metadata,
        u.server_metadata, u.has_password, u.otp_auth_enabled, u.passkey_auth_enabled, u.requires_totp_mfa,
        JSON.stringify(u.oauth_providers), u.is_anonymous, u.selected_team_id, u.sign_up_method, u.country_code,
        u.restricted_by_admin, u.restricted_by_admin_reason, u.restricted_by_admin_private_details, u.risk_score_bot,
        u.risk_score_free_trial_abuse,
      ],
    );
  },

  /** Writes every field and bumps the version. */
  async update(db: Queryable, userId: string, f: UserFields): Promise<void> {
    await db.query(
      `UPDATE users SET display_name = $2, profile_image_url = $3, client_metadata = $4, client_read_only_metadata = $5,
         server_metadata = $6, has_password = $7, otp_auth_enabled = $8, passkey_auth_enabled = $9,
         requires_totp_mfa = $10, is_anonymous = $11, selected_team_id = $12, restricted_by_admin = $13,
         restricted_by_admin_reason = $14, restricted_by_admin_private_details = $15, country_code = $16,
         risk_score_bot = $17, risk_score_free_trial_abuse = $18, version = version + 1, updated_at = now()
       WHERE id = $1`,
      [
        userId, f.display_name, f.profile_image_url, f.client_metadata, f.client_read_only_metadata, f.server_metadata,
        f.has_password, f.otp_auth_enabled, f.passkey_auth_enabled, f.requires_totp_mfa, f.is_anonymous, f.selected_team_id,
        f.restricted_by_admin, f.restricted_by_admin_reason, f.restricted_by_admin_private_details, f.country_code,
        f.risk_score_bot, f.risk_score_free_trial_abuse,
      ],
    );
  },

  /** Replaces the user's OAuth provider links (the auth service owns them; this is the copy the user views show). */
  async setOAuthProviders(db: Queryable, userId: string, providers: readonly StoredOAuthProvider[]): Promise<void> {
    await db.query(`UPDATE users SET oauth_providers = $2 WHERE id = $1`, [userId, JSON.stringify(providers)]);
  },

  /** A change elsewhere (e.g. the primary channel) changed the user as shown: bump its version. */
  async bumpVersion(db: Queryable, userId: string): Promise<void> {
    await db.query(`UPDATE users SET version = version + 1, updated_at = now() WHERE id = $1`, [userId]);
  },

  async delete(db: Queryable, projectId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM users WHERE project_id = $1 AND id = $2`, [projectId, userId]);
    return rowCount === 1;
  },

  /**
   * Where a cursor user sits in the listing order (the timestamp as text keeps its microseconds): its sign-up time, or
   * its last activity for `orderBy` last_active_at.
   */
  async position(db: Queryable, projectId: string, userId: string, orderBy?: ListUsersQuery["orderBy"]): Promise<{ signedUpAt: string; id: string } | undefined> {
    const key = sortKey({ projectId, limit: 0, desc: false, includeAnonymous: true, orderBy }, "u");
    const { rows } = await db.query<{ signed_up_at: string; id: string }>(
      `SELECT (${key})::text AS signed_up_at, id FROM users u WHERE project_id = $1 AND id = $2`,
      [projectId, userId],
    );
    return rows[0] ? { signedUpAt: rows[0].signed_up_at, id: rows[0].id } : undefined;
  },

  /**
   * A page of users in sign-up order: `limit + 1` rows when there are more (the extra one is the next page's first).
   * Without a search, one walk of the sign-up index. With one, see SEARCH_SAMPLE.
   */
  async list(pool: Pool, q: ListUsersQuery, searchPools?: SearchPools): Promise<UserRow[]> {
    const page = new PageQuery(q);
    if (q.search === undefined && q.exactId === undefined) {
      const { rows } = await pool.query<UserRow>(page.select(`(SELECT * FROM users u WHERE ${page.where()} ${page.order("u")} ${page.limit()}) u`), page.params);
      return rows;
    }
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
        const { rows } = await pool.query<UserRow>({ name: statementName("identity_search_sample", text), text, values: sample.params });
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
    const { rows } = await pool.query<UserRow>(
      page.select(`(SELECT u.* FROM unnest(${byId}::uuid[]) AS x(id) JOIN users u ON u.id = x.id
                    WHERE ${page.where()} ${page.order("u")} ${page.limit()}) u`),
      page.params,
    );
    return rows;
  },

  /** Recomputes what `query` searches for a user, after its display name or channels changed. */
  async refreshSearchText(db: Queryable, userId: string): Promise<void> {
    await db.query(
      `UPDATE users u SET search_text = lower(coalesce(u.display_name, '')) || coalesce(
         (SELECT string_agg(E'\\n' || c.value, '' ORDER BY c.created_at, c.id) FROM contact_channels c WHERE c.user_id = u.id), '')
       WHERE u.id = $1`,
      [userId],
    );
  },

  /** The most recently signed-up users. */
  async recentlyRegistered(pool: Pool, projectId: string, includeAnonymous: boolean, limit: number): Promise<UserRow[]> {
    const rows = await userStore.list(pool, { projectId, limit, desc: true, includeAnonymous });
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

  /**
   * Records activity (deduplicated by the caller: one entry per user, the latest time). Unknown users are ignored.
   * Returns, per (project, UTC day, anonymity), how many users had their first activity of that day recorded now:
   * a user counts once per day because the counting upsert only fires when the stored activity moves to a later day,
   * under the row lock, so concurrent batches cannot both count it.
   */
  async recordActivity(db: Queryable, entries: ReadonlyArray<{ projectId: string; userId: string; at: Date }>): Promise<NewlyActive[]> {
    if (entries.length === 0) return [];
    const params = [entries.map((e) => e.userId), entries.map((e) => e.projectId), entries.map((e) => e.at.toISOString())];
    const { rows } = await db.query<NewlyActive>(
      `WITH input AS (
         SELECT i.user_id, i.project_id, i.at, u.is_anonymous
           FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS i(user_id, project_id, at)
           JOIN users u ON u.id = i.user_id AND u.project_id = i.project_id
       ), first_of_day AS (
         INSERT INTO user_activity AS a (user_id, project_id, last_active_at)
         SELECT user_id, project_id, at FROM input ORDER BY user_id
         ON CONFLICT (user_id) DO UPDATE SET last_active_at = EXCLUDED.last_active_at
           WHERE (a.last_active_at AT TIME ZONE 'UTC')::date < (EXCLUDED.last_active_at AT TIME ZONE 'UTC')::date
         RETURNING a.user_id, (a.last_active_at AT TIME ZONE 'UTC')::date AS day
       )
       SELECT i.project_id, f.day::text AS day, i.is_anonymous, count(*)::int AS users
         FROM first_of_day f JOIN input i ON i.user_id = f.user_id
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      params,
    );
    // Same-day activity moves last_active_at forward without counting.
    await db.query(
      `UPDATE user_activity a SET last_active_at = i.at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS i(user_id, at)
        WHERE a.user_id = i.user_id AND a.last_active_at < i.at`,
      [params[0], params[2]],
    );
    return rows;
  },

  async addActiveUsers(db: Queryable, rows: readonly NewlyActive[]): Promise<void> {
    for (const r of rows) {
      await db.query(
        `INSERT INTO user_daily_stats (project_id, day, is_anonymous, active_users) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, day, is_anonymous) DO UPDATE SET active_users = user_daily_stats.active_users + EXCLUDED.active_users`,
        [r.project_id, r.day, r.is_anonymous, r.users],
      );
    }
  },

  /** Users of `userIds` that have no country yet. */
  async withoutCountry(db: Queryable, userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM users WHERE id = ANY($1::uuid[]) AND country_code IS NULL`, [userIds]);
    return new Set(rows.map((r) => r.id));
  },

  /** Sets the country of a user that has none; returns what the country counters need, or undefined. */
  async setCountryIfUnknown(db: Queryable, userId: string, countryCode: string): Promise<{ project_id: string; is_anonymous: boolean } | undefined> {
    const { rows } = await db.query<{ project_id: string; is_anonymous: boolean }>(
      `UPDATE users SET country_code = $2 WHERE id = $1 AND country_code IS NULL RETURNING project_id, is_anonymous`,
      [userId, countryCode],
    );
    return rows[0];
  },

  async applyAggregateDeltas(db: Queryable, d: AggregateDeltas): Promise<void> {
    for (const [projectId, day, anon, delta] of d.signUps) {
      await db.query(
        `INSERT INTO user_daily_stats (project_id, day, is_anonymous, sign_ups) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, day, is_anonymous) DO UPDATE SET sign_ups = user_daily_stats.sign_ups + EXCLUDED.sign_ups`,
        [projectId, day, anon, delta],
      );
    }
    for (const [projectId, country, anon, delta] of d.countries) {
      await db.query(
        `INSERT INTO user_country_counts (project_id, country_code, is_anonymous, users) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, country_code, is_anonymous) DO UPDATE SET users = user_country_counts.users + EXCLUDED.users`,
        [projectId, country, anon, delta],
      );
    }
    for (const [projectId, method, anon, delta] of d.loginMethods) {
      await db.query(
        `INSERT INTO user_login_method_counts (project_id, method, is_anonymous, users) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, method, is_anonymous) DO UPDATE SET users = user_login_method_counts.users + EXCLUDED.users`,
        [projectId, method, anon, delta],
      );
    }
  },

  async totalUsers(db: Queryable, projectId: string, includeAnonymous: boolean): Promise<number> {
    const { rows } = await db.query<{ total: number }>(
      `SELECT coalesce(sum(sign_ups), 0)::int8 AS total FROM user_daily_stats WHERE project_id = $1${includeAnonymous ? "" : " AND NOT is_anonymous"}`,
      [projectId],
    );
    return rows[0]?.total ?? 0;
  },

  async dailyStats(db: Queryable, projectId: string, fromDay: string, includeAnonymous: boolean): Promise<DailyStatRow[]> {
    const { rows } = await db.query<DailyStatRow>(
      `SELECT day::text AS day, sum(sign_ups)::int AS sign_ups, sum(active_users)::int AS active_users
         FROM user_daily_stats WHERE project_id = $1 AND day >= $2::date${includeAnonymous ? "" : " AND NOT is_anonymous"}
        GROUP BY day ORDER BY day`,
      [projectId, fromDay],
    );
    return rows;
  },

  async countries(db: Queryable, projectId: string, includeAnonymous: boolean): Promise<Array<{ country_code: string; users: number }>> {
    const { rows } = await db.query<{ country_code: string; users: number }>(
      `SELECT country_code, sum(users)::int AS users FROM user_country_counts
        WHERE project_id = $1${includeAnonymous ? "" : " AND NOT is_anonymous"}
        GROUP BY country_code HAVING sum(users) > 0 ORDER BY users DESC, country_code`,
      [projectId],
    );
    return rows;
  },

  async loginMethods(db: Queryable, projectId: string, includeAnonymous: boolean): Promise<Array<{ method: string; count: number }>> {
    const { rows } = await db.query<{ method: string; count: number }>(
      `SELECT method, sum(users)::int AS count FROM user_login_method_counts
        WHERE project_id = $1${includeAnonymous ? "" : " AND NOT is_anonymous"}
        GROUP BY method HAVING sum(users) > 0 ORDER BY count DESC, method`,
      [projectId],
    );
    return rows;
  },
};

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
    // Keyset: the page starts at the cursor user (inclusive).
    if (q.from) {
      const at = `${this.param(q.from.signedUpAt)}::timestamptz, ${this.param(q.from.id)}::uuid`;
      this.conditions.push(`(${sortKey(q, "u")}, u.id) ${q.desc ? "<=" : ">="} (${at})`);
    }
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
    return `${selectUsers(source)} ${this.order("u")}`;
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
  return `${q.projectId}|${q.includeAnonymous ? 1 : 0}|${q.onlyAnonymous ? 1 : 0}|${q.excludeRestricted ? (q.excludeRestricted.requireEmailVerification ? 2 : 1) : 0}|${q.orderBy ?? ""}|${search.toLowerCase()}`;
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
async function searchPage(pool: Pool, q: ListUsersQuery, search: string, trigram: boolean): Promise<UserRow[]> {
  const page = new PageQuery(q);
  const conditions = searchConditions(page, search, trigram);
  const text = page.select(`(SELECT u.* FROM users u WHERE ${page.where(...conditions)} ${page.order("u")} ${page.limit()}) u`);
  const { rows } = await pool.query<UserRow>({ name: statementName("identity_search", text), text, values: page.params });
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
