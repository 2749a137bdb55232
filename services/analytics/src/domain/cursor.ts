import { statusError } from "@vestibule/shared/errors";

/** Page cursors: the sort key (milliseconds) and id of a page's last row, base64url. Pure functions. */
export function encodeCursor(ms: bigint, id: string): string {
  return Buffer.from(`${ms}:${id}`).toString("base64url");
}

const CURSOR = /^(\d{1,16}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function decodeCursor(cursor: string): { ms: bigint; id: string } {
  const m = CURSOR.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m) throw statusError(400, "Invalid cursor");
  return { ms: BigInt(m[1]!), id: m[2]! };
}

/** Page size: default 50, at most 200. */
export function pageLimit(limit: number): number {
  if (limit <= 0) return 50;
  return Math.min(limit, 200);
}
