import { describe, expect, it } from "vitest";
import { mintServiceToken, verifyServiceToken } from "./service-auth.ts";

const secret = "x".repeat(40);

describe("service tokens", () => {
  it("round-trips the caller name", () => {
    expect(verifyServiceToken(secret, mintServiceToken(secret, "gateway"))).toBe("gateway");
  });
  it("rejects a token signed with another secret, tampered with, or too old", () => {
    const now = 1_800_000_000;
    const token = mintServiceToken(secret, "gateway", now);
    expect(verifyServiceToken("y".repeat(40), token, now)).toBeUndefined();
    expect(verifyServiceToken(secret, token.replace("gateway", "auth"), now)).toBeUndefined();
    expect(verifyServiceToken(secret, token, now + 301)).toBeUndefined();
    expect(verifyServiceToken(secret, token, now + 299)).toBe("gateway");
    expect(verifyServiceToken(secret, "", now)).toBeUndefined();
    expect(verifyServiceToken(secret, "v1.gateway", now)).toBeUndefined();
  });
});
