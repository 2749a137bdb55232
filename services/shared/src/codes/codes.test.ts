import { describe, expect, it } from "vitest";
import { randomCode } from "../secrets/index.ts";
import { codeProblem, codeTail, linkWithCode, normalizeCode } from "./index.ts";

describe("codes", () => {
  it("normalises case and refuses anything that is not 45 alphabet characters", () => {
    const code = randomCode(45);
    expect(normalizeCode(code.toUpperCase())).toBe(code);
    expect(normalizeCode(` ${code} `)).toBe(code);
    expect(normalizeCode(code.slice(1))).toBeUndefined();
    expect(normalizeCode(`${code.slice(1)}u`)).toBeUndefined();
    expect(codeTail(code)).toBe(code.slice(6));
  });

  it("checks in contract order: expired, used, max attempts", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    const later = new Date(now.getTime() + 1000);
    const earlier = new Date(now.getTime() - 1000);
    expect(codeProblem({ expiresAt: later, usedAt: null, attempts: 1 }, now)).toBeNull();
    expect(codeProblem({ expiresAt: earlier, usedAt: earlier, attempts: 99 }, now)?.code).toBe("VERIFICATION_CODE_EXPIRED");
    expect(codeProblem({ expiresAt: later, usedAt: earlier, attempts: 99 }, now)?.code).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(codeProblem({ expiresAt: later, usedAt: null, attempts: 19 }, now)).toBeNull();
    expect(codeProblem({ expiresAt: later, usedAt: null, attempts: 20 }, now)?.code).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
  });

  it("adds the code to the callback URL's query", () => {
    expect(linkWithCode("https://a.com/handler/verify", "abc")).toBe("https://a.com/handler/verify?code=abc");
    expect(linkWithCode("https://a.com/h?x=1&code=old#f", "abc")).toBe("https://a.com/h?x=1&code=abc#f");
  });
});
