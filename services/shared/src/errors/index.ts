export {
  CONNECT_CODE_FOR_KNOWN_ERROR_STATUS,
  KNOWN_ERRORS,
  KNOWN_ERROR_CODES,
  isConcreteKnownErrorCode,
  isKnownErrorCode,
  knownErrorCodeIsA,
  knownErrorMessage,
} from "./catalogue.ts";
export type {
  AbstractKnownErrorCode,
  AccessType,
  AncestorsOf,
  ConcreteCodesUnder,
  ConcreteKnownErrorCode,
  CustomerType,
  DetailsOf,
  JsonValue,
  KnownErrorArgs,
  KnownErrorCatalogue,
  KnownErrorCode,
  KnownErrorEntry,
  KnownErrorHttpStatus,
  KnownErrorInput,
  MessageParamsOf,
  PermissionScope,
  SdkGeneration,
} from "./catalogue.ts";
export { KnownError, StatusError, isKnownError, isStatusError, knownError, statusError } from "./known-error.ts";
export { isDatabaseUnavailable } from "./unavailable.ts";
export type { KnownErrorBody } from "./known-error.ts";
export { connectCodeForHttpStatus, fromConnectError, httpStatusForConnectCode, itemErrorToConnectError, toConnectError, toItemError } from "./connect.ts";
export type { ItemErrorFields } from "./connect.ts";
