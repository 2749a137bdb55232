import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { Static, TSchema } from "typebox";
import Type from "typebox";
import { ANNOTATION_KEYWORDS, FORMATS, safeRegExp, X_DECODE, X_NO_SPACES } from "./formats.ts";
import { describeErrors, formatValidationMessage } from "./messages.ts";
import { nulLines } from "./text.ts";

/**
 * Request validation with the contract's SCHEMA_ERROR text (errors.md §2). Each part's schema is compiled once by
 * ajv (all errors, verbose) and every failure is translated into yup's wording with the field path. Values are cast
 * the way yup casts them (Stack validates without `strict`):
 *  - `query` / `params` values are strings: properties typed number/integer/boolean are cast before validation;
 *  - `body` is JSON: only when a value has the wrong type is it cast (number/boolean → string, numeric string →
 *    number, "true"/"1"/"false"/"0" → boolean) and the body validated once more, so the common path runs ajv once.
 * A cast that fails keeps yup's message, e.g. "must be a `number` type, but the final value was: `NaN` (cast from the
 * value `"abc"`)." `QueryBoolean` fields are turned into booleans after validation.
 */

export interface RequestSchemas {
  readonly body?: TSchema;
  readonly query?: TSchema;
  readonly params?: TSchema;
}

export interface RequestInput {
  readonly method: string;
  /** The request path; a query string, if present, is dropped from the message. */
  readonly path: string;
  /** `undefined` when the request has no body (absent or empty content type). */
  readonly body: unknown;
  readonly query: unknown;
  readonly params: unknown;
  /** Lines computed by the caller (e.g. `auth.user must be defined`); they come first. */
  readonly extraErrors?: readonly string[];
}

type StaticOr<T, D> = T extends TSchema ? Static<T> : D;

export interface RequestValidationSuccess<S extends RequestSchemas> {
  readonly ok: true;
  /** The validated body (defaults filled in, casts applied); `undefined` when the route declares no body. */
  readonly body: StaticOr<S["body"], undefined>;
  /** A validated copy of the query; `{}` when the route declares no query schema (the query is then not checked). */
  readonly query: StaticOr<S["query"], Record<string, never>>;
  readonly params: StaticOr<S["params"], Record<string, never>>;
}

export interface RequestValidationFailure {
  readonly ok: false;
  /** The full SCHEMA_ERROR text: "Request validation failed on <METHOD> <path>:" and one "  - <rule>" per line. */
  readonly message: string;
  readonly lines: string[];
}

export type RequestValidationResult<S extends RequestSchemas> = RequestValidationSuccess<S> | RequestValidationFailure;

export type RequestValidator<S extends RequestSchemas> = (input: RequestInput) => RequestValidationResult<S>;

// ---------------------------------------------------------------------------------------------------------------
// ajv: one instance, compiled validators cached per schema object.

function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true, // errors carry data and parentSchema, which the messages need
    messages: false, // ajv's own texts are never shown
    strict: true,
    strictTypes: false,
    strictTuples: false,
    allowUnionTypes: true,
    unicode: false, // lengths in UTF-16 code units, as yup counts them (`value.length`)
    useDefaults: true,
    // No input-driven backtracking (formats.ts). `code` names the engine only for standalone code, which is not used.
    code: { regExp: Object.assign(safeRegExp, { code: "safeRegExp" }) },
    logger: {
      log: console.log,
      error: console.error,
      // ajv 8.20 marks `unicode` deprecated but still honours it; that one notice is expected and dropped.
      warn: (...args: unknown[]) => {
        if (!String(args[0]).startsWith("DEPRECATED: option unicode")) console.warn(...args);
      },
    },
  });
  for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, { type: "string", validate: check });
  ajv.addKeyword({
    keyword: X_NO_SPACES,
    type: "string",
    schemaType: "boolean",
    errors: false,
    validate: (enabled: boolean, data: string) => !enabled || !data.includes(" "),
  });
  for (const keyword of ANNOTATION_KEYWORDS) ajv.addKeyword(keyword);
  return ajv;
}

const ajv = createAjv();
const compiled = new WeakMap<object, ValidateFunction>();

/** Other `x-` vendor keywords found in a schema are accepted as annotations (OpenAPI extensions). */
function registerVendorKeywords(schema: unknown): void {
  if (schema === null || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    for (const item of schema) registerVendorKeywords(item);
    return;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith("x-") && !ajv.RULES.keywords[key]) ajv.addKeyword(key);
    registerVendorKeywords(value);
  }
}

/**
 * A copy of a schema in which every integer without its own bounds is bounded to the safe integers
 * (±Number.MAX_SAFE_INTEGER). JSON numbers such as 1.7976931348623133e308 are integers to JavaScript but not to the
 * int64 fields behind them, so they are refused here with yup's range text ("must be less than or equal to
 * 9007199254740991") instead of failing later in the RPC encoder with a 500.
 */
function withSafeIntegers(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object") return schema;
  if (Array.isArray(schema)) return schema.map(withSafeIntegers);
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = key === "enum" || key === "const" ? value : withSafeIntegers(value);
  const types = Array.isArray(copy.type) ? copy.type : [copy.type];
  if (types.includes("integer")) {
    if (copy.maximum === undefined && copy.exclusiveMaximum === undefined) copy.maximum = Number.MAX_SAFE_INTEGER;
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = -Number.MAX_SAFE_INTEGER;
  }
  return copy;
}

function compileSchema(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    registerVendorKeywords(schema);
    validate = ajv.compile(withSafeIntegers(schema) as object);
    compiled.set(schema, validate);
  }
  return validate;
}

// ---------------------------------------------------------------------------------------------------------------
// yup's casts (string/number/boolean schemas, non-strict).

type CastKind = "string" | "number" | "boolean";

/**
 * String(value), or undefined when JavaScript cannot convert it: a JSON object whose "toString" and "valueOf" keys are
 * not methods (`{"toString": {}}`), or an array holding one, throws a TypeError in String().
 */
function textOf(value: unknown): string | undefined {
  try {
    return String(value);
  } catch {
    return undefined;
  }
}

function castLikeYup(value: unknown, kind: CastKind): unknown {
  switch (kind) {
    case "string": {
      if (typeof value === "string" || Array.isArray(value) || value === null || value === undefined) return value;
      // A JSON object may carry its own "toString" (a number, a string...): only a real method is called.
      const toString = (value as { toString?: unknown }).toString;
      const text = typeof toString === "function" ? (toString as () => unknown).call(value) : undefined;
      return typeof text === "string" && text !== "[object Object]" ? text : value;
    }
    case "number": {
      if (value === null || value === undefined) return value;
      let parsed: unknown = value;
      if (typeof parsed === "string") {
        const compact = parsed.replace(/\s/g, "");
        if (compact === "") return Number.NaN;
        parsed = Number(compact);
      }
      if (typeof parsed === "number" && !Number.isNaN(parsed)) return parsed;
      const text = textOf(parsed);
      return text === undefined ? Number.NaN : Number.parseFloat(text);
    }
    case "boolean": {
      if (typeof value === "boolean" || value === null || value === undefined) return value;
      const text = textOf(value);
      if (text === undefined) return value;
      if (/^(true|1)$/i.test(text)) return true;
      if (/^(false|0)$/i.test(text)) return false;
      return value;
    }
  }
}

/** The cast yup would apply for a schema's `type` (the first non-null one), if any. */
function castKindOf(type: unknown): CastKind | undefined {
  const types = Array.isArray(type) ? type : [type];
  for (const t of types) {
    if (t === "string") return "string";
    if (t === "number" || t === "integer") return "number";
    if (t === "boolean") return "boolean";
    if (t !== "null") return undefined;
  }
  return undefined;
}

function pointerToken(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function setAtPointer(box: { value: unknown }, pointer: string, value: unknown): void {
  if (pointer === "") {
    box.value = value;
    return;
  }
  const tokens = pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let target = box.value as Record<string, unknown>;
  for (const token of tokens.slice(0, -1)) target = target[token] as Record<string, unknown>;
  target[tokens[tokens.length - 1]!] = value;
}

/**
 * For each type mismatch outside a union, the value yup would validate instead. Returns the cast copy, or undefined
 * when nothing can be cast; `originals` records the values replaced (for "(cast from the value …)").
 */
function castMismatches(value: unknown, errors: readonly ErrorObject[], originals: Map<string, unknown>): { value: unknown } | undefined {
  let box: { value: unknown } | undefined;
  for (const error of errors) {
    if (error.keyword !== "type" || error.data === null || error.data === undefined) continue;
    if (/\/(anyOf|oneOf|allOf|not|if|then|else)\//.test(error.schemaPath) || originals.has(error.instancePath)) continue;
    const kind = castKindOf((error.params as { type: unknown }).type);
    if (!kind) continue;
    const cast = castLikeYup(error.data, kind);
    if (Object.is(cast, error.data)) continue;
    box ??= { value: structuredClone(value) };
    setAtPointer(box, error.instancePath, cast);
    originals.set(error.instancePath, error.data);
  }
  return box;
}

// ---------------------------------------------------------------------------------------------------------------
// Parts.

type PartName = "body" | "query" | "params";

interface Part {
  readonly name: PartName;
  readonly schema: TSchema;
  readonly validate: ValidateFunction;
  /** Body only: the schema is marked Optional, so a request without body passes. */
  readonly optional: boolean;
  /** Query/params: top-level properties cast from their strings before validation. */
  readonly casts: readonly (readonly [string, CastKind])[];
  /** Query/params: top-level properties decoded from "true"/"false" after validation. */
  readonly booleans: readonly string[];
}

function compilePart(name: PartName, schema: TSchema): Part {
  const casts: (readonly [string, CastKind])[] = [];
  const booleans: string[] = [];
  const properties = (schema as { properties?: Record<string, Record<string, unknown>> }).properties;
  if (name !== "body" && properties) {
    for (const [key, property] of Object.entries(properties)) {
      const kind = castKindOf(property.type);
      if (kind && kind !== "string") casts.push([key, kind]);
      if (property[X_DECODE] === "boolean") booleans.push(key);
    }
  }
  return { name, schema, validate: compileSchema(schema), optional: name === "body" && Type.IsOptional(schema), casts, booleans };
}

type PartResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly lines: string[] };

/** Query/params: a shallow copy (a repeated query key keeps its last value, as URLSearchParams → object does). */
function flatCopy(part: Part, raw: unknown, originals: Map<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  if (raw !== null && typeof raw === "object") {
    for (const key of Object.keys(raw)) {
      const value = (raw as Record<string, unknown>)[key];
      copy[key] = Array.isArray(value) ? value[value.length - 1] : value;
    }
  }
  for (const [key, kind] of part.casts) {
    const value = copy[key];
    if (typeof value !== "string") continue;
    const cast = castLikeYup(value, kind);
    if (!Object.is(cast, value)) {
      copy[key] = cast;
      originals.set(`/${pointerToken(key)}`, value);
    }
  }
  return copy;
}

function decodeBooleans(part: Part, value: unknown): unknown {
  if (part.booleans.length === 0 || value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  for (const key of part.booleans) {
    if (record[key] === "true") record[key] = true;
    else if (record[key] === "false") record[key] = false;
  }
  return value;
}

/** Most validation failures of one part that are cast and described; beyond it the first ones are reported. */
export const MAX_REPORTED_ERRORS = 100;

function runPart(part: Part, raw: unknown): PartResult {
  const originals = new Map<string, unknown>();
  let value: unknown = part.name === "body" ? raw : flatCopy(part, raw, originals);
  if (value === undefined) return part.optional ? { ok: true, value } : { ok: false, lines: [`${part.name} must be defined`] };
  // A binary body (application/octet-stream) on a route that does not decode one: ajv would see an object with one
  // key per byte and describe each (seconds for 400 KB, found by the route fuzzer).
  if (value instanceof Uint8Array) {
    return { ok: false, lines: [`${part.name} must be a JSON value; the request sent ${value.length} bytes of binary data (application/octet-stream).`] };
  }
  if (part.validate(value)) return { ok: true, value: decodeBooleans(part, value) };

  let errors = part.validate.errors ?? [];
  // A body with thousands of wrong values (e.g. 50,000 numbers where strings belong) is refused as it is: casting and
  // describing each costs seconds of the gateway's one thread (issue 18, found by the route fuzzer).
  if (errors.length > MAX_REPORTED_ERRORS) {
    return { ok: false, lines: describeErrors(errors.slice(0, MAX_REPORTED_ERRORS), { root: part.name, schema: part.schema, data: value, originals }) };
  }
  const cast = castMismatches(value, errors, originals);
  if (cast) {
    value = cast.value;
    if (part.validate(value)) return { ok: true, value: decodeBooleans(part, value) };
    errors = part.validate.errors ?? [];
  }
  return { ok: false, lines: describeErrors(errors, { root: part.name, schema: part.schema, data: value, originals }) };
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Compiles a route's request schemas once; the returned function validates one request. A part without a schema is
 * not checked (body → `undefined`, query/params → `{}`). A missing body fails with "body must be defined" unless the
 * body schema is `Optional(...)`. Lines come in this order: `extraErrors`, body, query, params; within a part, text
 * that PostgreSQL cannot store (NUL, text.ts) comes first.
 */
export function compileRequestValidator<const S extends RequestSchemas>(schemas: S): RequestValidator<S> {
  const parts: Part[] = [];
  for (const name of ["body", "query", "params"] as const) {
    const schema = schemas[name];
    if (schema) parts.push(compilePart(name, schema));
  }
  return (input) => {
    const lines: string[] = input.extraErrors ? [...input.extraErrors] : [];
    const values: Record<PartName, unknown> = { body: undefined, query: {}, params: {} };
    for (const part of parts) {
      lines.push(...nulLines(input[part.name], part.name));
      const result = runPart(part, input[part.name]);
      if (result.ok) values[part.name] = result.value;
      else lines.push(...result.lines);
    }
    if (lines.length > 0) {
      const query = input.path.indexOf("?");
      const path = query === -1 ? input.path : input.path.slice(0, query);
      return { ok: false, lines, message: formatValidationMessage(input.method, path, lines) };
    }
    return { ok: true, body: values.body, query: values.query, params: values.params } as RequestValidationSuccess<S>;
  };
}
