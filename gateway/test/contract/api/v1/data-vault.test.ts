import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ vault: true });
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", {
    headers: headersFor(stack.demo, "admin"),
    body: { config_override_string: JSON.stringify({ "dataVault.stores.tokens": { displayName: "Tokens" } }) },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");

describe("/api/v1/data-vault/stores/{store_id}", () => {
  it("sets (upsert) and gets values; missing keys and stores are the contract's errors", async () => {
    const hashed_key = randomBytes(32).toString("base64");
    const set = await call(stack, "POST", "/api/v1/data-vault/stores/tokens/set", { headers: server(), body: { hashed_key, encrypted_value: "AQAone" } });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({ success: true });
    expect((await call(stack, "POST", "/api/v1/data-vault/stores/tokens/get", { headers: server(), body: { hashed_key } })).json).toEqual({ encrypted_value: "AQAone" });
    await call(stack, "POST", "/api/v1/data-vault/stores/tokens/set", { headers: server(), body: { hashed_key, encrypted_value: "AQAtwo" } });
    expect((await call(stack, "POST", "/api/v1/data-vault/stores/tokens/get", { headers: headersFor(stack.demo, "admin"), body: { hashed_key } })).json).toEqual({
      encrypted_value: "AQAtwo",
    });

    const missing = await call(stack, "POST", "/api/v1/data-vault/stores/tokens/get", { headers: server(), body: { hashed_key: "bm9uZQ==" } });
    expectKnownError(missing, 400, "DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST");
    expect(missing.json.details).toEqual({ store_id: "tokens", hashed_key: "bm9uZQ==" });
    const noStore = await call(stack, "POST", "/api/v1/data-vault/stores/elsewhere/set", { headers: server(), body: { hashed_key, encrypted_value: "x" } });
    expectKnownError(noStore, 400, "DATA_VAULT_STORE_DOES_NOT_EXIST");
    expect(noStore.json.details).toEqual({ store_id: "elsewhere" });
  });

  it("is for servers and admins only, and validates bodies", async () => {
    expectKnownError(
      await call(stack, "POST", "/api/v1/data-vault/stores/tokens/get", { headers: headersFor(stack.demo, "client"), body: { hashed_key: "x" } }),
      401,
      "INSUFFICIENT_ACCESS_TYPE",
    );
    const empty = await call(stack, "POST", "/api/v1/data-vault/stores/tokens/set", { headers: server(), body: { hashed_key: "", encrypted_value: "x" } });
    expectKnownError(empty, 400, "SCHEMA_ERROR");
    expect(empty.json.error).toContain("body.hashed_key must not be empty");
    const notString = await call(stack, "POST", "/api/v1/data-vault/stores/tokens/set", { headers: server(), body: { hashed_key: "k", encrypted_value: { a: 1 } } });
    expectKnownError(notString, 400, "SCHEMA_ERROR");
  });
});
