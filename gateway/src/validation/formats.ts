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

// Standard base64 with correct padding; "" is valid (Stack's isBase64). Checked as "alphabet, then at most two `=`,
// length a multiple of 4", which is what /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/ says, in
// one pass instead of a backtracking group per quadruple (≈4× faster on a 2 MB body).
const BASE64_ALPHABET = /^[A-Za-z0-9+/]*$/;

/**
 * The extra rule of the contract's strict e-mail (spec §5): no empty dot segment in the local part, and a domain that
 * ends in a dot followed by at least two characters. A plain JSON Schema `pattern`, failing with yup's `matches` text.
 */
export const STRICT_EMAIL_PATTERN = "^[^.]+(\\.[^.]+)*@.*\\.[^.][^.]+$";

const LINE_TERMINATORS = new Set(["\n", "\r", "\u2028", "\u2029"]);

/**
 * `STRICT_EMAIL_PATTERN` tested in one linear pass. The regular expression itself backtracks over every `@` of the
 * input (quadratic: a 40 kB string of `a@` held the event loop for 6 s), and ajv runs it even when `maxLength` has
 * already failed. Same answers as the expression (checked exhaustively on short strings in the tests): some `@` splits
 * the string into a local part of non-empty dot-separated segments and a rest in which `.*` (no line terminators)
 * reaches the last dot, followed by at least two characters. `unicode` counts in code points, as the `u` flag does.
 */
export function matchesStrictEmailPattern(value: string, unicode = true): boolean {
  const chars = unicode ? Array.from(value) : value.split("");
  const lastDot = chars.lastIndexOf(".");
  if (lastDot === -1 || chars.length - lastDot - 1 < 2) return false;
  let lastTerminator = -1;
  for (let i = 0; i < lastDot; i++) if (LINE_TERMINATORS.has(chars[i]!)) lastTerminator = i;
  let localPartOk = true; // chars[0..i) has no empty dot segment so far
  for (let i = 0; i < lastDot; i++) {
    const c = chars[i]!;
    if (c === "@" && i > 0 && localPartOk && chars[i - 1] !== "." && i > lastTerminator) return true;
    if (c === "." && (i === 0 || chars[i - 1] === ".")) localPartOk = false;
  }
  return false;
}

/**
 * ajv's regular-expression engine (`code.regExp`): `pattern` keywords compile to RegExp, except the patterns whose
 * backtracking could be driven by input, which get a linear checker with the same answers.
 */
export function safeRegExp(pattern: string, flags: string): { test(value: string): boolean } {
  if (pattern === STRICT_EMAIL_PATTERN) return { test: (value) => matchesStrictEmailPattern(value, flags.includes("u")) };
  return new RegExp(pattern, flags);
}

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
  if (value.length % 4 !== 0) return false;
  let end = value.length;
  if (value.endsWith("==")) end -= 2;
  else if (value.endsWith("=")) end -= 1;
  return BASE64_ALPHABET.test(end === value.length ? value : value.slice(0, end));
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
