import type { Queryable } from "@vestibule/shared/db";
import { CLAIMS_SELECT, type ClaimsColumns } from "./claims-store.ts";

export interface IpInfoJson {
  readonly ip: string;
  readonly countryCode?: string | null;
  readonly regionCode?: string | null;
  readonly cityName?: string | null;
  readonly latitude?: number | null;
  readonly longitude?: number | null;
  readonly tzIdentifier?: string | null;
}

export interface SessionRow {
  readonly id: string;
  readonly project_id: string;
  readonly user_id: string;
  readonly refresh_token_hash: string;
  readonly is_impersonation: boolean;
  readonly created_at: Date;
  readonly expires_at: Date;
  readonly last_used_at: Date | null;
  readonly last_used_ip: string | null;
  readonly last_used_ip_info: IpInfoJson | null;
}

export interface NewSession {
  readonly id: string;
  readonly projectId: string;
  readonly userId: string;
  readonly refreshTokenHash: string;
  readonly isImpersonation: boolean;
  readonly expiresAt: Date;
  /** A sign-in is a use: its time and IP; undefined for server-created sessions. */
  readonly usedFromIp?: string;
  readonly ipInfo?: IpInfoJson | null;
  readonly used: boolean;
}

export interface SessionTouchRow {
  readonly sessionId: string;
  readonly projectId: string;
  readonly at: Date;
  readonly ip: string | null;
  readonly ipInfo: IpInfoJson | null;
}

const COLUMNS = "id, project_id, user_id, refresh_token_hash, is_impersonation, created_at, expires_at, last_used_at, last_used_ip, last_used_ip_info";
/** Every batch of refreshes runs it: prepared once per connection instead of parsed and planned per batch. */
const BY_TOKEN_HASHES_WITH_CLAIMS = {
  name: "auth_sessions_by_token_hashes_with_claims",
  text: `SELECT ${COLUMNS.split(", ").map((c) => `s.${c}`).join(", ")}, ${CLAIMS_SELECT}
         FROM sessions s LEFT JOIN user_claims c ON c.project_id = s.project_id AND c.user_id = s.user_id
        WHERE s.refresh_token_hash = ANY($1::text[])`,
};

/** Minimum time between two writes of a session's last use. */
export const TOUCH_INTERVAL_SECONDS = 60;

/** The only SQL about sessions and rotated refresh tokens. */
export const sessionStore = {
  /**
   * Inserts sessions, all in one statement (a batch of sign-ins costs one round trip; prepared once per connection,
   * nothing read back).
   */
  async insert(db: Queryable, sessions: readonly NewSession[]): Promise<void> {
    if (sessions.length === 0) return;
    const col = <T>(f: (s: NewSession) => T) => sessions.map(f);
    await db.query({
      name: "auth_sessions_insert",
      text: `INSERT INTO sessions (id, project_id, user_id, refresh_token_hash, is_impersonation, expires_at, last_used_at, last_used_ip, last_used_ip_info)
             SELECT id, project_id, user_id, refresh_token_hash, is_impersonation, expires_at, CASE WHEN used THEN now() END, last_used_ip, last_used_ip_info
               FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::boolean[], $6::timestamptz[], $7::boolean[], $8::text[], $9::jsonb[])
                 AS s (id, project_id, user_id, refresh_token_hash, is_impersonation, expires_at, used, last_used_ip, last_used_ip_info)`,
      values: [
        col((s) => s.id),
        col((s) => s.projectId),
        col((s) => s.userId),
        col((s) => s.refreshTokenHash),
        col((s) => s.isImpersonation),
        col((s) => s.expiresAt),
        col((s) => s.used),
        col((s) => s.usedFromIp || null),
        col((s) => (s.ipInfo ? JSON.stringify(s.ipInfo) : null)),
      ],
    });
  },

  async byTokenHash(db: Queryable, hash: string): Promise<SessionRow | undefined> {
    const { rows } = await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE refresh_token_hash = $1`, [hash]);
    return rows[0];
  },

  /** The sessions of many refresh tokens with their users' claims snapshots, in one round trip (batched refreshes). */
  async byTokenHashesWithClaims(db: Queryable, hashes: readonly string[]): Promise<(SessionRow & ClaimsColumns)[]> {
    if (hashes.length === 0) return [];
    const { rows } = await db.query<SessionRow & ClaimsColumns>({ ...BY_TOKEN_HASHES_WITH_CLAIMS, values: [hashes] });
    return rows;
  },

  async byId(db: Queryable, projectId: string, id: string): Promise<SessionRow | undefined> {
    const { rows } = await db.query<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1 AND project_id = $2`, [id, projectId]);
    return rows[0];
  },

  /** The sessions rotated-away refresh tokens belonged to, by token hash (one round trip for a batch). */
  async sessionsOfRotatedTokens(db: Queryable, hashes: readonly string[]): Promise<Map<string, SessionRow>> {
    if (hashes.length === 0) return new Map();
    const { rows } = await db.query<SessionRow & { rotated_token_hash: string }>(
      `SELECT r.token_hash AS rotated_token_hash, ${COLUMNS.split(", ").map((c) => `s.${c}`).join(", ")}
       FROM rotated_refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE r.token_hash = ANY($1::text[])`,
      [hashes],
    );
    return new Map(rows.map((r) => [r.rotated_token_hash, r]));
  },

  /**
   * Replaces each session's refresh token if it still is `oldHash` (compare-and-set, so two concurrent refreshes with
   * the same token cannot both rotate it) and remembers the old one, for many sessions in one statement. Each session
   * id must appear at most once. Returns the ids of the sessions whose token was replaced (the others lost a race).
   * Rows are locked in id order first, so two batches rotating overlapping sessions cannot deadlock each other.
   */
  async rotateMany(db: Queryable, rotations: readonly { sessionId: string; oldHash: string; newHash: string }[]): Promise<Set<string>> {
    if (rotations.length === 0) return new Set();
    const { rows } = await db.query<{ id: string }>(
      `WITH u AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, old_hash, new_hash)),
       locked AS MATERIALIZED (
         SELECT s.id FROM sessions s JOIN u ON s.id = u.id AND s.refresh_token_hash = u.old_hash ORDER BY s.id FOR UPDATE OF s),
       updated AS (
         UPDATE sessions s SET refresh_token_hash = u.new_hash FROM u, locked l
         WHERE s.id = u.id AND s.id = l.id AND s.refresh_token_hash = u.old_hash
         RETURNING s.id, u.old_hash),
       remembered AS (
         INSERT INTO rotated_refresh_tokens (token_hash, session_id) SELECT old_hash, id FROM updated ON CONFLICT DO NOTHING)
       SELECT id FROM updated`,
      [rotations.map((r) => r.sessionId), rotations.map((r) => r.oldHash), rotations.map((r) => r.newHash)],
    );
    return new Set(rows.map((r) => r.id));
  },

  /**
   * Records uses, writing a session only when its stored last use is older than the touch interval. A session whose
   * row another transaction is writing right now is skipped (SKIP LOCKED: it is being used or revoked this very
   * moment), so concurrent batches of touches never wait for each other and cannot deadlock.
   */
  async touch(db: Queryable, touches: readonly SessionTouchRow[]): Promise<number> {
    if (touches.length === 0) return 0;
    const { rowCount } = await db.query(
      `WITH t AS (SELECT DISTINCT ON (id) * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::text[], $5::jsonb[])
                    AS u(id, project_id, at, ip, ip_info) ORDER BY id, at DESC),
       due AS MATERIALIZED (
         SELECT s.id FROM sessions s JOIN t ON s.id = t.id AND s.project_id = t.project_id
         WHERE s.last_used_at IS NULL OR s.last_used_at < t.at - make_interval(secs => $6)
         ORDER BY s.id FOR NO KEY UPDATE OF s SKIP LOCKED)
       UPDATE sessions s
       SET last_used_at = t.at, last_used_ip = COALESCE(t.ip, s.last_used_ip),
           last_used_ip_info = CASE WHEN t.ip IS NULL THEN s.last_used_ip_info ELSE t.ip_info END
       FROM t, due
       WHERE s.id = t.id AND s.id = due.id
         AND (s.last_used_at IS NULL OR s.last_used_at < t.at - make_interval(secs => $6))`,
      [
        touches.map((t) => t.sessionId),
        touches.map((t) => t.projectId),
        touches.map((t) => t.at),
        touches.map((t) => t.ip),
        touches.map((t) => (t.ipInfo ? JSON.stringify(t.ipInfo) : null)),
        TOUCH_INTERVAL_SECONDS,
      ],
    );
    return rowCount ?? 0;
  },

  async listForUser(db: Queryable, projectId: string, userId: string, includeImpersonation: boolean): Promise<SessionRow[]> {
    const { rows } = await db.query<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions
       WHERE project_id = $1 AND user_id = $2 AND expires_at > now() AND ($3::boolean OR NOT is_impersonation)
       ORDER BY created_at DESC, id DESC`,
      [projectId, userId, includeImpersonation],
    );
    return rows;
  },

  async delete(db: Queryable, projectId: string, id: string, userId?: string): Promise<SessionRow | undefined> {
    const { rows } = await db.query<SessionRow>(
      `DELETE FROM sessions WHERE id = $1 AND project_id = $2 AND ($3::uuid IS NULL OR user_id = $3) RETURNING ${COLUMNS}`,
      [id, projectId, userId ?? null],
    );
    return rows[0];
  },

  async deleteForUser(db: Queryable, projectId: string, userId: string, exceptId?: string): Promise<number> {
    const { rowCount } = await db.query(
      `DELETE FROM sessions WHERE project_id = $1 AND user_id = $2 AND ($3::uuid IS NULL OR id <> $3)`,
      [projectId, userId, exceptId ?? null],
    );
    return rowCount ?? 0;
  },

  async deleteExpired(db: Queryable): Promise<number> {
    const { rowCount } = await db.query(`DELETE FROM sessions WHERE expires_at < now() - interval '1 day'`);
    return rowCount ?? 0;
  },
};
