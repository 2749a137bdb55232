import { randomUUID } from "node:crypto";
import { KNOWN_ERRORS, isConcreteKnownErrorCode } from "@vestibule/shared/errors";
import { v1Routes } from "../../src/routes/v1/index.ts";
import type { RouteSpec } from "../../src/routes/route.ts";

/**
 * The gateway's route metadata (`defineRoute` specs: method, path, declared access, user requirement, schemas) for
 * the systematic security suites (issue 18): the route fuzzer and the access matrix read every route from here, so
 * a new route is covered the moment it is registered.
 */
export const ROUTES: readonly RouteSpec[] = v1Routes as readonly RouteSpec[];

export const routeName = (r: RouteSpec): string => `${r.method} ${r.path}`;

/** The path parameter names of a route, in order (`/teams/:team_id` → ["team_id"]). */
export function paramNames(route: RouteSpec): string[] {
  return [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
}

/** The route's path with each parameter replaced by the given (already URL-encoded) text. */
export function fillPath(route: RouteSpec, params: Record<string, string>): string {
  return route.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => params[name] ?? "x");
}

type Schema = Record<string, unknown> & {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  format?: string;
  minLength?: number;
  minItems?: number;
  minimum?: number;
  default?: unknown;
};

/**
 * A small value the schema accepts in shape (required properties only; formats get a well-formed value). Only the
 * gateway's schema is considered: the services may still refuse it (unknown ids, a password too short, ...), which
 * is what the suites want: requests that get past validation and reach the services.
 */
export function sampleOf(schema: unknown): unknown {
  const s = (schema ?? {}) as Schema;
  if ("const" in s) return s.const;
  if (s.enum?.length) return s.enum.find((v) => v !== null) ?? s.enum[0];
  if (s.default !== undefined) return s.default;
  const union = s.anyOf ?? s.oneOf;
  if (union?.length) return sampleOf(union.find((u) => u.type !== "null") ?? union[0]);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = sampleOf(s.properties?.[key]);
      return out;
    }
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => sampleOf(s.items));
    case "integer":
    case "number":
      return s.minimum ?? 1;
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      return sampleString(s);
    default:
      return {};
  }
}

function sampleString(s: Schema): string {
  switch (s.format) {
    case "uuid":
      return randomUUID();
    case "user-id-or-me":
      return randomUUID(); // not "me": `/users/me` is a route of its own
    case "email":
      return `fuzz-${randomUUID().slice(0, 8)}@example.com`;
    case "url":
      return "http://localhost:3000/handler/callback";
    case "base64":
      return "AAAA";
    case "json":
      return "{}";
    default:
      return "x".repeat(Math.max(1, s.minLength ?? 1));
  }
}

/** The declared properties of a route's schema part (query, params, body), as a name → schema map. */
export function propertiesOf(schema: unknown): Record<string, unknown> {
  return ((schema ?? {}) as Schema).properties ?? {};
}

// ---------------------------------------------------------------------------------------------------------------
// What an answer may look like

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly ms: number;
}

/** Texts that mean "a service refused with no deliberate message" (http/replies.ts GENERIC_TEXTS): never expected. */
const GENERIC_TEXTS = new Set(["Bad request.", "Unauthorized.", "Forbidden.", "Not found.", "Conflict.", "Precondition failed.", "Too many requests.", "The request could not be completed."]);

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** The status the caller meant: with `override-error-status` errors come as 200 plus `x-stack-actual-status`. */
export function effectiveStatus(a: Answer): number {
  const actual = one(a.headers["x-stack-actual-status"]);
  return a.status === 200 && actual !== undefined ? Number(actual) : a.status;
}

/**
 * The fuzzer's property for one answer, `undefined` when it holds: no 5xx, no answer slower than `maxMs`, and every
 * 4xx either a known error of the catalogue (its status, `{code, error, details?}`, the header under both prefixes
 * equal to the code) or a deliberate plain text (text/plain, not empty, not a service's unexplained refusal).
 */
export function violation(a: Answer, maxMs: number): string | undefined {
  const status = effectiveStatus(a);
  if (a.ms > maxMs) return `answer took ${Math.round(a.ms)} ms (limit ${maxMs} ms)`;
  if (status >= 500) return `status ${status}`;
  if (status < 400) return undefined;
  const code = one(a.headers["x-stack-known-error"]);
  if (code !== undefined) {
    if (one(a.headers["x-hexclave-known-error"]) !== code) return `x-hexclave-known-error ${String(a.headers["x-hexclave-known-error"])} differs from ${code}`;
    if (!isConcreteKnownErrorCode(code)) return `unknown known-error code ${code}`;
    const entry = KNOWN_ERRORS[code];
    if (entry.httpStatus !== status) return `${code} sent with status ${status}, catalogue says ${entry.httpStatus}`;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(a.text) as Record<string, unknown>;
    } catch {
      return `known error ${code} with a body that is not JSON`;
    }
    if (body.code !== code) return `body code ${String(body.code)} differs from header ${code}`;
    if (typeof body.error !== "string" || body.error === "") return `known error ${code} without an error message`;
    const extra = Object.keys(body).filter((k) => !["code", "error", "details"].includes(k));
    if (extra.length) return `known error ${code} with extra keys ${extra.join(", ")}`;
    if (entry.detailKeys.length > 0 && (typeof body.details !== "object" || body.details === null)) return `known error ${code} without details`;
    return undefined;
  }
  const type = one(a.headers["content-type"]) ?? "";
  if (!type.startsWith("text/plain")) return `${status} without a known-error header and with content-type ${type || "(none)"}`;
  if (a.text.trim() === "") return `${status} with an empty text`;
  if (GENERIC_TEXTS.has(a.text)) return `${status} "${a.text}": a service refused the request without a known error or a deliberate text`;
  return undefined;
}
