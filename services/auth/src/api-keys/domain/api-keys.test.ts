import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { apiKeyProblem, formatApiKey, parseApiKey } from "./api-keys.ts";

const id = "3f2b8c1e-5d4a-4b6f-9e21-0c7d8a9b1f23";
const secret = "0123456789abcdefghjkmnpqrstvwxyz0123456789abc";

describe("API key strings", () => {
  it("have the contract's layout: prefix, 45-character secret, id without dashes, kind, scanner flag, marker, CRC32", () => {
    const key = formatApiKey({ id, kind: "user", isPublic: false, secret });
    expect(key).toBe(`sk_${secret}3f2b8c1e5d4a4b6f9e210c7d8a9b1f23user1574ck4u7h${key.slice(-8)}`);
    expect(key.slice(-8)).toBe((crc32(key.slice(0, -8)) >>> 0).toString(16).padStart(8, "0"));
    expect(key).toHaveLength(3 + 45 + 32 + 4 + 1 + 9 + 8);
    const pub = formatApiKey({ id, kind: "team", isPublic: true, secret });
    expect(pub.startsWith("pk_")).toBe(true);
    expect(pub.slice(3 + 45 + 32, 3 + 45 + 32 + 14)).toBe("team3574ck4u7h");
  });

  it("parse back to id, kind and visibility; a changed character breaks the checksum", () => {
    const key = formatApiKey({ id, kind: "team", isPublic: true, secret });
    expect(parseApiKey(key)).toEqual({ id, kind: "team", isPublic: true });
    const tampered = key.slice(0, 10) + (key[10] === "a" ? "b" : "a") + key.slice(11);
    expect(parseApiKey(tampered)).toBeUndefined();
    expect(parseApiKey("sk_short")).toBeUndefined();
    expect(parseApiKey(key.toUpperCase())).toBeUndefined();
    // A secret key string claiming to be public (prefix changed, checksum recomputed) is refused too.
    const secretKey = formatApiKey({ id, kind: "team", isPublic: false, secret });
    const forged = `pk_${secretKey.slice(3, -8)}`;
    expect(parseApiKey(forged + (crc32(forged) >>> 0).toString(16).padStart(8, "0"))).toBeUndefined();
  });
});

describe("API key checks", () => {
  const now = new Date("2030-01-01T00:00:00Z");
  const valid = { projectId: "p", kind: "user" as const, expiresAt: null, manuallyRevokedAt: null };
  const code = (p: ReturnType<typeof apiKeyProblem>) => p?.code ?? null;

  it("answer in the contract's order: not found, wrong type, revoked, expired", () => {
    expect(code(apiKeyProblem(undefined, "p", "user", now))).toBe("API_KEY_NOT_FOUND");
    expect(code(apiKeyProblem(valid, "other", "user", now))).toBe("API_KEY_NOT_FOUND");
    const wrong = apiKeyProblem({ ...valid, manuallyRevokedAt: now }, "p", "team", now);
    expect(wrong?.code).toBe("WRONG_API_KEY_TYPE");
    expect(wrong?.details).toEqual({ expected_type: "team", actual_type: "user" });
    expect(code(apiKeyProblem({ ...valid, manuallyRevokedAt: now, expiresAt: new Date(0) }, "p", "user", now))).toBe("API_KEY_REVOKED");
    expect(code(apiKeyProblem({ ...valid, expiresAt: now }, "p", "user", now))).toBe("API_KEY_EXPIRED");
    expect(code(apiKeyProblem({ ...valid, expiresAt: new Date(now.getTime() + 1) }, "p", "user", now))).toBeNull();
  });
});
