import type { FastifyReply, FastifyRequest } from "fastify";
import { Code, ConnectError } from "@connectrpc/connect";
import { KnownError, StatusError, fromConnectError, httpStatusForConnectCode, isKnownError, knownError } from "@vestibule/shared/errors";
import { inCallerDialect } from "./generation.ts";
import { HEADER_PREFIXES } from "./headers.ts";

/** A plain-text answer (the contract's StatusError kind: no known-error header). */
export function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).type("text/plain; charset=utf-8").send(text);
}

/** JSON, pretty-printed with 2 spaces when the caller accepts text/html (cosmetic, as the contract does). */
export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  const accept = reply.request.headers.accept ?? "";
  const text = accept.includes("text/html") ? JSON.stringify(body, null, 2) : JSON.stringify(body);
  return reply.code(status).type("application/json; charset=utf-8").send(text);
}

/**
 * A known error: its status, `{code, details?, error}` and the known-error header under both prefixes, in the dialect
 * of the caller's SDK generation (generation.ts).
 */
export function sendKnownError(reply: FastifyReply, thrown: KnownError): FastifyReply {
  const err = inCallerDialect(thrown, reply.request);
  for (const p of HEADER_PREFIXES) reply.header(`${p}known-error`, err.code);
  return sendJson(reply, err.httpStatus, err.toJSON());
}

/** Service that a failed RPC was addressed to, attached by the route helpers for the 503 text. */
export interface ServiceUnavailable {
  readonly service: string;
}

/**
 * The gateway's one error handler: every failure of a request ends here and is answered by kind.
 *  - known errors (thrown here or carried from a service in the KnownErrorDetail) → contract JSON + header;
 *  - StatusError → its status and text (a deliberate text, from the gateway or a service's StatusErrorDetail);
 *  - any other RPC error below 500 → its status and a generic text (the raw text only in the log);
 *  - a service that is down or unreachable → plain-text 503 (the contract has no known error for it);
 *  - fastify's own body errors → BODY_PARSING_ERROR / 413;
 *  - anything else → 500 text with the request id (details only in the log and, in development, the body).
 */
export function handleError(err: unknown, req: FastifyRequest, reply: FastifyReply, mode: "development" | "production"): FastifyReply {
  const fastifyCode = (err as { code?: string }).code;
  if (fastifyCode === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return sendText(reply, 413, `Request body is too large. The limit is ${(err as { message: string }).message.match(/\d+/)?.[0] ?? "?"} bytes.`);
  }
  if (fastifyCode === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    return sendKnownError(reply, knownError("BODY_PARSING_ERROR", { message: `Unknown content type in request body: ${req.headers["content-type"] ?? ""}` }));
  }
  let known: KnownError | StatusError | undefined;
  if (isKnownError(err) || err instanceof StatusError) known = err;
  else if (err instanceof ConnectError) known = fromConnectError(err);
  if (known instanceof KnownError) {
    req.log.warn({ code: known.code, status: known.httpStatus }, "known error");
    return sendKnownError(reply, known);
  }
  if (known instanceof StatusError) {
    req.log.warn({ status: known.httpStatus }, known.message);
    if (known.retryAfterSeconds !== undefined) reply.header("retry-after", String(known.retryAfterSeconds));
    else if (known.httpStatus === 429) reply.header("retry-after", String(DEFAULT_RETRY_AFTER_SECONDS));
    return sendText(reply, known.httpStatus, known.message);
  }
  if (err instanceof ConnectError) {
    const service = (err as ConnectError & Partial<ServiceUnavailable>).service ?? "a backend service";
    if (err.code === Code.Unavailable || err.code === Code.DeadlineExceeded) {
      req.log.error({ err: err.message, service }, "service unavailable");
      return sendText(reply, 503, `Service Unavailable: ${service} is not reachable right now. Please retry shortly.\nRequest ID: ${req.id}`);
    }
    const status = httpStatusForConnectCode(err.code);
    if (status < 500) {
      // Without a known-error or status-error detail the text is the RPC layer's or a library's (table names,
      // addresses, decoding internals): logged, never echoed (issue 18).
      req.log.warn({ err: err.message, service }, "service refused request");
      if (status === 429) reply.header("retry-after", String(DEFAULT_RETRY_AFTER_SECONDS));
      return sendText(reply, status, genericText(status));
    }
    req.log.error({ err, service }, "service error");
    return internalError(reply, req, mode, err);
  }
  req.log.error({ err }, "unhandled error");
  return internalError(reply, req, mode, err);
}

/** Every 429 says when to retry (issue 18); a refusal that named no wait gets this. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

const GENERIC_TEXTS: Readonly<Record<number, string>> = {
  400: "Bad request.",
  401: "Unauthorized.",
  403: "Forbidden.",
  404: "Not found.",
  409: "Conflict.",
  412: "Precondition failed.",
  429: "Too many requests.",
};

/** The text of a 4xx that carries no deliberate message. */
function genericText(status: number): string {
  return GENERIC_TEXTS[status] ?? "The request could not be completed.";
}

function internalError(reply: FastifyReply, req: FastifyRequest, mode: string, err: unknown): FastifyReply {
  const body =
    mode === "development"
      ? `Internal Server Error. The error message follows, but will be stripped in production.\n\n${(err as Error)?.stack ?? String(err)}`
      : `Something went wrong. Please make sure the data you entered is correct.\n\nRequest ID: ${req.id}`;
  return sendText(reply, 500, body);
}
