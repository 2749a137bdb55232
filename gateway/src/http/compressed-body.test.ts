import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isKnownError, isStatusError } from "@vestibule/shared/errors";
import { jsonOrGzipBody } from "./compressed-body.ts";

const decode = jsonOrGzipBody(1_000);

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

describe("JSON or gzip bodies (the current SDK's analytics batches)", () => {
  it("passes parsed JSON through and decodes gzip or plain JSON sent as octet-stream", async () => {
    expect(await decode({ a: 1 })).toEqual({ a: 1 });
    expect(await decode(gzipSync(Buffer.from('{"a":2}')))).toEqual({ a: 2 });
    expect(await decode(Buffer.from('{"a":3}'))).toEqual({ a: 3 });
  });

  it("refuses a body that decodes past the limit (413) without expanding it, and bad gzip, UTF-8 or JSON", async () => {
    const bomb = await failure(decode(gzipSync(Buffer.alloc(10_000_000, 0x20))));
    expect(isStatusError(bomb) && bomb.httpStatus).toBe(413);
    expect(isStatusError(await failure(decode(Buffer.alloc(1_001, 0x20))))).toBe(true);
    for (const bad of [Buffer.from([0x1f, 0x8b, 0, 0]), gzipSync(Buffer.from([0xff, 0xfe])), gzipSync(Buffer.from("{nope"))]) {
      const err = await failure(decode(bad));
      expect(isKnownError(err, "BODY_PARSING_ERROR")).toBe(true);
    }
  });
});
