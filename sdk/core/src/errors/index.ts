export { KNOWN_ERROR_DATA } from "./catalogue.gen.ts";
export { KnownError, KnownErrors, isKnownErrorCode, isKnownErrorOf, knownErrorClass } from "./known-errors.ts";
export type {
  AbstractKnownErrorCode,
  CodesUnder,
  ConcreteKnownErrorCode,
  KnownErrorClass,
  KnownErrorCode,
  KnownErrorDetails,
  KnownErrorJson,
  KnownErrorName,
  KnownErrorOf,
  KnownErrorsMap,
} from "./known-errors.ts";
export { STATUS_NAMES, StatusError } from "./status-error.ts";
export type { NamedStatus } from "./status-error.ts";
