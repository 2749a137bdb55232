/**
 * The two kinds of error responses of the public contract (contract/errors.md §1):
 *  - KnownError: a catalogued code, answered as JSON `{code, details?, error}` plus the known-error header;
 *  - StatusError: an ad-hoc plain-text error with a chosen status (e.g. 403 "Client can only list teams...").
 * Throw sites create them with `knownError()` / `statusError()`; the gateway and the RPC layer decide the wire form.
 */
import {
  KNOWN_ERRORS,
  isConcreteKnownErrorCode,
  knownErrorCodeIsA,
  type ConcreteCodesUnder,
  type ConcreteKnownErrorCode,
  type DetailsOf,
  type KnownErrorArgs,
  type KnownErrorCode,
  type KnownErrorHttpStatus,
} from "./catalogue.ts";

// Brands make the type guards work across realms and duplicated copies of this module.
const KNOWN_ERROR_BRAND = Symbol.for("vestibule.shared.errors.KnownError");
const STATUS_ERROR_BRAND = Symbol.for("vestibule.shared.errors.StatusError");

function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** The JSON body of a known error, key order `code`, `details` (only if the code has details), `error`. */
export type KnownErrorBody<C extends ConcreteKnownErrorCode = ConcreteKnownErrorCode> = C extends ConcreteKnownErrorCode
  ? DetailsOf<C> extends undefined
    ? { code: C; error: string }
    : { code: C; details: DetailsOf<C>; error: string }
  : never;

export class KnownError<C extends ConcreteKnownErrorCode = ConcreteKnownErrorCode> extends Error {
  override readonly name = "KnownError";
  readonly code: C;
  /** The wire details; `undefined` for codes without details. */
  readonly details: DetailsOf<C>;
  readonly httpStatus: KnownErrorHttpStatus;

  /**
   * Low-level constructor: the message is taken as given (e.g. read back from a service). Prefer `knownError()`,
   * which renders the catalogue message and keeps only the code's detail keys.
   */
  constructor(code: C, details: DetailsOf<C>, message: string, options?: ErrorOptions) {
    super(message, options);
    if (!isConcreteKnownErrorCode(code)) throw new TypeError(`Not a concrete known error code: ${String(code)}`);
    const entry = KNOWN_ERRORS[code];
    this.code = code;
    this.details = (entry.detailKeys.length > 0 ? (details ?? {}) : undefined) as DetailsOf<C>;
    this.httpStatus = entry.httpStatus;
  }

  /** The contract's response body. */
  toJSON(): KnownErrorBody<C> {
    const body =
      this.details === undefined
        ? { code: this.code, error: this.message }
        : { code: this.code, details: this.details, error: this.message };
    return body as KnownErrorBody<C>;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return this === KnownError ? hasBrand(value, KNOWN_ERROR_BRAND) : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}
Object.defineProperty(KnownError.prototype, KNOWN_ERROR_BRAND, { value: true });

/**
 * Creates the known error `code` with its exact contract message. The input holds the code's wire details (and, for a
 * few codes, message-only params such as INVALID_ACCESS_TYPE's `accessType`); codes without input take no argument.
 */
export function knownError<C extends ConcreteKnownErrorCode>(code: C, ...args: KnownErrorArgs<C>): KnownError<C> {
  if (!isConcreteKnownErrorCode(code)) throw new TypeError(`Not a concrete known error code: ${String(code)}`);
  const entry = KNOWN_ERRORS[code as ConcreteKnownErrorCode];
  const input = args[0] as Record<string, unknown> | undefined;
  const message = (entry.message as (input: unknown) => string)(input);
  let details: Record<string, unknown> | undefined;
  if (entry.detailKeys.length > 0) {
    details = {};
    for (const key of entry.detailKeys) details[key] = input?.[key];
  }
  return new KnownError(code, details as DetailsOf<C>, message);
}

/**
 * True for any KnownError; with `code`, only when the error is that code or descends from it (abstract parents work
 * like the SDK's `isInstance`, e.g. `isKnownError(err, "INVALID_ACCESS_TOKEN")` matches ACCESS_TOKEN_EXPIRED).
 */
export function isKnownError(value: unknown): value is KnownError;
export function isKnownError<C extends KnownErrorCode>(value: unknown, code: C): value is KnownError<ConcreteCodesUnder<C>>;
export function isKnownError(value: unknown, code?: KnownErrorCode): boolean {
  if (!hasBrand(value, KNOWN_ERROR_BRAND)) return false;
  if (code === undefined) return true;
  const actual = (value as KnownError).code;
  return isConcreteKnownErrorCode(actual) && knownErrorCodeIsA(actual, code);
}

/** A plain-text HTTP error: the body is the message, with no known-error header. */
export class StatusError extends Error {
  override readonly name = "StatusError";
  readonly httpStatus: number;
  /** For 429 / 503: seconds to wait before retrying, sent as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(httpStatus: number, message: string, options?: ErrorOptions & { retryAfterSeconds?: number }) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
    if (!Number.isInteger(httpStatus) || httpStatus < 400 || httpStatus > 599) {
      throw new RangeError(`StatusError needs a 4xx or 5xx status, got ${httpStatus}`);
    }
    this.httpStatus = httpStatus;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return this === StatusError ? hasBrand(value, STATUS_ERROR_BRAND) : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}
Object.defineProperty(StatusError.prototype, STATUS_ERROR_BRAND, { value: true });

export function statusError(status: number, message: string, options?: { retryAfterSeconds?: number }): StatusError {
  return new StatusError(status, message, options);
}

export function isStatusError(value: unknown): value is StatusError {
  return hasBrand(value, STATUS_ERROR_BRAND);
}
