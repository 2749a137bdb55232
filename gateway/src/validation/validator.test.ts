import { describe, expect, it } from "vitest";
import Type from "typebox";
import {
  Base64,
  CallbackUrl,
  DisplayName,
  Email,
  FreeformObj,
  ImageUrl,
  JsonString,
  Metadata,
  NonEmptyString,
  Nullable,
  Obj,
  OneOf,
  Optional,
  Password,
  QueryBoolean,
  QueryInteger,
  Url,
  UserIdOrMe,
  Uuid,
  compileRequestValidator,
  formatValidationMessage,
  printValue,
} from "./index.ts";
import type { RequestInput, RequestSchemas } from "./index.ts";
import { MAX_REPORTED_ERRORS } from "./validator.ts";

const UUID = "cad564fd-f81b-43f4-b390-98abf3fcc17e";

/** Validates one request and returns the rule lines (or throws when the request passed). */
function linesOf(schemas: RequestSchemas, input: Partial<RequestInput>): string[] {
  const result = compileRequestValidator(schemas)({ method: "POST", path: "/api/v1/test", body: undefined, query: {}, params: {}, ...input });
  if (result.ok) throw new Error(`expected a validation failure, got ${JSON.stringify(result)}`);
  return result.lines;
}

function bodyLines(body: Record<string, unknown>, fields: Parameters<typeof Obj>[0]): string[] {
  return linesOf({ body: Obj(fields) }, { body });
}

function passes<S extends RequestSchemas>(schemas: S, input: Partial<RequestInput>) {
  const result = compileRequestValidator(schemas)({ method: "POST", path: "/api/v1/test", body: undefined, query: {}, params: {}, ...input });
  if (!result.ok) throw new Error(`expected success, got:\n${result.message}`);
  return result;
}

describe("SCHEMA_ERROR text", () => {
  const update = { body: Obj({ old_password: Password(), new_password: Password() }) };

  it("has the contract's header and one indented line per rule (path without query string)", () => {
    const result = compileRequestValidator(update)({
      method: "POST",
      path: "/api/v1/auth/password/update?x=1",
      body: { new_password: "new-password" },
      query: {},
      params: {},
    });
    expect(result).toEqual({
      ok: false,
      lines: ["body.old_password must be defined"],
      message: "Request validation failed on POST /api/v1/auth/password/update:\n  - body.old_password must be defined",
    });
  });

  it("puts the caller's extra lines first and fails on them alone", () => {
    const validate = compileRequestValidator(update);
    const input = { method: "POST", path: "/api/v1/auth/password/update", query: {}, params: {}, extraErrors: ["auth.user must be defined"] };
    expect(validate({ ...input, body: { old_password: "a", new_password: "b" } })).toMatchObject({
      ok: false,
      message: "Request validation failed on POST /api/v1/auth/password/update:\n  - auth.user must be defined",
    });
    expect(validate({ ...input, body: { new_password: "b" } })).toMatchObject({
      lines: ["auth.user must be defined", "body.old_password must be defined"],
    });
  });

  it("collects every failing rule in one response, fields in declaration order and unknown keys last", () => {
    expect(linesOf(update, { body: { z: 1, a: 2, new_password: "x".repeat(71) } })).toEqual([
      "body.old_password must be defined",
      "body.new_password must be at most 70 characters",
      "body contains unknown properties: z, a",
    ]);
  });

  it("indents the continuation lines of a multi-line rule by two spaces", () => {
    expect(formatValidationMessage("POST", "/api/v1/x", ["a\n  b", "c"])).toBe("Request validation failed on POST /api/v1/x:\n  - a\n    b\n  - c");
  });
});

describe("body presence and shape", () => {
  const schemas = { body: Obj({ a: Optional(Type.String()) }) };

  it("a missing body must be defined, null cannot be null, a non-object is a type error", () => {
    expect(linesOf(schemas, { body: undefined })).toEqual(["body must be defined"]);
    expect(linesOf(schemas, { body: null })).toEqual(["body cannot be null"]);
    expect(linesOf(schemas, { body: "hello" })).toEqual(['body must be a `object` type, but the final value was: `"hello"`.']);
    expect(linesOf(schemas, { body: [1] })).toEqual(['body must be a `object` type, but the final value was: `[\n  "1"\n]`.']);
  });

  it("a binary body is one line, at once, whatever its size", () => {
    const started = performance.now();
    expect(linesOf(schemas, { body: Buffer.alloc(400_000, 97) })).toEqual(["body must be a JSON value; the request sent 400000 bytes of binary data (application/octet-stream)."]);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("an Optional body may be absent; parts without a schema are not checked", () => {
    expect(passes({ body: Optional(Obj({})) }, { body: undefined }).body).toBeUndefined();
    expect(passes({}, { body: { x: 1 }, query: { y: "1" }, params: { z: "2" } })).toEqual({ ok: true, body: undefined, query: {}, params: {} });
  });
});

describe("rule messages", () => {
  it("must be defined, also nested and in arrays", () => {
    const fields = { user: Obj({ id: Uuid() }), items: Type.Array(Obj({ id: Uuid() })) };
    expect(bodyLines({ user: {}, items: [{ id: UUID }, {}] }, fields)).toEqual(["body.user.id must be defined", "body.items[1].id must be defined"]);
  });

  it("contains unknown properties: one line per object, keys joined by ', ', nested paths", () => {
    const fields = { profile: Obj({ name: DisplayName() }), items: Type.Array(Obj({ id: Uuid() })) };
    expect(bodyLines({ profile: { name: "x", a: 1, b: 2 }, items: [{ id: UUID, c: 3 }], d: 4 }, fields)).toEqual([
      "body.profile contains unknown properties: a, b",
      "body.items[0] contains unknown properties: c",
      "body contains unknown properties: d",
    ]);
  });

  it("unknown keys are rejected in query and params too", () => {
    expect(linesOf({ query: Obj({ team_id: Optional(Uuid()) }), params: Obj({ user_id: UserIdOrMe() }) }, { query: { extra: "1", other: "2" }, params: { user_id: "me", x: "y" } })).toEqual([
      "query contains unknown properties: extra, other",
      "params contains unknown properties: x",
    ]);
  });

  it("must be a valid UUID (uuid and user id or me)", () => {
    expect(linesOf({ params: Obj({ team_id: Uuid(), user_id: UserIdOrMe() }) }, { params: { team_id: "abc", user_id: "you" } })).toEqual([
      "params.team_id must be a valid UUID",
      "params.user_id must be a valid UUID",
    ]);
    expect(passes({ params: Obj({ user_id: UserIdOrMe() }) }, { params: { user_id: "me" } }).params).toEqual({ user_id: "me" });
    expect(passes({ params: Obj({ user_id: UserIdOrMe() }) }, { params: { user_id: UUID.toUpperCase() } }).ok).toBe(true);
  });

  it("strict e-mail: valid format, the strict rule (Stack's matches text), at most 256 characters", () => {
    const strict = '"/^[^.]+(\\.[^.]+)*@.*\\.[^.][^.]+$/"';
    expect(bodyLines({ email: "not an email" }, { email: Email() })).toEqual([
      "body.email must be a valid email",
      `body.email must match the following: ${strict}`,
    ]);
    for (const email of ["test@gmail", "test..test@example.com", ".test@example.com", "test.@example.com", "test@gmail.a"]) {
      expect(bodyLines({ email }, { email: Email() })).toEqual([`body.email must match the following: ${strict}`]);
    }
    expect(bodyLines({ email: `${"a".repeat(250)}@example.com` }, { email: Email() })).toEqual(["body.email must be at most 256 characters"]);
    for (const email of ["a@example.com", "a.b@example.com", "throwaway.mail+token@example.com", "%!~&+{}=|`#@domain.test", "admin@a.longtldexample"]) {
      expect(passes({ body: Obj({ email: Email() }) }, { body: { email } }).ok).toBe(true);
    }
  });

  it("URLs: contains spaces, is not a valid URL; image URLs accept data URLs up to 1,000,000 characters", () => {
    expect(bodyLines({ url: "not a url" }, { url: Url() })).toEqual(["body.url contains spaces", "body.url is not a valid URL"]);
    expect(bodyLines({ url: "example.com/x" }, { url: CallbackUrl() })).toEqual(["body.url is not a valid URL"]);
    expect(linesOf({ query: Obj({ redirect_uri: Url() }) }, { query: { redirect_uri: "http://a.com/ x" } })).toEqual(["query.redirect_uri contains spaces"]);
    const image = `data:image/png;base64,${"A".repeat(1_000_000)}`;
    expect(bodyLines({ profile_image_url: image }, { profile_image_url: ImageUrl() })).toEqual([
      "body.profile_image_url must be at most 1000000 characters",
    ]);
    expect(passes({ body: Obj({ u: ImageUrl(), v: Url() }) }, { body: { u: "data:image/png;base64,iVBORw0KGgo=", v: "http://localhost:3000/cb" } }).ok).toBe(true);
  });

  it("string lengths: at most, at least, exactly, must not be empty", () => {
    const fields = {
      display_name: DisplayName(),
      description: Type.String({ minLength: 3 }),
      code: Type.String({ minLength: 45, maxLength: 45 }),
      hashed_key: NonEmptyString(),
    };
    expect(bodyLines({ display_name: "x".repeat(257), description: "ab", code: "abc", hashed_key: "" }, fields)).toEqual([
      "body.display_name must be at most 256 characters",
      "body.description must be at least 3 characters",
      "body.code must be exactly 45 characters",
      "body.hashed_key must not be empty",
    ]);
  });

  it("is not valid base64, is not valid JSON", () => {
    expect(bodyLines({ totp_secret_base64: "not-valid-base64", options_json: "{" }, { totp_secret_base64: Base64(), options_json: JsonString() })).toEqual([
      "body.totp_secret_base64 is not valid base64",
      "body.options_json is not valid JSON",
    ]);
    expect(passes({ body: Obj({ s: Base64() }) }, { body: { s: "ZXhhbXBsZSB2YWx1ZQ==" } }).ok).toBe(true);
  });

  it("must be one of the following values (oneOf lists and literal unions)", () => {
    const fields = { is_anonymous: Optional(OneOf([false])), type: Optional(OneOf(["user", "team"])), kind: Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])) };
    expect(bodyLines({ is_anonymous: true, type: "x", kind: "c" }, fields)).toEqual([
      "body.is_anonymous must be one of the following values: false",
      "body.type must be one of the following values: user, team",
      "body.kind must be one of the following values: a, b",
    ]);
  });

  it("numbers: less than or equal, greater than or equal, integer", () => {
    const fields = { expires_in_millis: Optional(Type.Number({ maximum: 31708800000 })), quantity: Optional(Type.Integer({ minimum: 1 })) };
    expect(bodyLines({ expires_in_millis: 31708800001, quantity: 0 }, fields)).toEqual([
      "body.expires_in_millis must be less than or equal to 31708800000",
      "body.quantity must be greater than or equal to 1",
    ]);
    expect(bodyLines({ quantity: 1.5 }, fields)).toEqual(["body.quantity must be an integer"]);
  });

  it("integers without their own bounds are bounded to the safe integers (int64 fields behind them)", () => {
    const fields = { delta: Type.Integer(), expires_at_millis: Optional(Type.Integer({ minimum: 0 })), list: Optional(Type.Array(Type.Integer())) };
    expect(bodyLines({ delta: 1.7976931348623133e308, expires_at_millis: 2 ** 53, list: [1, -(2 ** 60)] }, fields)).toEqual([
      "body.delta must be less than or equal to 9007199254740991",
      "body.expires_at_millis must be less than or equal to 9007199254740991",
      "body.list[1] must be greater than or equal to -9007199254740991",
    ]);
    const body = { delta: Number.MAX_SAFE_INTEGER, expires_at_millis: 0, list: [-Number.MAX_SAFE_INTEGER] };
    expect(passes({ body: Obj(fields) }, { body }).body).toEqual(body);
  });

  it("yup's type error, with the value printed as yup prints it", () => {
    const fields = { a: Optional(Type.String()), b: Optional(Type.String()), c: Optional(Type.Boolean()), d: Optional(Obj({})), e: Optional(Type.Array(Type.String())) };
    expect(bodyLines({ a: {}, b: [1, "x"], c: "yes", d: "str", e: "x" }, fields)).toEqual([
      "body.a must be a `string` type, but the final value was: `{}`.",
      'body.b must be a `string` type, but the final value was: `[\n  "1",\n  "\\"x\\""\n]`.',
      'body.c must be a `boolean` type, but the final value was: `"yes"`.',
      'body.d must be a `object` type, but the final value was: `"str"`.',
      'body.e must be a `array` type, but the final value was: `"x"`.',
    ]);
  });

  it("null: cannot be null unless Nullable; metadata takes any JSON", () => {
    const fields = { name: DisplayName(), kind: OneOf(["a"]), team_id: Nullable(Uuid()), metadata: Metadata(), display: Optional(Nullable(DisplayName())) };
    expect(bodyLines({ name: null, kind: null, team_id: null, metadata: null }, fields)).toEqual(["body.name cannot be null", "body.kind cannot be null"]);
    expect(bodyLines({ name: "n", kind: "a", team_id: "x", metadata: { any: [1, null] }, display: "x".repeat(257) }, fields)).toEqual([
      "body.team_id must be a valid UUID",
      "body.display must be at most 256 characters",
    ]);
    expect(bodyLines({ name: "n", kind: "a", team_id: UUID }, fields)).toEqual(["body.metadata must be defined"]);
    const ok = passes({ body: Obj(fields) }, { body: { name: "n", kind: "a", team_id: null, metadata: "text", display: null } });
    expect(ok.body).toEqual({ name: "n", kind: "a", team_id: null, metadata: "text", display: null });
  });

  it("free-form objects keep unknown keys", () => {
    const ok = passes({ body: FreeformObj({ grant_type: Type.String() }) }, { body: { grant_type: "refresh_token", client_id: "x" } });
    expect(ok.body).toEqual({ grant_type: "refresh_token", client_id: "x" });
  });

  it("keys containing a dot are written as yup writes them", () => {
    expect(bodyLines({ "a.b": "x" }, { "a.b": Uuid() })).toEqual(['body["a.b"] must be a valid UUID']);
  });

  it("unions list each schema's failures (contract: union bodies)", () => {
    const schemas = {
      body: Type.Union([Obj({ html: Type.String() }), Obj({ template_id: Uuid(), variables: Optional(FreeformObj({})) })]),
    };
    const result = compileRequestValidator(schemas)({
      method: "POST",
      path: "/api/v1/emails/send-email",
      body: { template_id: UUID, variables: ["not"] },
      query: {},
      params: {},
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toBe(
      [
        "Request validation failed on POST /api/v1/emails/send-email:",
        "  - body is not matched by any of the provided schemas:",
        "    Schema 0:",
        "      body.html must be defined",
        "      body contains unknown properties: template_id, variables",
        "    Schema 1:",
        "      body.variables must be a `object` type, but the final value was: `[",
        '        "\\"not\\""',
        "      ]`.",
      ].join("\n"),
    );
  });
});

describe("coercions", () => {
  const list = { query: Obj({ include_anonymous: Optional(QueryBoolean()), limit: Optional(QueryInteger({ minimum: 1 })), desc: Optional(QueryBoolean({ default: false })) }) };

  it("query booleans: 'true'/'false' become booleans, anything else is a oneOf error", () => {
    expect(passes(list, { query: { include_anonymous: "true", desc: "true" } }).query).toEqual({ include_anonymous: true, desc: true });
    expect(passes(list, { query: { include_anonymous: "false" } }).query).toEqual({ include_anonymous: false, desc: false });
    expect(linesOf(list, { query: { include_anonymous: "yes" } })).toEqual(["query.include_anonymous must be one of the following values: true, false"]);
  });

  it("query integers: digits become numbers; yup's cast messages otherwise", () => {
    expect(passes(list, { query: { limit: "20" } }).query).toEqual({ limit: 20, desc: false });
    expect(linesOf(list, { query: { limit: "abc" } })).toEqual([
      'query.limit must be a `number` type, but the final value was: `NaN` (cast from the value `"abc"`).',
    ]);
    expect(linesOf(list, { query: { limit: "" } })).toEqual(['query.limit must be a `number` type, but the final value was: `NaN` (cast from the value `""`).']);
    expect(linesOf(list, { query: { limit: "1.5" } })).toEqual(["query.limit must be an integer"]);
    expect(linesOf(list, { query: { limit: "0" } })).toEqual(["query.limit must be greater than or equal to 1"]);
  });

  it("a repeated query key keeps its last value; the caller's query object is not modified", () => {
    const query = { limit: ["1", "7"] };
    expect(passes(list, { query }).query).toEqual({ limit: 7, desc: false });
    expect(query).toEqual({ limit: ["1", "7"] });
  });

  it("body values of the wrong primitive type are cast as yup casts them", () => {
    const fields = { name: DisplayName(), count: Optional(Type.Integer()), flag: Optional(Type.Boolean()) };
    expect(passes({ body: Obj(fields) }, { body: { name: 123, count: "12", flag: "false" } }).body).toEqual({ name: "123", count: 12, flag: false });
    expect(bodyLines({ name: "n", count: "many" }, fields)).toEqual([
      'body.count must be a `number` type, but the final value was: `NaN` (cast from the value `"many"`).',
    ]);
    expect(bodyLines({ name: "n", count: true }, fields)).toEqual(["body.count must be a `number` type, but the final value was: `NaN` (cast from the value `true`)."]);
  });

  it("objects JavaScript cannot turn into text (a toString key that is not a method) are type errors, not crashes", () => {
    const fields = { name: Optional(DisplayName()), count: Optional(Type.Integer()), flag: Optional(Type.Boolean()) };
    const hostile = { toString: { a: null }, valueOf: 1 };
    expect(bodyLines({ flag: hostile }, fields)).toEqual([
      'body.flag must be a `boolean` type, but the final value was: `{\n  "toString": {\n    "a": "null"\n  },\n  "valueOf": "1"\n}`.',
    ]);
    expect(bodyLines({ flag: [hostile] }, fields)).toHaveLength(1);
    expect(bodyLines({ count: hostile }, fields)[0]).toMatch(/^body\.count must be a `number` type, but the final value was: `NaN` \(cast from the value/);
    expect(bodyLines({ count: [hostile] }, fields)[0]).toMatch(/^body\.count must be a `number` type, but the final value was: `NaN`/);
    expect(bodyLines({ name: hostile }, fields)[0]).toMatch(/^body\.name must be a `string` type/);
  });
});

describe("schemas", () => {
  it("stay plain JSON Schema (formats and x- keywords) for the OpenAPI document", () => {
    expect(JSON.parse(JSON.stringify(Obj({ url: Url(), id: Optional(Uuid()), on: QueryBoolean() })))).toEqual({
      type: "object",
      additionalProperties: false,
      required: ["url", "on"],
      properties: {
        url: { type: "string", "x-no-spaces": true, format: "url", maxLength: 4096 },
        id: { type: "string", format: "uuid" },
        on: { type: "string", enum: ["true", "false"], "x-decode": "boolean" },
      },
    });
    expect(() => Nullable(Optional(Uuid()))).toThrow(/Optional\(Nullable\(x\)\)/);
  });

  it("a schema compiles once and can be shared by routes; unknown x- keywords are accepted", () => {
    const shared = Obj({ id: Uuid({ "x-internal": true }) });
    const a = compileRequestValidator({ body: shared });
    const b = compileRequestValidator({ params: shared });
    expect(a({ method: "POST", path: "/a", body: { id: UUID }, query: {}, params: {} }).ok).toBe(true);
    expect(b({ method: "GET", path: "/b", body: undefined, query: {}, params: { id: "x" } })).toMatchObject({ lines: ["params.id must be a valid UUID"] });
  });

  it("printValue renders values as yup does", () => {
    expect(printValue("a", true)).toBe('"a"');
    expect(printValue(Number.NaN)).toBe("NaN");
    expect(printValue(-0)).toBe("-0");
    expect(printValue({ a: ["x", 1, null] }, true)).toBe('{\n  "a": [\n    "\\"x\\"",\n    "1",\n    "null"\n  ]\n}');
  });
});

describe("validation cost (issue 18, found by the route fuzzer)", () => {
  it("reports the first failures of a part with thousands of them instead of casting and describing each", () => {
    const validate = compileRequestValidator({ body: Obj({ ids: Type.Array(Type.String()) }) });
    const started = performance.now();
    const result = validate({ method: "POST", path: "/x", body: { ids: Array.from({ length: 10_000 }, (_, i) => ({ i })) }, query: {}, params: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.lines.length).toBe(MAX_REPORTED_ERRORS);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
