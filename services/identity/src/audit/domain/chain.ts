import { createHash } from "node:crypto";

/** The prev_hash of a project's first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** What one audit row says (every column but `hash`), as the hash covers it. */
export interface ChainedContent {
  readonly project_id: string;
  readonly seq: string;
  readonly id: string;
  readonly occurred_at: string;
  readonly actor: { type: string; id: string; project_id: string; ip: string; user_agent: string };
  readonly action: string;
  readonly resource_type: string;
  readonly resource_id: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly request_id: string;
  readonly request_line: string;
  readonly prev_hash: string;
}

/**
 * Canonical JSON: object keys sorted (code-unit order), no whitespace, arrays in order, `undefined` members
 * dropped. Two equal values always serialise to the same text, whatever order their keys were built in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return "null";
    return JSON.stringify(value ?? null);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

/** hash = SHA-256 (hex) of the canonical JSON of the row's content, prev_hash included. */
export function entryHash(c: ChainedContent): string {
  // Only the content's own members (a stored row also carries its `hash`, which the hash cannot cover).
  const content: ChainedContent = {
    project_id: c.project_id,
    seq: c.seq,
    id: c.id,
    occurred_at: c.occurred_at,
    actor: { type: c.actor.type, id: c.actor.id, project_id: c.actor.project_id, ip: c.actor.ip, user_agent: c.actor.user_agent },
    action: c.action,
    resource_type: c.resource_type,
    resource_id: c.resource_id,
    before: c.before ?? null,
    after: c.after ?? null,
    request_id: c.request_id,
    request_line: c.request_line,
    prev_hash: c.prev_hash,
  };
  return createHash("sha256").update(canonicalJson(content)).digest("hex");
}

/** Field names whose values are secrets (matched case-insensitively on the last part of the name). */
const SECRET_NAME = /(secret|password|passphrase|token|private|hash|_key$|^key$|^value$|^code$|verification_code|otp|cookie|authorization)/i;

/**
 * Removes secrets from a JSON value by field name: a matching field's value becomes "[redacted]" unless it is a
 * boolean or null (`has_password: true` stays: it says whether, not what). Applied to every `after` before it is
 * stored, whatever the caller already removed.
 */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_NAME.test(k) && v !== null && typeof v !== "boolean" ? "[redacted]" : withoutSecrets(v);
  }
  return out;
}

/** One stored row as verify reads it. */
export interface StoredRow extends ChainedContent {
  readonly hash: string;
}

/** Rows moved within this distance of where they were written are reported as reordered rather than edited. */
const REORDER_WINDOW = 64n;

/** The seq a row's hash was computed with, when only its seq changed (nearby). */
function seqItWasWrittenAs(row: StoredRow): bigint | undefined {
  const seq = BigInt(row.seq);
  for (let d = 1n; d <= REORDER_WINDOW; d++) {
    for (const candidate of [seq - d, seq + d]) {
      if (candidate > 0n && entryHash({ ...row, seq: String(candidate) }) === row.hash) return candidate;
    }
  }
  return undefined;
}

export type BreakKind = "edited" | "deleted" | "reordered";

export interface ChainBreak {
  readonly project_id: string;
  readonly seq: string;
  readonly id: string;
  readonly kind: BreakKind;
  readonly detail: string;
}

/**
 * Checks one project's chain, rows in seq order, against its head (last seq and hash); returns the first break.
 * A row whose hash does not match its content was edited (or, when the content matches under another seq, moved:
 * reordered); a row whose prev_hash is not the hash of the row before it follows a deleted row; a head beyond the
 * last row means the newest rows were deleted.
 */
export class ChainChecker {
  private prevHash = GENESIS_HASH;
  private prevSeq = 0n;
  private lastId = "";
  private readonly seen = new Map<string, bigint>();

  constructor(private readonly projectId: string) {}

  /** Feeds the next row; returns the break it shows, if any. */
  next(row: StoredRow): ChainBreak | undefined {
    const at = { project_id: this.projectId, seq: row.seq, id: row.id };
    const seq = BigInt(row.seq);
    if (entryHash(row) !== row.hash) {
      const writtenAs = seqItWasWrittenAs(row);
      if (writtenAs !== undefined) return { ...at, kind: "reordered", detail: `the row was written as seq ${writtenAs} and now sits at seq ${seq}` };
      return { ...at, kind: "edited", detail: "the row's content does not match its hash" };
    }
    if (row.prev_hash !== this.prevHash) {
      if (this.seen.has(row.prev_hash)) {
        return { ...at, kind: "reordered", detail: `prev_hash points at seq ${this.seen.get(row.prev_hash)}, not at the row before it (seq ${this.prevSeq})` };
      }
      return { ...at, kind: "deleted", detail: `the row(s) before it were deleted (prev_hash matches no row; previous row is seq ${this.prevSeq})` };
    }
    if (seq !== this.prevSeq + 1n) {
      return { ...at, kind: "deleted", detail: `seq jumps from ${this.prevSeq} to ${seq}` };
    }
    this.seen.set(row.hash, seq);
    this.prevHash = row.hash;
    this.prevSeq = seq;
    this.lastId = row.id;
    return undefined;
  }

  /** After the last row: the head must name the last row. */
  end(head: { seq: string; hash: string } | undefined): ChainBreak | undefined {
    if (!head) {
      if (this.prevSeq === 0n) return undefined;
      return { project_id: this.projectId, seq: String(this.prevSeq), id: this.lastId, kind: "edited", detail: "the project's chain head is missing" };
    }
    if (BigInt(head.seq) === this.prevSeq && head.hash === this.prevHash) return undefined;
    if (BigInt(head.seq) > this.prevSeq) {
      return {
        project_id: this.projectId,
        seq: head.seq,
        id: "",
        kind: "deleted",
        detail: `the newest row(s) seq ${this.prevSeq + 1n}..${head.seq} were deleted (head names seq ${head.seq})`,
      };
    }
    return { project_id: this.projectId, seq: String(this.prevSeq), id: this.lastId, kind: "edited", detail: `the chain head (seq ${head.seq}) does not match the last row` };
  }
}
