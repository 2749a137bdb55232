/** One changed field between two JSON values, by dotted path. Pure, for the detail view. */
export interface FieldChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly kind: "added" | "removed" | "changed";
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The fields that differ between `before` and `after` (objects compared key by key, anything else as a whole). */
export function jsonDiff(before: unknown, after: unknown, path = ""): FieldChange[] {
  // A created resource (nothing before) or a deleted one (nothing after) lists its fields one by one.
  if (isObject(after) && (before === null || before === undefined)) before = {};
  if (isObject(before) && (after === null || after === undefined)) after = {};
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => jsonDiff(before[k], after[k], path ? `${path}.${k}` : k));
  }
  // A missing field and a null one read the same.
  if (JSON.stringify(before ?? null) === JSON.stringify(after ?? null)) return [];
  const kind = before === undefined || before === null ? "added" : after === undefined || after === null ? "removed" : "changed";
  return [{ path: path || "(value)", before, after, kind }];
}
