import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ApiKeySchema, type ApiKey } from "@vestibule/proto/auth/v1/api_key_service";
import { knownError, toConnectError } from "@vestibule/shared/errors";
import { ApiKeyCheckCache, apiKeyIdOf } from "./api-key-checks.ts";

const id = "3f2b8c1e-5d4a-4b6f-9e21-0c7d8a9b1f23";
const value = `sk_${"a".repeat(45)}${id.replace(/-/g, "")}user1574ck4u7h0badc0de`;

/** A fake auth service answering from a script of outcomes, counting calls. */
function fakeAuth(answers: (() => ApiKey | Error)[]) {
  let calls = 0;
  const clients = {
    apiKeys: {
      async checkApiKey() {
        const next = answers[Math.min(calls, answers.length - 1)]!();
        calls++;
        if (next instanceof Error) throw next;
        return { apiKey: next };
      },
    },
  };
  return { clients: clients as never, calls: () => calls };
}

const ok = () => create(ApiKeySchema, { id, ownerId: "u", lastFour: "c0de" });
const revoked = () => toConnectError(knownError("API_KEY_REVOKED"));

describe("ApiKeyCheckCache", () => {
  it("reads the key id from a key string; anything else costs no call", async () => {
    expect(apiKeyIdOf(value)).toBe(id);
    expect(apiKeyIdOf("sk_nope")).toBeUndefined();
    const auth = fakeAuth([ok]);
    await expect(new ApiKeyCheckCache(auth.clients).check("p", "user", "sk_nope")).rejects.toMatchObject({ code: "API_KEY_NOT_FOUND" });
    expect(auth.calls()).toBe(0);
  });

  it("keeps valid answers and refusals until the key is invalidated", async () => {
    const auth = fakeAuth([ok, revoked]);
    const cache = new ApiKeyCheckCache(auth.clients);
    expect((await cache.check("p", "user", value)).id).toBe(id);
    expect((await cache.check("p", "user", value)).id).toBe(id);
    expect(auth.calls()).toBe(1);
    cache.invalidate(id);
    await expect(cache.check("p", "user", value)).rejects.toMatchObject({ code: "API_KEY_REVOKED" });
    expect(auth.calls()).toBe(2);
  });

  it("does not pin an answer given right after an invalidation (a lagging replica's), but does after settling", async () => {
    // The first answer after the invalidation is stale (ok), the next one is the truth (revoked).
    const auth = fakeAuth([ok, ok, revoked]);
    // A settle window of 1 s (2 s in production): a loaded CI machine takes more than a few milliseconds between
    // two checks, and the first two below must both fall inside the window.
    const cache = new ApiKeyCheckCache(auth.clients, 60_000, 5_000, 1000, 1_000);
    await cache.check("p", "user", value);
    cache.invalidate(id);
    expect((await cache.check("p", "user", value)).id).toBe(id);
    await expect(cache.check("p", "user", value)).rejects.toMatchObject({ code: "API_KEY_REVOKED" });
    expect(auth.calls()).toBe(3);
    await new Promise((r) => setTimeout(r, 1_100));
    await expect(cache.check("p", "user", value)).rejects.toMatchObject({ code: "API_KEY_REVOKED" });
    await expect(cache.check("p", "user", value)).rejects.toMatchObject({ code: "API_KEY_REVOKED" });
    expect(auth.calls()).toBe(4);
  });

  it("keeps a valid answer no longer than the key's expiry, and never keeps failed calls", async () => {
    const soon = () => create(ApiKeySchema, { id, expiresAtMillis: BigInt(Date.now() + 30) });
    const auth = fakeAuth([soon, () => new Error("auth unreachable"), ok]);
    const cache = new ApiKeyCheckCache(auth.clients);
    await cache.check("p", "user", value);
    await new Promise((r) => setTimeout(r, 40));
    await expect(cache.check("p", "user", value)).rejects.toThrow("auth unreachable");
    expect((await cache.check("p", "user", value)).id).toBe(id);
    expect(auth.calls()).toBe(3);
  });
});
