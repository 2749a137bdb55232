import Type from "typebox";
import type { Static, TInteger, TNumberOptions, TObject, TObjectOptions, TProperties, TSchema, TSchemaOptions, TString, TUnsafe } from "typebox";
import { MAX_URL_LENGTH } from "@vestibule/shared/urls";
import { STRICT_EMAIL_PATTERN, X_DECODE, X_NON_EMPTY, X_NO_SPACES } from "./formats.ts";

/**
 * TypeBox builders for the field kinds that recur in the contract (endpoints.md, spec §5). They are plain JSON Schema
 * (they also feed the OpenAPI document): custom checks are `format`s registered in ajv (formats.ts) or `x-` vendor
 * keywords, and validator.ts turns each failure into the contract's yup wording.
 */

/** Documentation options shared by the builders (description, examples, default, …). */
export type FieldOptions = TSchemaOptions;

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

function string(checks: Record<string, unknown>, options: FieldOptions | undefined): TString {
  return Type.String({ ...options, ...checks });
}

/** A UUID (yup's rule: versions 1–5 or the nil UUID). "must be a valid UUID". */
export function Uuid(options?: FieldOptions): TString {
  return string({ format: "uuid" }, options);
}

/** A user id or the literal `me` (the handler substitutes the signed-in user). "must be a valid UUID". */
export function UserIdOrMe(options?: FieldOptions): TString {
  return string({ format: "user-id-or-me" }, options);
}

/**
 * The contract's strict e-mail (spec §5): a valid address ("must be a valid email"), no empty dot segment in the local
 * part and a domain ending in a dot plus at least 2 characters (Stack's `matches` rule, "must match the following:
 * …"), at most 256 characters.
 */
export function Email(options?: FieldOptions): TString {
  return string({ format: "email", pattern: STRICT_EMAIL_PATTERN, maxLength: 256 }, options);
}

/** yup's plain `email()` (no strict rule, no length limit), for fields the contract does not mark strict. */
export function LooseEmail(options?: FieldOptions): TString {
  return string({ format: "email" }, options);
}

/**
 * A URL the WHATWG parser accepts, without spaces, at most `MAX_URL_LENGTH` (4,096) characters: "contains spaces",
 * "is not a valid URL", "must be at most 4096 characters". The services refuse to trust longer URLs as well.
 */
export function Url(options?: FieldOptions): TString {
  return string({ [X_NO_SPACES]: true, format: "url", maxLength: MAX_URL_LENGTH }, options);
}

/**
 * A callback URL that a link (e-mail verification, magic link, reset, invitation) is built on; the `code` query
 * parameter is appended to it. Only its shape is checked here: whether it is on the trusted domains list is the
 * handler's check (REDIRECT_URL_NOT_WHITELISTED).
 */
export function CallbackUrl(options?: FieldOptions): TString {
  return Url({
    description: "The base callback URL the link is built on; a `code` query parameter is appended to it.",
    examples: ["https://example.com/handler/email-verification"],
    ...options,
  });
}

/** An image URL: http(s) or a `data:` URL (base64 images), at most 1,000,000 characters. */
export function ImageUrl(options?: FieldOptions): TString {
  return string({ [X_NO_SPACES]: true, format: "url", maxLength: 1_000_000 }, options);
}

/** A display name, at most 256 characters. */
export function DisplayName(options?: FieldOptions): TString {
  return string({ maxLength: 256 }, options);
}

/** A password, at most 70 characters (the minimum is a handler check: PASSWORD_TOO_SHORT). */
export function Password(options?: FieldOptions): TString {
  return string({ maxLength: 70 }, options);
}

/** Standard base64 with padding: "is not valid base64". */
export function Base64(options?: FieldOptions): TString {
  return string({ format: "base64" }, options);
}

/** A string holding JSON text: "is not valid JSON". */
export function JsonString(options?: FieldOptions): TString {
  return string({ format: "json" }, options);
}

/** A string that must not be "" ("must not be empty"); pass `maxLength` in the options for an upper bound. */
export function NonEmptyString(options?: FieldOptions): TString {
  return string({ minLength: 1, [X_NON_EMPTY]: true }, options);
}

/** Metadata: any JSON value, `null` included (free-form objects keep their unknown keys). */
export function Metadata(options?: FieldOptions): TUnsafe<JsonValue> {
  return Type.Unsafe<JsonValue>({ ...options });
}

/**
 * One of a fixed list of values (yup's `oneOf`): "must be one of the following values: a, b". The JSON type is taken
 * from the values, so a wrong type is reported as a type error as well (as yup does).
 */
export function OneOf<const V extends readonly (string | number | boolean)[]>(values: V, options?: FieldOptions): TUnsafe<V[number]> {
  const types = [...new Set(values.map((v) => typeof v))];
  return Type.Unsafe<V[number]>({ ...options, ...(types.length === 1 ? { type: types[0] } : {}), enum: [...values] });
}

/**
 * A query-string boolean: the strings "true" / "false" ("must be one of the following values: true, false"), handed
 * to the handler as a boolean. Decoded by the validator at the top level of `query` / `params`.
 */
export function QueryBoolean(options?: Omit<FieldOptions, "default"> & { readonly default?: boolean }): TUnsafe<boolean> {
  const { default: fallback, ...rest } = options ?? {};
  return Type.Unsafe<boolean>({
    ...rest,
    type: "string",
    enum: ["true", "false"],
    [X_DECODE]: "boolean",
    ...(fallback === undefined ? {} : { default: String(fallback) }),
  });
}

/**
 * A query-string integer: the string is cast as yup casts it (whitespace removed, then `Number`), so "abc" gives
 * "must be a `number` type, but the final value was: `NaN` (cast from the value `"abc"`)." and "1.5" gives
 * "must be an integer"; `minimum` / `maximum` give yup's number texts.
 */
export function QueryInteger(options?: TNumberOptions): TInteger {
  return Type.Integer(options);
}

/** The largest page a list route answers (issue 18); also the page size when a list is asked for without `limit`. */
export const PAGE_LIMIT_MAX = 1000;

/** A list's `limit` query parameter: 1 to PAGE_LIMIT_MAX ("query.limit must be less than or equal to 1000" above). */
export function PageLimit(): TInteger {
  return QueryInteger({ minimum: 1, maximum: PAGE_LIMIT_MAX });
}

/** An object that rejects unknown properties ("contains unknown properties: a, b"). */
export function Obj<const P extends TProperties>(properties: P, options?: TObjectOptions): TObject<P> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** The opt-out: an object that keeps unknown properties (e.g. `/auth/oauth/token` form fields, passkey payloads). */
export function FreeformObj<const P extends TProperties>(properties: P, options?: TObjectOptions): TObject<P> {
  return Type.Object(properties, options);
}

/** The field may be absent (`undefined`); without it an absent field is "must be defined". */
export const Optional = Type.Optional;

/**
 * The field may be `null` (otherwise `null` is "cannot be null"). Written as `type: [T, "null"]` rather than a union,
 * so a wrong value still gets the field's own message. Wrap optional fields as `Optional(Nullable(x))`.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  if (Type.IsOptional(schema)) throw new Error("Nullable(Optional(x)) loses the optional flag: write Optional(Nullable(x))");
  const raw: Record<string, unknown> = { ...(schema as unknown as Record<string, unknown>) };
  if (typeof raw.type === "string") raw.type = [raw.type, "null"];
  else if (Array.isArray(raw.type) && !raw.type.includes("null")) raw.type = [...raw.type, "null"];
  else if (Array.isArray(raw.anyOf)) raw.anyOf = [...raw.anyOf, { type: "null" }];
  if (Array.isArray(raw.enum) && !raw.enum.includes(null)) raw.enum = [...raw.enum, null];
  if ("const" in raw) {
    raw.enum = [raw.const, null];
    delete raw.const;
  }
  return Type.Unsafe<Static<T> | null>(raw as TSchema);
}
