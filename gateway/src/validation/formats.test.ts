import { describe, expect, it } from "vitest";
import { allStrings as strings, timed } from "@vestibule/shared/testing";
import { isBase64, matchesStrictEmailPattern, safeRegExp, STRICT_EMAIL_PATTERN } from "./formats.ts";

describe("the strict e-mail pattern without backtracking", () => {
  it("answers as the regular expression on every short string, with and without the u flag", () => {
    const unicode = new RegExp(STRICT_EMAIL_PATTERN, "u");
    const plain = new RegExp(STRICT_EMAIL_PATTERN);
    let compared = 0;
    for (const s of strings(["a", ".", "@", "\n", "\u{1F600}"], 7)) {
      if (matchesStrictEmailPattern(s, true) !== unicode.test(s)) throw new Error(`differs (u) on ${JSON.stringify(s)}`);
      if (matchesStrictEmailPattern(s, false) !== plain.test(s)) throw new Error(`differs on ${JSON.stringify(s)}`);
      compared++;
    }
    expect(compared).toBeGreaterThan(90_000);
    expect(matchesStrictEmailPattern("someone@example.com")).toBe(true);
    expect(matchesStrictEmailPattern("some..one@example.com")).toBe(false);
    expect(matchesStrictEmailPattern("someone@example.c")).toBe(false);
  });

  it("takes milliseconds on the input that held the event loop for seconds (a 2 MB body of `a@`)", () => {
    const hostile = "a@".repeat(1_000_000) + ".";
    const engine = safeRegExp(STRICT_EMAIL_PATTERN, "u");
    expect(timed(() => engine.test(hostile))).toBeLessThan(500);
    expect(timed(() => engine.test("a@".repeat(20_000) + ".x"))).toBeLessThan(50);
  });

  it("hands every other pattern to RegExp", () => {
    expect(safeRegExp("^/", "u")).toBeInstanceOf(RegExp);
  });
});

describe("isBase64", () => {
  const regex = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
  it("answers as the padded-base64 expression", () => {
    for (const s of strings(["A", "/", "=", "-"], 8)) {
      if (isBase64(s) !== regex.test(s)) throw new Error(`differs on ${JSON.stringify(s)}`);
    }
    expect(isBase64("aGVsbG8=")).toBe(true);
    expect(isBase64("aGVsbG8")).toBe(false);
  });
});
