import fc from "fast-check";
import type { RouteSpec } from "../../src/routes/route.ts";
import { ROUTES, fillPath, paramNames, propertiesOf, sampleOf } from "./route-catalogue.ts";
import type { RawRequest } from "./raw-http.ts";

/**
 * fast-check arbitraries of hostile requests for every route (issue 18, "route fuzzing"): each request starts from
 * the route's metadata (path parameters, query and body schemas, declared access) and breaks it in one or more ways:
 * wrong types, missing and extra fields, huge strings and arrays, NUL and lone surrogates, invalid UTF-8, deep JSON,
 * wrong content types, bad path parameters, and duplicate or conflicting headers under both prefixes.
 */

/** Credentials the fuzzer may present (from the platform under test). */
export interface FuzzPrincipals {
  readonly projectId: string;
  readonly publishableClientKey: string;
  readonly secretServerKey: string;
  readonly superSecretAdminKey: string;
  /** Access tokens of signed-up users of the project (some may be deleted by the fuzzer itself). */
  readonly accessTokens: readonly string[];
  /** Owner's admin access token and id of a throwaway project: the only target of `DELETE /internal/projects/current`. */
  readonly victim: { readonly projectId: string; readonly adminAccessToken: string };
}

export interface FuzzCase {
  readonly route: string;
  readonly request: RawRequest;
}

const PREFIXES = ["x-stack-", "x-hexclave-"] as const;

/** Header-safe text (Node refuses control characters in header values before sending). */
const headerText = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."abcdefXYZ0123456789-_.:/+= "), maxLength: 40 }),
  fc.constantFrom("", " ", "true", "false", "null", "undefined", "client", "server", "admin", "ADMIN", "internal", "main", "0", "-1", "é", "x".repeat(8000)),
);

/** Values of a wrong kind for any field. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, true, 0, -1, 1e308, -0, 2 ** 53 + 1, "", " ", "\u0000", "a\u0000b", "\ud800", "\udfff\ud800", "%00", "../../etc/passwd", "<script>", "me", "00000000-0000-0000-0000-000000000000"),
  fc.constantFrom(20_000, 100_000).map((n) => "a".repeat(n)),
  fc.constantFrom(1_000, 50_000).map((n) => Array.from({ length: n }, (_, i) => i)),
  fc.integer({ min: 50, max: 3_000 }).map((d) => deepValue(d)),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 5 }),
);

function deepValue(depth: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** A valid-looking sample of the schema, then changed: a field removed, retyped, added, or the whole body replaced. */
function mutated(schema: unknown): fc.Arbitrary<unknown> {
  const base = () => sampleOf(schema) as Record<string, unknown>;
  const keys = Object.keys(propertiesOf(schema));
  const options: fc.Arbitrary<unknown>[] = [
    fc.constant(null).map(() => base()),
    fc.tuple(fc.string({ maxLength: 12 }), hostileValue).map(([k, v]) => ({ ...base(), [k]: v })),
    hostileValue,
  ];
  if (keys.length) {
    options.push(
      fc.tuple(fc.constantFrom(...keys), hostileValue).map(([k, v]) => ({ ...base(), [k]: v })),
      fc.constantFrom(...keys).map((k) => {
        const b = base();
        delete b[k];
        return b;
      }),
      fc.array(fc.tuple(fc.constantFrom(...keys), hostileValue), { minLength: 2, maxLength: keys.length + 1 }).map((pairs) => ({ ...base(), ...Object.fromEntries(pairs) })),
    );
  }
  return fc.oneof(...options);
}

/** A path parameter: valid-looking, or broken (encoded or raw). */
const pathParam = (name: string, schema: unknown): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(null).map(() => encodeURIComponent(String(sampleOf(schema)))) },
    { weight: 1, arbitrary: fc.uuid().map((u) => u) },
    { weight: 1, arbitrary: fc.constantFrom("me", "ME", "%00", "a%00b", "%ff%fe", "%E0%A4%A", "%", "%zz", "..", "%2e%2e%2f..%2f", "%20", "null", "-1", "1e999", "%F0%9F%98%80", name) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }).map(safeEncode).filter((s) => s.length > 0) },
    { weight: 1, arbitrary: fc.constantFrom(300, 5_000).map((n) => "a".repeat(n)) },
  );

/** The query string: the schema's sample, changed, with duplicates, or raw. */
function queryString(schema: unknown): fc.Arbitrary<string> {
  const keys = Object.keys(propertiesOf(schema));
  const sample = () => Object.entries(sampleOf(schema) as Record<string, unknown>).map(([k, v]) => [k, String(v)] as [string, string]);
  const value = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("", "true", "1.5", "-1", "NaN", "1e999", "\u0000", "a".repeat(20_000), "me", "\ud800"));
  const key = keys.length ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 10 })) : fc.string({ maxLength: 10 });
  const encode = (pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${safeEncode(v)}`).join("&");
  return fc.oneof(
    fc.constant(null).map(() => encode(sample())),
    fc.array(fc.tuple(key, value), { maxLength: 4 }).map((extra) => encode([...sample(), ...extra])),
    fc.constantFrom("a=%", "a=%zz", "%00=%00", "a[b]=1&a[c]=2", "a=1&a=2&a=3", "limit=1&limit=2", "&&&==", "user_id=me&user_id=" + "a".repeat(5000)),
  );
}

/** encodeURIComponent, except lone surrogates (which it refuses) become an invalid percent-encoded UTF-8 byte. */
function safeEncode(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return "%ED%A0%80";
  }
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json; charset=latin1",
  "application/jsonx",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/octet-stream",
  "multipart/form-data; boundary=xyz",
  "application/xml",
  ";",
  "",
];

/** The body bytes and content type. */
function body(route: RouteSpec): fc.Arbitrary<{ type?: string; bytes?: Buffer }> {
  const json = mutated(route.schemas.body).map((v) => Buffer.from(JSON.stringify(v) ?? "null"));
  return fc.oneof(
    { weight: 6, arbitrary: json.map((bytes) => ({ type: "application/json", bytes })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...CONTENT_TYPES), json).map(([type, bytes]) => ({ type, bytes })) },
    { weight: 1, arbitrary: fc.constant<{ type?: string; bytes?: Buffer }>({}) },
    { weight: 1, arbitrary: fc.tuple(json, fc.nat()).map(([bytes, at]) => ({ type: "application/json", bytes: invalidUtf8(bytes, at) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ type: "application/json", bytes: Buffer.from(b) })) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((d) => ({ type: "application/json", bytes: Buffer.from("[".repeat(d) + "]".repeat(d)) })) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((d) => ({ type: "application/json", bytes: Buffer.from('{"a":'.repeat(d) + "1" + "}".repeat(d)) })) },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "{", "null", "[]", '"x"', "1", '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}').map((t) => ({ type: "application/json", bytes: Buffer.from(t) })) },
    { weight: 1, arbitrary: fc.constantFrom("a=1&b=2", "%zz=1", "email=%00").map((t) => ({ type: "application/x-www-form-urlencoded", bytes: Buffer.from(t) })) },
  );
}

function invalidUtf8(bytes: Buffer, at: number): Buffer {
  const i = bytes.length ? at % bytes.length : 0;
  return Buffer.concat([bytes.subarray(0, i), Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]), bytes.subarray(i)]);
}

type Creds = Record<string, string>;

/** Authentication headers: a principal's, under one prefix, both, conflicting, or duplicated. */
function authHeaders(p: FuzzPrincipals, route: RouteSpec): fc.Arbitrary<Record<string, string | string[]>> {
  const keysOf = (type: string): Creds => {
    const c: Creds = { "project-id": p.projectId, "access-type": type, "publishable-client-key": p.publishableClientKey };
    if (type === "server") c["secret-server-key"] = p.secretServerKey;
    if (type === "admin") c["super-secret-admin-key"] = p.superSecretAdminKey;
    return c;
  };
  const destructive = route.method === "DELETE" && route.path === "/internal/projects/current";
  const creds: fc.Arbitrary<Creds> = destructive
    ? fc.constant({ "project-id": p.victim.projectId, "access-type": "admin", "admin-access-token": p.victim.adminAccessToken })
    : fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom("client", "server", "admin").map(keysOf) },
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...(p.accessTokens.length ? p.accessTokens : ["none"])), fc.boolean()).map(([t, anon]) => ({ ...keysOf("client"), "access-token": t, ...(anon ? { "allow-anonymous-user": "true" } : {}) })) },
        { weight: 1, arbitrary: fc.constant({}) },
        {
          weight: 2,
          arbitrary: fc.tuple(fc.constantFrom("client", "server", "admin"), fc.constantFrom("project-id", "access-type", "publishable-client-key", "secret-server-key", "super-secret-admin-key", "admin-access-token", "access-token", "refresh-token", "branch-id"), headerText).map(([t, k, v]) => ({ ...keysOf(t), [k]: v })),
        },
      );
  const extras = fc.dictionary(
    fc.constantFrom("override-error-status", "random-nonce", "client-version", "allow-anonymous-user", "allow-restricted-user", "development-override-key", "refresh-token", "branch-id"),
    headerText,
    { maxKeys: 3 },
  );
  return fc.tuple(creds, extras, fc.constantFrom("stack", "hexclave", "both", "conflict", "duplicate"), headerText).map(([c, extra, how, other]) => {
    const all: Creds = { ...extra, ...c };
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(all)) {
      if (how === "stack" || how === "hexclave") out[`x-${how}-${name}`] = value;
      else if (how === "both") for (const prefix of PREFIXES) out[`${prefix}${name}`] = value;
      else if (how === "conflict") {
        out[`x-stack-${name}`] = value;
        out[`x-hexclave-${name}`] = other;
      } else out[`x-stack-${name}`] = [value, other];
    }
    return out;
  });
}

/** One hostile request to `route`. */
export function requestFor(route: RouteSpec, p: FuzzPrincipals): fc.Arbitrary<FuzzCase> {
  const names = paramNames(route);
  const paramSchemas = propertiesOf(route.schemas.params);
  const params = fc.tuple(...names.map((n) => pathParam(n, paramSchemas[n]))).map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]!])));
  return fc
    .record({
      prefix: fc.constantFrom("/api/v1", "/api/v1", "/api/v1", "/api/latest"),
      params,
      query: fc.oneof(fc.constant(""), queryString(route.schemas.query)),
      body: route.method === "GET" ? fc.oneof({ weight: 4, arbitrary: fc.constant<{ type?: string; bytes?: Buffer }>({}) }, { weight: 1, arbitrary: body(route) }) : body(route),
      auth: authHeaders(p, route),
      trailingSlash: fc.boolean(),
    })
    .map(({ prefix, params: ps, query, body: b, auth, trailingSlash }) => {
      const headers: Record<string, string | string[]> = { ...auth };
      if (b.type !== undefined) headers["content-type"] = b.type;
      const path = `${prefix}${fillPath(route, ps)}${trailingSlash ? "/" : ""}${query ? `?${query}` : ""}`;
      return { route: `${route.method} ${route.path}`, request: { method: route.method, path, headers, body: b.bytes } };
    });
}

/** A request to any route, each route equally likely. */
export function anyRequest(p: FuzzPrincipals): fc.Arbitrary<FuzzCase> {
  return fc.integer({ min: 0, max: ROUTES.length - 1 }).chain((i) => requestFor(ROUTES[i]!, p));
}
