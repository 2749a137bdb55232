import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mintServiceToken, serviceSecretProblem, verifyServiceToken } from "./service-auth.ts";

const secret = randomBytes(32).toString("hex");
const target = "vestibule.auth.v1.SessionService/RefreshSession";

describe("service tokens", () => {
  it("round-trip the caller name for the target they were minted for", () => {
    expect(verifyServiceToken(secret, mintServiceToken(secret, "gateway", target), target)).toBe("gateway");
  });

  it("are refused when signed with another secret, tampered with, too old or too new", () => {
    const now = 1_800_000_000;
    const token = mintServiceToken(secret, "gateway", target, now);
    expect(verifyServiceToken(randomBytes(32).toString("hex"), token, target, { nowSeconds: now })).toBeUndefined();
    expect(verifyServiceToken(secret, token.replace("gateway", "auth"), target, { nowSeconds: now })).toBeUndefined();
    expect(verifyServiceToken(secret, token, target, { nowSeconds: now + 121 })).toBeUndefined();
    expect(verifyServiceToken(secret, token, target, { nowSeconds: now - 121 })).toBeUndefined();
    expect(verifyServiceToken(secret, token, target, { nowSeconds: now + 119 })).toBe("gateway");
    expect(verifyServiceToken(secret, "", target, { nowSeconds: now })).toBeUndefined();
    expect(verifyServiceToken(secret, "v2.gateway", target, { nowSeconds: now })).toBeUndefined();
  });

  it("are bound to the callee and method: replaying one against another RPC fails", () => {
    const token = mintServiceToken(secret, "gateway", target);
    expect(verifyServiceToken(secret, token, "vestibule.auth.v1.SessionService/CreateSession")).toBeUndefined();
    expect(verifyServiceToken(secret, token, "vestibule.identity.v1.UserService/DeleteUser")).toBeUndefined();
  });

  it("refuse the previous release's unbound v1 tokens unless the rolling-upgrade switch is on", () => {
    const now = 1_800_000_000;
    const body = `v1.gateway.${now}`;
    const v1 = `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
    expect(verifyServiceToken(secret, v1, target, { nowSeconds: now })).toBeUndefined();
    expect(verifyServiceToken(secret, v1, target, { nowSeconds: now, acceptV1: true })).toBe("gateway");
  });
});

describe("serviceSecretProblem", () => {
  it("accepts generated secrets", () => {
    expect(serviceSecretProblem(randomBytes(32).toString("hex"))).toBeNull();
    expect(serviceSecretProblem(randomBytes(48).toString("base64"))).toBeNull();
  });

  it("refuses the repository's placeholders, short and low-entropy secrets", () => {
    expect(serviceSecretProblem("CHANGE-ME-at-least-32-random-characters")).toMatch(/placeholder/);
    expect(serviceSecretProblem("short")).toMatch(/at least 32/);
    expect(serviceSecretProblem("a".repeat(64))).toMatch(/entropy/);
    expect(serviceSecretProblem("abababababababababababababababababababab")).toMatch(/entropy/);
  });
});
