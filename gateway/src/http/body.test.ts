import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isKnownError } from "@vestibule/shared/errors";
import { MAX_JSON_ARRAY_ITEMS, MAX_JSON_DEPTH, jsonShapeProblem, parseBody } from "./body.ts";
import { jsonOrGzipBody } from "./compressed-body.ts";

/** Issue 18, found by the route fuzzer: bodies whose shape alone costs the gateway a stack overflow or seconds. */
function parsingErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isKnownError(err) && err.code === "BODY_PARSING_ERROR") return err.message;
    throw err;
  }
  throw new Error("expected BODY_PARSING_ERROR");
}

const json = (text: string) => parseBody("application/json", Buffer.from(text));

describe("JSON body shape limits", () => {
  it("refuses JSON nested deeper than the limit (the fuzzer's 20,000-level arrays gave 500s and stalled the gateway)", () => {
    const deep = (d: number) => "[".repeat(d) + "]".repeat(d);
    expect(json(deep(MAX_JSON_DEPTH))).toBeDefined();
    expect(parsingErrorOf(() => json(deep(MAX_JSON_DEPTH + 1)))).toBe(`Invalid JSON in request body: nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(parsingErrorOf(() => json('{"a":'.repeat(20_000) + "1" + "}".repeat(20_000)))).toContain("nested deeper");
  });

  it("refuses arrays with more items than the limit (50,000 numbers took seconds to validate)", () => {
    const items = (n: number) => JSON.stringify({ ids: Array.from({ length: n }, (_, i) => i) });
    expect(json(items(MAX_JSON_ARRAY_ITEMS))).toBeDefined();
    expect(parsingErrorOf(() => json(items(MAX_JSON_ARRAY_ITEMS + 1)))).toBe(`Invalid JSON in request body: an array has more than ${MAX_JSON_ARRAY_ITEMS} items`);
  });

  it("does not count brackets and commas inside strings", () => {
    expect(jsonShapeProblem(JSON.stringify({ s: "[".repeat(1000) + ",".repeat(20_000) + '\\"[' }))).toBeUndefined();
    expect(jsonShapeProblem(JSON.stringify([{ a: [1, 2] }, { b: "x,y" }]))).toBeUndefined();
  });

  it("applies to gzip and octet-stream JSON bodies as well", async () => {
    const decode = jsonOrGzipBody(10_000_000);
    const deep = Buffer.from("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1));
    for (const body of [deep, gzipSync(deep)]) {
      const err = await decode(body).then(() => undefined, (e: unknown) => e);
      expect(isKnownError(err) && err.code).toBe("BODY_PARSING_ERROR");
    }
  });
});

describe("well-formed Unicode", () => {
  it("turns unpaired surrogates in values and keys into U+FFFD, keeps pairs, and leaves other bodies as parsed", async () => {
    const text = '{"message":"\\udfff\\ud800","pair":"\\ud83d\\ude00","\\ud800key":["a\\udc00b"],"plain":"x"}';
    const expected = { message: "\uFFFD\uFFFD", pair: "😀", "\uFFFDkey": ["a\uFFFDb"], plain: "x" };
    expect(parseBody("application/json", Buffer.from(text))).toEqual(expected);
    // The gzip / octet-stream JSON bodies (the current SDK's analytics batches) are read the same way.
    expect(await jsonOrGzipBody(10_000_000)(gzipSync(Buffer.from(text)))).toEqual(expected);
    expect(parseBody("application/json", Buffer.from('{"a":"\\\\udfff","b":[1,{"c":null}]}'))).toEqual({ a: "\\udfff", b: [1, { c: null }] });
  });
});
