import { joinPath } from "./messages.ts";

/**
 * Text PostgreSQL cannot store: the NUL character (U+0000) is refused by `text` columns ("invalid byte sequence") and
 * by `jsonb` ("unsupported Unicode escape sequence"), which used to surface as a 500. Every string of a request (query,
 * params, body values and object keys, at any depth) is checked before a handler runs, and each one found becomes a
 * SCHEMA_ERROR line such as `query.query must not contain NUL characters`.
 */
const NUL = "\u0000";

/** yup-style paths (`body.a.b`, `body.items[0]`) of the strings or keys in `value` that contain NUL. */
export function pathsWithNul(value: unknown, root: string): string[] {
  const found: string[] = [];
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === "string") {
      if (item.includes(NUL)) found.push(path);
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], joinPath(path, i)]);
    } else if (item !== null && typeof item === "object" && !(item instanceof Uint8Array)) {
      // (Binary bodies are bytes, not text: refused as a whole by the validator.)
      const entries = Object.entries(item as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const childPath = joinPath(path, key.replaceAll(NUL, "\\u0000"));
        if (key.includes(NUL)) found.push(childPath);
        else stack.push([child, childPath]);
      }
    }
  }
  return found;
}

/** The SCHEMA_ERROR lines for `pathsWithNul`. */
export function nulLines(value: unknown, root: string): string[] {
  return pathsWithNul(value, root).map((path) => `${path} must not contain NUL characters`);
}
