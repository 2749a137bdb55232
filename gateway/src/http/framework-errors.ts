import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { sendText } from "./replies.ts";
import { HEADER_PREFIXES } from "./headers.ts";

/**
 * Requests that fail before routing, answered like every other non-known error: plain text (errors.md §1b), never
 * fastify's own JSON (`{"error":"Bad Request","code":"FST_ERR_…"}`), which the SDKs cannot read (issue 18, found by
 * the route fuzzer).
 */

/** Longest path parameter routed to a handler (fastify's default, 100, cut off valid but long ids with a JSON 414). */
export const MAX_PATH_PARAM_LENGTH = 1_000;

/** fastify `frameworkErrors`: a path segment that is not valid percent-encoding, or an over-long path parameter. */
export function answerFrameworkError(err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  for (const p of HEADER_PREFIXES) reply.header(`${p}request-id`, req.id);
  if (err.code === "FST_ERR_MAX_PARAM_LENGTH") return sendText(reply, 414, `URI Too Long: a path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters.`);
  if (err.code === "FST_ERR_BAD_URL") return sendText(reply, 400, "Bad Request: the URL is not valid percent-encoded UTF-8.");
  return sendText(reply, 400, "Bad Request.");
}

const CLIENT_ERRORS: Readonly<Record<string, readonly [number, string, string]>> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "Request headers are too large."],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "The request was not received in time."],
};

/**
 * fastify `clientErrorHandler` (Node's `clientError`: malformed HTTP, headers over the limit, timeouts): a plain-text
 * answer, then the connection is closed, as Node and fastify do.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, reason, text] = CLIENT_ERRORS[err.code ?? ""] ?? [400, "Bad Request", "The request is not valid HTTP."];
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
  }
  socket.destroy(err);
}
