import { promisify } from "node:util";
import { gunzip as gunzipCb } from "node:zlib";
import { knownError, statusError } from "@vestibule/shared/errors";
import { parseJsonText } from "./body.ts";

const gunzip = promisify(gunzipCb);
const utf8 = new TextDecoder("utf-8", { fatal: true });

function tooLarge(maxBytes: number): Error {
  return statusError(413, `Request body is too large. The limit is ${maxBytes} bytes (uncompressed).`);
}

/**
 * A body decoder for routes that take JSON either as `application/json` or, as the current SDK sends its analytics
 * batches, gzip-compressed in an `application/octet-stream` body without Content-Encoding (the parser hands such a
 * body over as a Buffer). A Buffer is gunzipped when it starts with the gzip magic bytes, never to more than
 * `maxDecodedBytes` (a small gzip bomb cannot expand in memory: 413), then parsed as UTF-8 JSON; anything that is
 * not gzip or JSON is BODY_PARSING_ERROR. Bodies the JSON parser already read pass through unchanged.
 */
export function jsonOrGzipBody(maxDecodedBytes: number): (body: unknown) => Promise<unknown> {
  return async (body) => {
    if (!Buffer.isBuffer(body)) return body;
    let raw: Buffer = body;
    if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
      try {
        raw = await gunzip(raw, { maxOutputLength: maxDecodedBytes });
      } catch (err) {
        if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(maxDecodedBytes);
        throw knownError("BODY_PARSING_ERROR", { message: "Invalid gzip data in request body" });
      }
    }
    if (raw.length > maxDecodedBytes) throw tooLarge(maxDecodedBytes);
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      throw knownError("BODY_PARSING_ERROR", { message: "Request body cannot be parsed as UTF-8" });
    }
    return parseJsonText(text);
  };
}
