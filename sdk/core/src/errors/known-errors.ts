/**
 * Typed known errors. Every code of the contract's catalogue is a class (named as in the published SDK, e.g.
 * `KnownErrors.UserNotFound`), abstract parents included, so `instanceof KnownErrors.RefreshTokenError` or
 * `KnownErrors.RefreshTokenError.isInstance(err)` matches every refresh-token failure. A response's JSON is turned back
 * into the right class with `KnownError.fromJson`; a code this SDK does not know becomes `UnsupportedError` keeping
 * the original code in `details.originalErrorCode`.
 */
import { KNOWN_ERROR_DATA } from "./catalogue.gen.ts";
import { StatusError } from "./status-error.ts";

type Data = typeof KNOWN_ERROR_DATA;
export type KnownErrorCode = keyof Data;
export type AbstractKnownErrorCode = { [C in KnownErrorCode]: Data[C]["abstract"] extends true ? C : never }[KnownErrorCode];
export type ConcreteKnownErrorCode = Exclude<KnownErrorCode, AbstractKnownErrorCode>;
/** The concrete codes that are `C` or descend from it. */
export type CodesUnder<C extends KnownErrorCode> = {
  [L in ConcreteKnownErrorCode]: L extends C ? L : C extends Data[L]["parents"][number] ? L : never;
}[ConcreteKnownErrorCode];
export type KnownErrorName = Data[KnownErrorCode]["name"];
type CodeOfName<N extends KnownErrorName> = { [C in KnownErrorCode]: Data[C]["name"] extends N ? C : never }[KnownErrorCode];

export type KnownErrorDetails = Readonly<Record<string, unknown>>;

/** The JSON a known-error response carries (the message key is `error` on the wire; `message` is accepted too). */
export interface KnownErrorJson {
  readonly code: string;
  readonly error?: string;
  readonly message?: string;
  readonly details?: KnownErrorDetails;
}

export class KnownError extends StatusError {
  /** The wire code of this error (a concrete code; parents are only classes). */
  readonly errorCode: ConcreteKnownErrorCode;
  readonly details: KnownErrorDetails | undefined;
  readonly humanReadableMessage: string;

  constructor(code: ConcreteKnownErrorCode, message?: string, details?: KnownErrorDetails) {
    const data = KNOWN_ERROR_DATA[code];
    // No message from the server and no fixed one (the catalogue's docs stay out of the bundle that every sign-in page
    // loads): the code itself says what happened.
    const text = message ?? data.message ?? code;
    super(data.status, text);
    this.name = `KnownError<${code}>`;
    this.errorCode = code;
    this.details = details;
    this.humanReadableMessage = text;
  }

  override getBody(): Uint8Array {
    return new TextEncoder().encode(JSON.stringify(this.toJson()));
  }

  override getHeaders(): Record<string, string[]> {
    return { "content-type": ["application/json; charset=utf-8"], "x-stack-known-error": [this.errorCode] };
  }

  toJson(): { code: string; details?: KnownErrorDetails; error: string } {
    return { code: this.errorCode, ...(this.details === undefined ? {} : { details: this.details }), error: this.humanReadableMessage };
  }

  override toDescriptiveJson(): Record<string, unknown> {
    return { status_code: this.statusCode, message: this.message, code: this.errorCode, details: this.details };
  }

  static isKnownError(value: unknown): value is KnownError {
    return value instanceof KnownError;
  }

  /** Rebuilds the typed error from a response body. */
  static fromJson(json: KnownErrorJson): KnownError {
    const ctor = knownErrorClassByCode.get(json.code);
    const message = json.error ?? json.message;
    if (ctor && !KNOWN_ERROR_DATA[json.code as KnownErrorCode].abstract) {
      return new (ctor as unknown as new (message?: string, details?: KnownErrorDetails) => KnownError)(message, json.details);
    }
    return new UnsupportedErrorImpl(undefined, { originalErrorCode: json.code });
  }
}

/** An instance of the error class of `C` (for a parent: of any of its descendants). */
export type KnownErrorOf<C extends KnownErrorCode> = KnownError & { readonly errorCode: CodesUnder<C> };

export interface KnownErrorClass<C extends KnownErrorCode> {
  new (message?: string, details?: KnownErrorDetails): KnownErrorOf<C>;
  readonly errorCode: C;
  readonly prototype: KnownErrorOf<C>;
  isInstance(value: unknown): value is KnownErrorOf<C>;
}

const knownErrorClassByCode = new Map<string, KnownErrorClass<KnownErrorCode>>();

function makeClass(code: KnownErrorCode): KnownErrorClass<KnownErrorCode> {
  const data = KNOWN_ERROR_DATA[code];
  const parentCode = data.parents[0] as KnownErrorCode | undefined;
  const Base = (parentCode ? knownErrorClassByCode.get(parentCode)! : KnownError) as unknown as new (
    code: ConcreteKnownErrorCode,
    message?: string,
    details?: KnownErrorDetails,
  ) => KnownError;
  const isAbstract = data.abstract;
  // A named class per code (the name shows in stack traces and error overlays).
  const cls = {
    [data.name]: class extends Base {
      constructor(...args: unknown[]) {
        // Subclasses pass (code, message, details); user code calls `new KnownErrors.X(message?, details?)`.
        if (typeof args[0] === "string" && knownErrorClassByCode.has(args[0]) && args.length === 3) {
          super(args[0] as ConcreteKnownErrorCode, args[1] as string | undefined, args[2] as KnownErrorDetails | undefined);
        } else {
          if (isAbstract) throw new TypeError(`${data.name} is abstract; construct one of its concrete subclasses`);
          super(code as ConcreteKnownErrorCode, args[0] as string | undefined, args[1] as KnownErrorDetails | undefined);
        }
      }
    },
  }[data.name]!;
  Object.defineProperty(cls, "errorCode", { value: code, enumerable: true });
  Object.defineProperty(cls, "isInstance", { value: (value: unknown) => value instanceof cls });
  return cls as unknown as KnownErrorClass<KnownErrorCode>;
}

// Parents come before their children in the catalogue (abstract codes first), so each base class exists already.
for (const code of Object.keys(KNOWN_ERROR_DATA) as KnownErrorCode[]) {
  knownErrorClassByCode.set(code, makeClass(code));
}

export type KnownErrorsMap = { readonly [N in KnownErrorName]: KnownErrorClass<CodeOfName<N>> };

/** Every known error class by its published-SDK name. */
export const KnownErrors: KnownErrorsMap = Object.freeze(
  Object.fromEntries([...knownErrorClassByCode].map(([code, cls]) => [KNOWN_ERROR_DATA[code as KnownErrorCode].name, cls])),
) as KnownErrorsMap;

/** The class of a code. */
export function knownErrorClass<C extends KnownErrorCode>(code: C): KnownErrorClass<C> {
  return knownErrorClassByCode.get(code) as unknown as KnownErrorClass<C>;
}

export function isKnownErrorCode(value: unknown): value is KnownErrorCode {
  return typeof value === "string" && Object.hasOwn(KNOWN_ERROR_DATA, value);
}

/** True when `err` is a known error of `code` or of one of its descendants. */
export function isKnownErrorOf<C extends KnownErrorCode>(err: unknown, code: C): err is KnownErrorOf<C> {
  return knownErrorClass(code).isInstance(err);
}

const UnsupportedErrorImpl = knownErrorClassByCode.get("UNSUPPORTED_ERROR")! as unknown as new (
  message?: string,
  details?: KnownErrorDetails,
) => KnownError;
