import type { FastifyInstance, FastifyRequest } from "fastify";
import { knownError, type KnownError } from "@vestibule/shared/errors";

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parsingError(message: string): KnownError {
  return knownError("BODY_PARSING_ERROR", { message });
}

/**
 * Request bodies as the contract parses them (headers-and-auth.md §6): the first segment of `content-type` decides;
 * JSON, form-urlencoded (flat object of strings), text/plain and octet-stream are understood, an empty body is no
 * body, and anything else is BODY_PARSING_ERROR, never a 500.
 */
export function registerBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  const parser = (req: FastifyRequest, raw: Buffer | string, done: (err: Error | null, body?: unknown) => void) => {
    const body = typeof raw === "string" ? Buffer.from(raw) : raw;
    rawBodies.set(req, body);
    try {
      done(null, parseBody(req.headers["content-type"], body));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  // One parser for everything. The common types are also registered by name only so that fastify finds (and caches)
  // the parser by content type instead of parsing the header again for the catch-all on every request.
  for (const type of ["*", "application/json", "application/x-www-form-urlencoded"]) {
    app.addContentTypeParser(type, { parseAs: "buffer", bodyLimit }, parser);
  }
}

const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/** The request body's bytes as received (for signatures computed over them, e.g. Stripe webhooks). */
export function rawBodyOf(req: FastifyRequest): Buffer | undefined {
  return rawBodies.get(req);
}

/**
 * Limits on the shape of a JSON request body. No request of the contract nests more than a few levels or sends more
 * than a few hundred array items (free-form metadata included). A body nested tens of thousands of levels deep parses
 * fine but overflows the stack of every recursive step after it (validation, error texts, serialisation to the
 * services), and an array of 50,000 wrong values costs the gateway's one thread seconds of validation (issue 18,
 * both found by the route fuzzer).
 */
export const MAX_JSON_DEPTH = 256;
export const MAX_JSON_ARRAY_ITEMS = 10_000;

/** Why JSON text breaks the limits (one pass over the text, strings skipped), or undefined. */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxItems = MAX_JSON_ARRAY_ITEMS): string | undefined {
  // Per open container: -1 for an object, else the number of commas seen in the array.
  const open: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      open.push(c === 0x5b ? 0 : -1);
      if (open.length > maxDepth) return `nested deeper than ${maxDepth} levels`;
    } else if (c === 0x5d || c === 0x7d) open.pop();
    else if (c === 0x2c && open.length > 0 && open[open.length - 1]! >= 0) {
      if (++open[open.length - 1]! >= maxItems) return `an array has more than ${maxItems} items`;
    }
  }
  return undefined;
}

/** BODY_PARSING_ERROR for JSON text that breaks the shape limits (jsonShapeProblem). */
export function checkJsonShape(text: string): void {
  const problem = jsonShapeProblem(text);
  if (problem) throw parsingError(`Invalid JSON in request body: ${problem}`);
}

/** A `\uD800`-`\uDFFF` escape: the only way JSON text (decoded as UTF-8 first) can carry an unpaired surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Strings and keys as well-formed Unicode: an unpaired surrogate becomes U+FFFD. */
function wellFormedReviver(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === "string") return value.toWellFormed();
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (!keys.every((k) => k.isWellFormed())) return Object.fromEntries(keys.map((k) => [k.toWellFormed(), (value as Record<string, unknown>)[k]]));
  }
  return value;
}

/**
 * A JSON request body (its shape checked first: depth, array sizes), or BODY_PARSING_ERROR. Unpaired surrogates
 * (`"\udfff"`) become U+FFFD, as any UTF-8 storage would make them: PostgreSQL's jsonb refuses them outright, which
 * surfaced as 500s on every route that keeps JSON (found by the route fuzzer, seed 1557841515, and before it
 * 2000395755). Bodies without such an escape take the plain JSON.parse path.
 */
export function parseJsonText(text: string): unknown {
  checkJsonShape(text);
  try {
    return SURROGATE_ESCAPE.test(text) ? (JSON.parse(text, wellFormedReviver) as unknown) : (JSON.parse(text) as unknown);
  } catch {
    throw parsingError("Invalid JSON in request body");
  }
}

export function parseBody(contentType: string | undefined, body: Buffer): unknown {
  if (body.length === 0) return undefined;
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "" ) return undefined;
  // Binary as it came: e.g. the current SDK's gzip analytics batches (decoded by their route, http/compressed-body.ts).
  if (type === "application/octet-stream") return body;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw parsingError("Request body cannot be parsed as UTF-8");
  }
  switch (type) {
    case "application/json":
      if (text.trim() === "") return undefined;
      return parseJsonText(text);
    case "application/x-www-form-urlencoded":
      try {
        const out: Record<string, string> = {};
        for (const [k, v] of new URLSearchParams(text)) out[k] = v;
        return out;
      } catch {
        throw parsingError("Invalid form data in request body");
      }
    case "text/plain":
      return text;
    default:
      throw parsingError(`Unknown content type in request body: ${type}`);
  }
}
