import type { PoolClient, Queryable } from "@vestibule/shared/db";
import { entryHash, GENESIS_HASH, type StoredRow } from "../domain/chain.ts";

/** One audit_entries row as the driver returns it. */
export interface AuditRow {
  project_id: string;
  seq: string;
  id: string;
  occurred_at: Date;
  actor_type: string;
  actor_id: string;
  actor_project_id: string;
  ip: string;
  user_agent: string;
  action: string;
  resource_type: string;
  resource_id: string;
  before: unknown;
  after: unknown;
  request_id: string;
  request_line: string;
  prev_hash: string;
  hash: string;
}

export interface NewAuditEntry {
  id: string;
  projectId: string;
  occurredAt: Date;
  actor: { type: string; id: string; projectId: string; ip: string; userAgent: string };
  action: string;
  resourceType: string;
  resourceId: string;
  after: unknown;
  requestId: string;
  requestLine: string;
}

export interface AuditFilter {
  projectId: string;
  actorType?: string;
  actorId?: string;
  resourceType?: string;
  resourceId?: string;
  action?: string;
  since?: Date;
  until?: Date;
  /** Only rows with seq below this (the cursor). */
  beforeSeq?: bigint;
}

/** The hashed view of a row (the chain's canonical content). */
export function chainedRow(r: AuditRow): StoredRow {
  return {
    project_id: r.project_id,
    seq: String(r.seq),
    id: r.id,
    occurred_at: r.occurred_at.toISOString(),
    actor: { type: r.actor_type, id: r.actor_id, project_id: r.actor_project_id, ip: r.ip, user_agent: r.user_agent },
    action: r.action,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    before: r.before ?? null,
    after: r.after ?? null,
    request_id: r.request_id,
    request_line: r.request_line,
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}

/**
 * Text jsonb stores: NUL and unpaired UTF-16 surrogates (which JSON.stringify writes as \u escapes that jsonb refuses)
 * become U+FFFD, in values and keys. A request body may carry both (the route fuzzer's lone surrogates made every
 * append of such an entry fail, and the entry was lost).
 */
const storableText = (s: string) => s.toWellFormed().replaceAll("\u0000", "\uFFFD");

function storable(v: unknown): unknown {
  if (typeof v === "string") return storableText(v);
  if (Array.isArray(v)) return v.map(storable);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [storableText(k), storable(x)]));
  return v;
}

const jsonOrNull = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(storable(v)));

/** The only SQL of the audit log. */
export const auditStore = {
  /**
   * Appends inside the caller's transaction, holding the project's head row: returns the existing row when the id
   * is already stored. The hash is computed from the row as PostgreSQL stored it (jsonb normalised), so verify
   * recomputes exactly what was hashed.
   */
  async append(tx: PoolClient, e: NewAuditEntry): Promise<{ row: AuditRow; appended: boolean }> {
    await tx.query(`INSERT INTO audit_heads (project_id, seq, hash) VALUES ($1, 0, $2) ON CONFLICT DO NOTHING`, [e.projectId, GENESIS_HASH]);
    const head = (await tx.query<{ seq: string; hash: string }>(`SELECT seq, hash FROM audit_heads WHERE project_id = $1 FOR UPDATE`, [e.projectId])).rows[0]!;
    const existing = (await tx.query<AuditRow>(`SELECT * FROM audit_entries WHERE id = $1`, [e.id])).rows[0];
    if (existing) return { row: existing, appended: false };
    const previous = (
      await tx.query<{ after: unknown }>(
        `SELECT after FROM audit_entries WHERE project_id = $1 AND resource_type = $2 AND resource_id = $3 ORDER BY seq DESC LIMIT 1`,
        [e.projectId, e.resourceType, e.resourceId],
      )
    ).rows[0];
    const seq = BigInt(head.seq) + 1n;
    const inserted = (
      await tx.query<AuditRow>(
        `INSERT INTO audit_entries (project_id, seq, id, occurred_at, actor_type, actor_id, actor_project_id, ip, user_agent, action,
           resource_type, resource_id, before, after, request_id, request_line, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14::jsonb, $15, $16, $17, '') RETURNING *`,
        [
          e.projectId, String(seq), e.id, e.occurredAt, e.actor.type, e.actor.id, e.actor.projectId, e.actor.ip, e.actor.userAgent, e.action,
          e.resourceType, e.resourceId, jsonOrNull(previous?.after), jsonOrNull(e.after), e.requestId, e.requestLine, head.hash,
        ],
      )
    ).rows[0]!;
    const hash = entryHash(chainedRow(inserted));
    await tx.query(`UPDATE audit_entries SET hash = $3 WHERE project_id = $1 AND seq = $2`, [e.projectId, String(seq), hash]);
    await tx.query(`UPDATE audit_heads SET seq = $2, hash = $3 WHERE project_id = $1`, [e.projectId, String(seq), hash]);
    return { row: { ...inserted, hash }, appended: true };
  },

  /** Newest first, at most `limit` rows. */
  async list(db: Queryable, f: AuditFilter, limit: number): Promise<AuditRow[]> {
    const where = ["project_id = $1"];
    const args: unknown[] = [f.projectId];
    const add = (sql: string, v: unknown) => {
      args.push(v);
      where.push(sql.replace("?", `$${args.length}`));
    };
    if (f.actorType) add("actor_type = ?", f.actorType);
    if (f.actorId) add("actor_id = ?", f.actorId);
    if (f.resourceType) add("resource_type = ?", f.resourceType);
    if (f.resourceId) add("resource_id = ?", f.resourceId);
    if (f.action) add("action = ?", f.action);
    if (f.since) add("occurred_at >= ?", f.since);
    if (f.until) add("occurred_at < ?", f.until);
    if (f.beforeSeq !== undefined) add("seq < ?", String(f.beforeSeq));
    args.push(limit);
    const { rows } = await db.query<AuditRow>(`SELECT * FROM audit_entries WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT $${args.length}`, args);
    return rows;
  },

  async projects(db: Queryable): Promise<{ project_id: string; seq: string; hash: string }[]> {
    const { rows } = await db.query<{ project_id: string; seq: string; hash: string }>(
      `SELECT project_id, seq::text, hash FROM audit_heads UNION SELECT DISTINCT project_id, '-1', '' FROM audit_entries
        WHERE project_id NOT IN (SELECT project_id FROM audit_heads) ORDER BY project_id`,
    );
    return rows;
  },

  /** A project's rows in seq order, from after `afterSeq`, `limit` at a time (verify walks the chain in batches). */
  async chainPage(db: Queryable, projectId: string, afterSeq: string, limit: number): Promise<AuditRow[]> {
    const { rows } = await db.query<AuditRow>(`SELECT * FROM audit_entries WHERE project_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [projectId, afterSeq, limit]);
    return rows;
  },
};
