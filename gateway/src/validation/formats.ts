/**
 * The custom checks behind the field builders, registered in ajv as string `format`s, plus the vendor keywords the
 * schemas may carry. Each check reproduces the rule the contract (Stack Auth's yup schemas) applies, so the same
 * inputs pass and fail; the wording of the failures lives in messages.ts.
 */

// yup's `string().uuid()`: versions 1-5 with the RFC variant, or the nil UUID; case-insensitive.
const UUID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000)$/i;

// yup's `string().email()` (the HTML spec's valid e-mail address); yup skips the check for "".
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

// Standard base64 with correct padding; "" is valid (Stack's isBase64).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The extra rule of the contract's strict e-mail (spec §5): no empty dot segment in the local part, and a domain that
 * ends in a dot followed by at least two characters. A plain JSON Schema `pattern`, failing with yup's `matches` text.
 */
export const STRICT_EMAIL_PATTERN = "^[^.]+(\\.[^.]+)*@.*\\.[^.][^.]+$";

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function isUserIdOrMe(value: string): boolean {
  return value === "me" || UUID.test(value);
}

export function isEmail(value: string): boolean {
  return value === "" || EMAIL.test(value);
}

/** Anything the WHATWG URL parser accepts as an absolute URL (Stack's isValidUrl), data: URLs included. */
export function isUrl(value: string): boolean {
  return URL.canParse(value);
}

export function isBase64(value: string): boolean {
  return BASE64.test(value);
}

export function isJsonText(value: string): boolean {
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

/** Format name → check. Names appear in the OpenAPI document as the fields' `format`. */
export const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  uuid: isUuid,
  "user-id-or-me": isUserIdOrMe,
  email: isEmail,
  url: isUrl,
  base64: isBase64,
  json: isJsonText,
};

/**
 * Vendor keywords (OpenAPI allows `x-` extensions in schemas):
 *  - `x-no-spaces: true`   validating: the string contains no space (" contains spaces");
 *  - `x-non-empty: true`   annotation on `minLength: 1`: report "must not be empty" instead of the minLength text;
 *  - `x-decode: "boolean"` annotation on a query/params property: "true"/"false" become booleans after validation.
 */
export const X_NO_SPACES = "x-no-spaces";
export const X_NON_EMPTY = "x-non-empty";
export const X_DECODE = "x-decode";

/** Keywords accepted as plain annotations (no validation) so strict ajv does not reject route schemas using them. */
export const ANNOTATION_KEYWORDS: readonly string[] = [X_NON_EMPTY, X_DECODE, "example"];
