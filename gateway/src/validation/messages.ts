import type { ErrorObject } from "ajv/dist/2020.js";
import { X_NON_EMPTY } from "./formats.ts";

/**
 * ajv errors → the contract's rule lines: yup's default locale (mixed/string/number/array) with the field path in
 * front, and Stack Auth's own texts for its custom checks (schema-fields.ts): "contains unknown properties: a, b",
 * "must not be empty", "is not a valid URL", "contains spaces", "is not valid base64", "is not valid JSON", and the
 * union text "is not matched by any of the provided schemas:".
 */

// ---------------------------------------------------------------------------------------------------------------
// yup's printValue (util/printValue.ts), used for the values shown in type errors.

function printNumber(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  return value === 0 && 1 / value < 0 ? "-0" : String(value);
}

function printSimpleValue(value: unknown, quoteStrings: boolean): string | null {
  if (value === null || value === undefined || value === true || value === false) return String(value);
  if (typeof value === "number") return printNumber(value);
  if (typeof value === "string") return quoteStrings ? `"${value}"` : value;
  if (typeof value === "function") return `[Function ${value.name || "anonymous"}]`;
  if (typeof value === "symbol") return value.toString().replace(/^Symbol\((.*)\)(.*)$/, "Symbol($1)");
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (value instanceof Error) return `[${Error.prototype.toString.call(value)}]`;
  if (value instanceof RegExp) return value.toString();
  return null;
}

/** yup's rendering of a value inside a message (objects and arrays as 2-space JSON, nested strings quoted twice). */
export function printValue(value: unknown, quoteStrings = false): string {
  const simple = printSimpleValue(value, quoteStrings);
  if (simple !== null) return simple;
  return JSON.stringify(
    value,
    function (this: Record<string, unknown>, key: string, inner: unknown) {
      const printed = printSimpleValue(this[key], quoteStrings);
      return printed !== null ? printed : inner;
    },
    2,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Paths: yup writes `body.a.b`, `body.items[0].id`, and `body["a.b"]` for keys containing a dot.

export type Segment = string | number;

export function joinPath(parent: string, segment: Segment): string {
  if (typeof segment === "number") return `${parent}[${segment}]`;
  return segment.includes(".") ? `${parent}["${segment}"]` : `${parent}.${segment}`;
}

function unescapePointer(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** JSON pointer (ajv's instancePath) → segments; a segment is an index when the data there is an array. */
function segmentsOf(data: unknown, pointer: string): Segment[] {
  if (pointer === "") return [];
  const segments: Segment[] = [];
  let current: unknown = data;
  for (const token of pointer.slice(1).split("/")) {
    const key = unescapePointer(token);
    if (Array.isArray(current)) {
      const index = Number(key);
      segments.push(index);
      current = current[index];
    } else {
      segments.push(key);
      current = current !== null && typeof current === "object" ? (current as Record<string, unknown>)[key] : undefined;
    }
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------------------------
// Ordering: depth-first in schema declaration order (array items by index), an object's own "unknown properties"
// line after the lines of its fields (as yup reports them), and per field: type/null, allowed values, then the other
// rules in the order the schema lists them.

type SchemaObject = Record<string, unknown>;

function asSchema(value: unknown): SchemaObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as SchemaObject) : undefined;
}

/** The schema itself and, through unions, every branch (depth-first). */
function alternatives(schema: SchemaObject | undefined, out: SchemaObject[] = [], depth = 0): SchemaObject[] {
  if (!schema || depth > 8) return out;
  out.push(schema);
  for (const branch of [schema.anyOf, schema.oneOf]) {
    if (Array.isArray(branch)) for (const b of branch) alternatives(asSchema(b), out, depth + 1);
  }
  return out;
}

/** The (branch of the) schema that describes `segment` below it: the one declaring the property, else any object/array. */
function describing(schema: SchemaObject | undefined, segment: Segment): SchemaObject | undefined {
  const candidates = alternatives(schema);
  if (typeof segment === "number") return candidates.find((c) => c.items || c.prefixItems);
  return (
    candidates.find((c) => asSchema(c.properties) && Object.hasOwn(c.properties as object, segment)) ??
    candidates.find((c) => c.properties || c.additionalProperties !== undefined)
  );
}

function orderKey(rootSchema: unknown, segments: readonly Segment[]): number[] {
  const key: number[] = [];
  let schema = asSchema(rootSchema);
  for (const segment of segments) {
    const s = describing(schema, segment);
    if (typeof segment === "number") {
      key.push(segment);
      const prefix = Array.isArray(s?.prefixItems) ? (s.prefixItems as unknown[]) : undefined;
      schema = asSchema(prefix && segment < prefix.length ? prefix[segment] : s?.items);
    } else {
      const properties = asSchema(s?.properties);
      const names = properties ? Object.keys(properties) : [];
      const index = names.indexOf(segment);
      key.push(index === -1 ? names.length : index);
      schema = asSchema(properties?.[segment]) ?? asSchema(s?.additionalProperties);
    }
  }
  return key;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function keywordRank(keyword: string, parentSchema: unknown): number {
  if (keyword === "type") return 0;
  if (keyword === "enum" || keyword === "const") return 1;
  const index = Object.keys(asSchema(parentSchema) ?? {}).indexOf(keyword);
  return 2 + (index === -1 ? 1000 : index);
}

// ---------------------------------------------------------------------------------------------------------------
// Translation of single errors.

interface Issue {
  readonly key: number[];
  readonly rank: number;
  readonly message: string;
  /** Set on an unknown key: such issues are merged into one line per object by `finalize`. */
  readonly unknown?: { readonly objectPath: string; readonly name: string };
}

export interface DescribeContext {
  /** "body", "query" or "params": the first path segment. */
  readonly root: string;
  readonly schema: unknown;
  /** The validated value (after casts). */
  readonly data: unknown;
  /** Values before a yup-style cast, by ajv instancePath, for the "(cast from the value …)" suffix. */
  readonly originals?: ReadonlyMap<string, unknown>;
}

const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  uuid: "must be a valid UUID",
  "user-id-or-me": "must be a valid UUID",
  email: "must be a valid email",
  url: "is not a valid URL",
  base64: "is not valid base64",
  json: "is not valid JSON",
};

const YUP_TYPE: Readonly<Record<string, string>> = {
  string: "string",
  number: "number",
  integer: "number",
  boolean: "boolean",
  object: "object",
  array: "array",
};

function expectedTypes(params: Record<string, unknown>): string[] {
  const type = params.type;
  const list = Array.isArray(type) ? type.map(String) : String(type).split(",");
  return list.filter((t) => t !== "null");
}

/** yup's `oneOf` list: `Array.from(values).join(", ")`, null and undefined shown as nothing. */
function listValues(values: readonly unknown[]): string {
  return values
    .filter((v) => v !== null)
    .map((v) => (v === undefined ? "" : String(v)))
    .join(", ");
}

function typeMessage(path: string, error: ErrorObject, ctx: DescribeContext): string {
  const data: unknown = error.data;
  if (data === null) return `${path} cannot be null`;
  const types = expectedTypes(error.params as Record<string, unknown>);
  if (types.includes("integer") && !types.includes("number") && typeof data === "number" && Number.isFinite(data)) {
    return `${path} must be an integer`;
  }
  const original = ctx.originals?.get(error.instancePath);
  const cast =
    ctx.originals?.has(error.instancePath) && original !== null && original !== undefined && original !== data
      ? ` (cast from the value \`${printValue(original, true)}\`).`
      : ".";
  const type = YUP_TYPE[types[0] ?? ""];
  if (type === undefined) return `${path} must match the configured type. The validated value was: \`${printValue(data, true)}\`${cast}`;
  return `${path} must be a \`${type}\` type, but the final value was: \`${printValue(data, true)}\`${cast}`;
}

function lengthBounds(parentSchema: unknown): { min?: number; max?: number } {
  const s = asSchema(parentSchema) ?? {};
  return { min: typeof s.minLength === "number" ? s.minLength : undefined, max: typeof s.maxLength === "number" ? s.maxLength : undefined };
}

/** The rule text for one ajv error, or undefined when another error already says it. */
function ruleMessage(path: string, error: ErrorObject, ctx: DescribeContext): string | undefined {
  const params = error.params as Record<string, unknown>;
  const parent = asSchema(error.parentSchema) ?? {};
  switch (error.keyword) {
    case "type":
      return typeMessage(path, error, ctx);
    case "enum":
    case "const": {
      // A null value against a typed schema: the type error ("cannot be null") says it (yup skips oneOf for null).
      if (error.data === null && parent.type !== undefined) return undefined;
      const values = error.keyword === "enum" ? (error.schema as unknown[]) : [error.schema];
      return `${path} must be one of the following values: ${listValues(values)}`;
    }
    case "minLength": {
      const { min, max } = lengthBounds(parent);
      if (parent[X_NON_EMPTY] === true && min === 1) return `${path} must not be empty`;
      if (min !== undefined && min === max) return `${path} must be exactly ${min} characters`;
      return `${path} must be at least ${String(params.limit)} characters`;
    }
    case "maxLength": {
      const { min, max } = lengthBounds(parent);
      if (min !== undefined && min === max) return `${path} must be exactly ${max} characters`;
      return `${path} must be at most ${String(params.limit)} characters`;
    }
    case "pattern":
      return `${path} must match the following: "${printValue(new RegExp(String(params.pattern)))}"`;
    case "format": {
      const text = FORMAT_MESSAGES[String(params.format)];
      return text ? `${path} ${text}` : `${path} is invalid`;
    }
    case "x-no-spaces":
      return `${path} contains spaces`;
    case "minimum":
      return `${path} must be greater than or equal to ${printValue(params.limit)}`;
    case "maximum":
      return `${path} must be less than or equal to ${printValue(params.limit)}`;
    case "exclusiveMinimum":
      return `${path} must be greater than ${printValue(params.limit)}`;
    case "exclusiveMaximum":
      return `${path} must be less than ${printValue(params.limit)}`;
    case "minItems":
      return parent.minItems === parent.maxItems
        ? `${path} must have ${String(params.limit)} items`
        : `${path} field must have at least ${String(params.limit)} items`;
    case "maxItems":
      return parent.minItems === parent.maxItems
        ? `${path} must have ${String(params.limit)} items`
        : `${path} field must have less than or equal to ${String(params.limit)} items`;
    default:
      return `${path} is invalid`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Unions (anyOf/oneOf): ajv reports every branch's errors, then the union's own error.

interface Pending {
  readonly schemaPath: string;
  readonly error?: ErrorObject;
  readonly issues?: Issue[];
}

function indentLines(lines: readonly string[], indent: string): string {
  return lines.map((line) => indent + line.replaceAll("\n", `\n${indent}`)).join("\n");
}

/** Merges unknown keys into one line per object and sorts (stable: ties keep ajv's order). */
function finalize(issues: readonly Issue[]): string[] {
  const out: Issue[] = [];
  const unknownByObject = new Map<string, { key: number[]; names: string[] }>();
  for (const issue of issues) {
    if (!issue.unknown) {
      out.push(issue);
      continue;
    }
    const entry = unknownByObject.get(issue.unknown.objectPath);
    if (entry) entry.names.push(issue.unknown.name);
    else unknownByObject.set(issue.unknown.objectPath, { key: issue.key, names: [issue.unknown.name] });
  }
  for (const [objectPath, { key, names }] of unknownByObject) {
    out.push({ key, rank: 0, message: `${objectPath} contains unknown properties: ${names.join(", ")}` });
  }
  return out.sort((a, b) => compareKeys(a.key, b.key) || a.rank - b.rank).map((issue) => issue.message);
}

function isNullOnly(schema: SchemaObject | undefined): boolean {
  return schema?.type === "null" || (Array.isArray(schema?.enum) && schema.enum.length === 1 && schema.enum[0] === null) || schema?.const === null;
}

function unionIssues(error: ErrorObject, branchItems: Pending[], ctx: DescribeContext): Issue[] {
  const segments = segmentsOf(ctx.data, error.instancePath);
  const path = segments.reduce<string>(joinPath, ctx.root);
  const key = orderKey(ctx.schema, segments);
  const rank = keywordRank(error.keyword, error.parentSchema);
  if (error.data === null) return [{ key, rank, message: `${path} cannot be null` }];

  const branchSchemas = Array.isArray(error.schema) ? (error.schema as unknown[]).map(asSchema) : [];
  const prefix = `${error.schemaPath}/`;
  const byBranch = new Map<number, Issue[]>();
  for (const item of branchItems) {
    const index = Number(item.schemaPath.slice(prefix.length).split("/")[0]);
    const list = byBranch.get(index) ?? [];
    list.push(...issuesOf(item, ctx));
    byBranch.set(index, list);
  }
  // A `null` branch (nullable written as a union) says nothing about a non-null value.
  const branches = branchSchemas.map((schema, index) => ({ schema, index })).filter((b) => !isNullOnly(b.schema));
  if (branches.length === 1) return byBranch.get(branches[0]!.index) ?? [];
  if (branches.length > 0 && branches.every((b) => b.schema && ("const" in b.schema || Array.isArray(b.schema.enum)))) {
    const values = branches.flatMap((b) => ("const" in b.schema! ? [b.schema!.const] : (b.schema!.enum as unknown[])));
    return [{ key, rank, message: `${path} must be one of the following values: ${listValues(values)}` }];
  }
  if (error.keyword === "oneOf" && byBranch.size === 0) return [{ key, rank, message: `${path} is invalid` }];
  const parts = branches.map((b, i) => {
    const lines = finalize(byBranch.get(b.index) ?? []);
    return `Schema ${i}:\n${indentLines(lines, "  ")}`;
  });
  return [{ key, rank, message: `${path} is not matched by any of the provided schemas:\n${indentLines(parts, "  ")}` }];
}

function issuesOf(item: Pending, ctx: DescribeContext): Issue[] {
  if (item.issues) return item.issues;
  const error = item.error!;
  const segments = segmentsOf(ctx.data, error.instancePath);
  if (error.keyword === "required") {
    const full = [...segments, String((error.params as { missingProperty: string }).missingProperty)];
    return [{ key: orderKey(ctx.schema, full), rank: 0, message: `${full.reduce<string>(joinPath, ctx.root)} must be defined` }];
  }
  const path = segments.reduce<string>(joinPath, ctx.root);
  if (error.keyword === "additionalProperties") {
    const name = String((error.params as { additionalProperty: string }).additionalProperty);
    // The key sorts after every field of the object: yup reports an object's own test after its fields.
    const key = [...orderKey(ctx.schema, segments), Number.POSITIVE_INFINITY];
    return [{ key, rank: 0, message: "", unknown: { objectPath: path, name } }];
  }
  const message = ruleMessage(path, error, ctx);
  return message === undefined ? [] : [{ key: orderKey(ctx.schema, segments), rank: keywordRank(error.keyword, error.parentSchema), message }];
}

/**
 * All of ajv's errors for one part of the request (validated with `allErrors` and `verbose`) as rule lines, in a
 * stable order; unknown keys are reported once per object, joined by ", ".
 */
export function describeErrors(errors: readonly ErrorObject[], ctx: DescribeContext): string[] {
  const pending: Pending[] = [];
  for (const error of errors) {
    if (error.keyword === "anyOf" || error.keyword === "oneOf") {
      const prefix = `${error.schemaPath}/`;
      const inside = pending.filter((p) => p.schemaPath.startsWith(prefix));
      const outside = pending.filter((p) => !p.schemaPath.startsWith(prefix));
      pending.length = 0;
      pending.push(...outside, { schemaPath: error.schemaPath, issues: unionIssues(error, inside, ctx) });
    } else {
      pending.push({ schemaPath: error.schemaPath, error });
    }
  }

  return finalize(pending.flatMap((item) => issuesOf(item, ctx)));
}

/** The SCHEMA_ERROR text: a header line, then each rule on its own line as `  - <rule>` (continuations indented). */
export function formatValidationMessage(method: string, path: string, lines: readonly string[]): string {
  return `Request validation failed on ${method} ${path}:\n${lines.map((line) => `  - ${line.replaceAll("\n", "\n  ")}`).join("\n")}`;
}
