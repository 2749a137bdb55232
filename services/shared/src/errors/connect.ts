/**
 * Known errors and status errors across service-to-service Connect calls.
 *
 * A service throws `knownError(...)` / `statusError(...)`; the RPC layer turns it into a ConnectError carrying a
 * `vestibule.error.v1.KnownErrorDetail` / `StatusErrorDetail`, and the gateway reads it back with
 * `fromConnectError()` to answer with the contract's body. Anything else becomes a bare `Internal` whose original
 * error is kept only in `cause` (for logs), never in the message sent to the caller.
 */
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { KnownErrorDetailSchema, StatusErrorDetailSchema, type KnownErrorDetail, type StatusErrorDetail } from "@vestibule/proto/error/v1/error";
import { KNOWN_ERRORS, isConcreteKnownErrorCode, type DetailsOf } from "./catalogue.ts";
import { KnownError, StatusError, isKnownError, isStatusError, knownError } from "./known-error.ts";
import { isDatabaseUnavailable } from "./unavailable.ts";

/** HTTP status for a Connect error that carries no known-error or status-error detail. */
export function httpStatusForConnectCode(code: Code): number {
  switch (code) {
    case Code.Unavailable:
      return 503;
    case Code.DeadlineExceeded:
      return 504;
    case Code.Unauthenticated:
      return 401;
    case Code.PermissionDenied:
      return 403;
    case Code.NotFound:
      return 404;
    case Code.InvalidArgument:
    case Code.FailedPrecondition:
    case Code.OutOfRange:
      return 400;
    case Code.AlreadyExists:
    case Code.Aborted:
      return 409;
    case Code.ResourceExhausted:
      return 429;
    case Code.Unimplemented:
      return 501;
    default:
      return 500;
  }
}

/**
 * Connect code for a StatusError's HTTP status. Only a hint for generic clients: the exact status travels in the
 * StatusErrorDetail.
 */
export function connectCodeForHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.InvalidArgument;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.NotFound;
    case 408:
      return Code.DeadlineExceeded;
    case 409:
      return Code.AlreadyExists;
    case 412:
      return Code.FailedPrecondition;
    case 429:
      return Code.ResourceExhausted;
    case 501:
      return Code.Unimplemented;
    case 503:
      return Code.Unavailable;
    case 504:
      return Code.DeadlineExceeded;
    default:
      return status >= 400 && status < 500 ? Code.FailedPrecondition : Code.Internal;
  }
}

/**
 * An error travels in gRPC trailers (`grpc-message`, and the detail base64-encoded in `grpc-status-details-bin`), and
 * HTTP/2 refuses a header block over 64 KiB by resetting the stream, which the caller sees as the service being down.
 * Messages and details echo caller input (an id of 20,000 characters in a "not found"), so both are bounded here:
 * long strings keep their start and end with an ellipsis. Nothing a caller needs is lost: an echo of that size is
 * never read in full.
 */
const MAX_ERROR_TEXT = 4_096;
const MAX_DETAILS_JSON = 8_192;
const MAX_DETAIL_STRING = 512;

function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.floor((max - 1) / 2);
  return `${text.slice(0, keep)}…${text.slice(text.length - keep)}`;
}

function boundedText(text: string): string {
  return shortened(text, MAX_ERROR_TEXT);
}

function boundedDetailsJson(details: unknown): string {
  if (details === undefined) return "";
  const json = JSON.stringify(details);
  if (json.length <= MAX_DETAILS_JSON) return json;
  const short = JSON.stringify(details, (_key, value: unknown) => (typeof value === "string" ? shortened(value, MAX_DETAIL_STRING) : value));
  // Still too large (many keys or a huge array): the code and message still say what went wrong.
  return short.length <= MAX_DETAILS_JSON ? short : "";
}

/**
 * Converts anything thrown by a handler into the ConnectError to send: known and status errors keep their meaning
 * in a detail, an existing ConnectError passes through, anything else is a bare `Internal error`.
 */
export function toConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  if (isKnownError(err)) {
    const message = boundedText(err.message);
    const detail = create(KnownErrorDetailSchema, { code: err.code, message, detailsJson: boundedDetailsJson(err.details) });
    return new ConnectError(
      message,
      KNOWN_ERRORS[err.code].connectCode,
      undefined,
      [{ desc: KnownErrorDetailSchema, value: detail }],
      err,
    );
  }
  if (isStatusError(err)) {
    const message = boundedText(err.message);
    const detail = create(StatusErrorDetailSchema, { httpStatus: err.httpStatus, message, retryAfterSeconds: err.retryAfterSeconds ?? 0 });
    return new ConnectError(
      message,
      connectCodeForHttpStatus(err.httpStatus),
      undefined,
      [{ desc: StatusErrorDetailSchema, value: detail }],
      err,
    );
  }
  if (isDatabaseUnavailable(err)) return new ConnectError("the database is unreachable", Code.Unavailable, undefined, undefined, err);
  return new ConnectError("Internal error", Code.Internal, undefined, undefined, err);
}

/**
 * Reads a known error or status error back from a Connect error (KnownError and StatusError values are returned as
 * they are). Returns `undefined` when the error carries neither detail. A known-error detail whose code this build
 * does not know (version skew) comes back as UNSUPPORTED_ERROR with `originalErrorCode`.
 */
export function fromConnectError(err: unknown): KnownError | StatusError | undefined {
  if (isKnownError(err) || isStatusError(err)) return err;
  const ce = ConnectError.from(err);
  const [known] = ce.findDetails(KnownErrorDetailSchema);
  if (known) return knownErrorFromDetail(known, ce);
  const [status] = ce.findDetails(StatusErrorDetailSchema);
  if (status) {
    const httpStatus =
      Number.isInteger(status.httpStatus) && status.httpStatus >= 400 && status.httpStatus <= 599
        ? status.httpStatus
        : httpStatusForConnectCode(ce.code);
    return new StatusError(httpStatus, status.message, { cause: ce, retryAfterSeconds: status.retryAfterSeconds || undefined });
  }
  return undefined;
}

function knownErrorFromDetail(detail: KnownErrorDetail, cause: ConnectError): KnownError {
  if (!isConcreteKnownErrorCode(detail.code)) {
    return knownError("UNSUPPORTED_ERROR", { originalErrorCode: detail.code });
  }
  let details: unknown;
  if (KNOWN_ERRORS[detail.code].detailKeys.length > 0) {
    details = parseDetails(detail.detailsJson);
  }
  return new KnownError(detail.code, details as DetailsOf<typeof detail.code>, detail.message, { cause });
}

/** The details object as sent; `{}` if it is missing or malformed, so the body still has the shape the SDK reads. */
function parseDetails(json: string): Record<string, unknown> {
  if (json === "") return {};
  try {
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The fields of a per-item error of a batched RPC (`vestibule.error.v1.ItemError` and its older look-alikes). */
export interface ItemErrorFields {
  code: number;
  message: string;
  knownError?: KnownErrorDetail;
  statusError?: StatusErrorDetail;
}

/**
 * What a single call failing with `err` would have sent, as the fields of a batch item's error: the Connect code,
 * message and known-error or status-error detail (see `toConnectError`). `itemErrorToConnectError` reverses it.
 */
export function toItemError(err: unknown): ItemErrorFields {
  const ce = toConnectError(err);
  return {
    code: ce.code,
    message: ce.rawMessage,
    knownError: ce.findDetails(KnownErrorDetailSchema)[0],
    statusError: ce.findDetails(StatusErrorDetailSchema)[0],
  };
}

/** The ConnectError a single call would have failed with, from a batch item's error. */
export function itemErrorToConnectError(e: ItemErrorFields): ConnectError {
  const details: ({ desc: typeof KnownErrorDetailSchema; value: KnownErrorDetail } | { desc: typeof StatusErrorDetailSchema; value: StatusErrorDetail })[] = [];
  if (e.knownError) details.push({ desc: KnownErrorDetailSchema, value: e.knownError });
  if (e.statusError) details.push({ desc: StatusErrorDetailSchema, value: e.statusError });
  const code = e.code in Code ? (e.code as Code) : Code.Unknown;
  return new ConnectError(e.message, code, undefined, details);
}
