import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyService, ApiKeyType } from "@vestibule/proto/auth/v1/api_key_service";
import { MailboxService } from "@vestibule/proto/email/v1/mailbox_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { createPool } from "@vestibule/shared/db";
import { call, expectKnownError, headersFor, startStack, type ApiResponse, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
  const res = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
    headers: headersFor(stack.demo, "admin"),
    body: { config: { allow_user_api_keys: true, allow_team_api_keys: true } },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");
const client = () => headersFor(stack.demo, "client");
const callback = "http://localhost:3000/handler/email-verification";

async function signUp(): Promise<{ userId: string; headers: Record<string, string>; email: string }> {
  const email = `keys-${randomBytes(5).toString("hex")}@example.com`;
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: { email, password: "a good password", verification_callback_url: callback } });
  expect(res.status).toBe(200);
  return { userId: res.json.user_id, headers: { ...client(), "x-stack-access-token": res.json.access_token }, email };
}

async function createUserKey(headers: Record<string, string>, body: Record<string, unknown>): Promise<ApiResponse> {
  return call(stack, "POST", "/api/v1/user-api-keys", { headers, body: { description: "k", expires_at_millis: null, ...body } });
}

async function waitUntil(fn: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await fn())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - started;
}

describe("/api/v1/user-api-keys", () => {
  it("creates (full value once), lists (last four), reads, updates and revokes a user's own key", async () => {
    const me = await signUp();
    const expires = Date.now() + 3_600_000;
    const created = await createUserKey(me.headers, { user_id: "me", description: "laptop", expires_at_millis: expires });
    expect(created.status).toBe(200);
    expect(created.json).toEqual({
      id: expect.any(String),
      description: "laptop",
      expires_at_millis: expires,
      created_at_millis: expect.any(Number),
      is_public: false,
      value: expect.stringMatching(/^sk_[0-9a-z]{45}[0-9a-f]{32}user1574ck4u7h[0-9a-f]{8}$/),
      type: "user",
      user_id: me.userId,
    });
    const { id, value } = created.json;
    const list = await call(stack, "GET", `/api/v1/user-api-keys?user_id=me`, { headers: me.headers });
    expect(list.json).toEqual({ items: [{ ...created.json, value: { last_four: value.slice(-4) } }], is_paginated: false });
    const got = await call(stack, "GET", `/api/v1/user-api-keys/${id}`, { headers: me.headers });
    expect(got.json.value).toEqual({ last_four: value.slice(-4) });

    const renamed = await call(stack, "PATCH", `/api/v1/user-api-keys/${id}?user_id=${me.userId}`, { headers: me.headers, body: { description: "old laptop" } });
    expect(renamed.json).toMatchObject({ description: "old laptop" });
    expect(renamed.json.manually_revoked_at_millis).toBeUndefined();
    const revoked = await call(stack, "PATCH", `/api/v1/user-api-keys/${id}`, { headers: me.headers, body: { revoked: true } });
    expect(revoked.json.manually_revoked_at_millis).toEqual(expect.any(Number));
    const again = await call(stack, "PATCH", `/api/v1/user-api-keys/${id}`, { headers: server(), body: { revoked: true } });
    expect(again.json.manually_revoked_at_millis).toBe(revoked.json.manually_revoked_at_millis);
    expectKnownError(await call(stack, "POST", "/api/v1/user-api-keys/check", { headers: server(), body: { api_key: value } }), 401, "API_KEY_REVOKED");
  });

  it("clients manage only their own keys; servers any user's; bodies and queries are validated", async () => {
    const me = await signUp();
    const other = await signUp();
    const res = await createUserKey(me.headers, { user_id: other.userId });
    expect(res.status).toBe(403);
    expect(res.text).toBe("Client can only manage their own api keys"); // Stack's exact text (issue 13)
    expect(res.headers.get("x-stack-known-error")).toBeNull();
    expectKnownError(await createUserKey(client(), { user_id: me.userId }), 401, "USER_AUTHENTICATION_REQUIRED");
    expect((await call(stack, "GET", `/api/v1/user-api-keys?user_id=${other.userId}`, { headers: me.headers })).status).toBe(403);

    const theirs = await createUserKey(server(), { user_id: other.userId, description: "made by the server", is_public: true });
    expect(theirs.json).toMatchObject({ user_id: other.userId, is_public: true, value: expect.stringMatching(/^pk_.*user3574ck4u7h/) });
    // Another user's key is not visible to a client, even by id.
    expectKnownError(await call(stack, "GET", `/api/v1/user-api-keys/${theirs.json.id}`, { headers: me.headers }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "PATCH", `/api/v1/user-api-keys/${theirs.json.id}`, { headers: me.headers, body: { revoked: true } }), 404, "API_KEY_NOT_FOUND");
    expect((await call(stack, "GET", `/api/v1/user-api-keys/${theirs.json.id}?user_id=${other.userId}`, { headers: server() })).status).toBe(200);
    expectKnownError(await call(stack, "GET", `/api/v1/user-api-keys/${theirs.json.id}?user_id=${me.userId}`, { headers: server() }), 404, "API_KEY_NOT_FOUND");

    expectKnownError(await createUserKey(server(), { user_id: "5b3e2c1d-0a9f-4e8d-8c7b-6a5f4e3d2c1b" }), 400, "USER_ID_DOES_NOT_EXIST");
    const missing = await call(stack, "POST", "/api/v1/user-api-keys", { headers: server(), body: { user_id: other.userId, description: "x" } });
    expectKnownError(missing, 400, "SCHEMA_ERROR");
    expect(missing.json.error).toContain("body.expires_at_millis must be defined");
    const noOwner = await call(stack, "GET", "/api/v1/user-api-keys", { headers: server() });
    expectKnownError(noOwner, 400, "SCHEMA_ERROR");
    expect(noOwner.json.details.message).toBe("user_id is required for user API keys");
    const both = await call(stack, "GET", `/api/v1/user-api-keys?user_id=${other.userId}&team_id=${other.userId}`, { headers: server() });
    expect(both.status).toBe(400);
    expect(both.text).toBe("Give either user_id or team_id, not both.");
    expectKnownError(await call(stack, "POST", "/api/v1/user-api-keys/check", { headers: client(), body: { api_key: "x" } }), 401, "INSUFFICIENT_ACCESS_TYPE");
  });

  it("check answers every error of the contract", async () => {
    const me = await signUp();
    const check = (kind: string, api_key: string) => call(stack, "POST", `/api/v1/${kind}-api-keys/check`, { headers: server(), body: { api_key } });
    const key = (await createUserKey(me.headers, { user_id: "me", description: "checked" })).json;
    const ok = await check("user", key.value);
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ id: key.id, user_id: me.userId, type: "user", value: { last_four: key.value.slice(-4) } });
    const wrong = await check("team", key.value);
    expectKnownError(wrong, 400, "WRONG_API_KEY_TYPE");
    expect(wrong.json.details).toEqual({ expected_type: "team", actual_type: "user" });
    expectKnownError(await check("user", "sk_definitely-not-a-key"), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await check("user", key.value.slice(0, -1) + (key.value.endsWith("a") ? "b" : "a")), 404, "API_KEY_NOT_FOUND");

    const soon = (await createUserKey(me.headers, { user_id: "me", description: "short-lived", expires_at_millis: Date.now() + 1500 })).json;
    expect((await check("user", soon.value)).status).toBe(200);
    await waitUntil(async () => (await check("user", soon.value)).json?.code === "API_KEY_EXPIRED", 4000);
    expectKnownError(await check("user", soon.value), 401, "API_KEY_EXPIRED");
  });

  it("a revoked or expired key is refused by every gateway replica within one second", async () => {
    const replica = await stack.startGatewayReplica();
    try {
      const me = await signUp();
      const key = (await createUserKey(me.headers, { user_id: "me", description: "replicated", expires_at_millis: Date.now() + 4000 })).json;
      const checkOn = (base: string) => call(base, "POST", "/api/v1/user-api-keys/check", { headers: server(), body: { api_key: key.value } });
      // The replica must first learn that the project allows user keys (its project cache came before the change).
      await waitUntil(async () => (await checkOn(replica.url)).status === 200, 5000);
      expect((await checkOn(stack.url)).status).toBe(200);
      // Both gateways answer from memory now: a revocation written behind everyone's back (no event) goes unseen...
      const db = createPool({ connectionString: stack.db.url, schema: "auth", max: 1 });
      await db.query(`UPDATE api_keys SET manually_revoked_at = now() WHERE id = $1`, [key.id]);
      await db.end();
      expect((await checkOn(replica.url)).status).toBe(200);
      expect((await checkOn(stack.url)).status).toBe(200);
      // ...while the revocation through the API reaches both within a second, by event.
      const started = Date.now();
      await call(stack, "PATCH", `/api/v1/user-api-keys/${key.id}`, { headers: server(), body: { revoked: true } });
      const [a, b] = await Promise.all([
        waitUntil(async () => (await checkOn(stack.url)).json?.code === "API_KEY_REVOKED", 1000),
        waitUntil(async () => (await checkOn(replica.url)).json?.code === "API_KEY_REVOKED", 1000),
      ]);
      expect(Math.max(a, b)).toBeLessThan(1000);
      expect(Date.now() - started).toBeLessThan(1500);

      const other = (await createUserKey(me.headers, { user_id: "me", description: "expiring", expires_at_millis: Date.now() + 1500 })).json;
      const checkOther = (base: string) => call(base, "POST", "/api/v1/user-api-keys/check", { headers: server(), body: { api_key: other.value } });
      expect((await checkOther(stack.url)).status).toBe(200);
      expect((await checkOther(replica.url)).status).toBe(200);
      const expiry = other.expires_at_millis as number;
      await new Promise((r) => setTimeout(r, Math.max(0, expiry - Date.now())));
      await Promise.all([
        waitUntil(async () => (await checkOther(stack.url)).json?.code === "API_KEY_EXPIRED", 1000),
        waitUntil(async () => (await checkOther(replica.url)).json?.code === "API_KEY_EXPIRED", 1000),
      ]);
    } finally {
      await replica.close();
    }
  });

  it("answers a plain 400 when the project does not allow user API keys", async () => {
    await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: headersFor(stack.demo, "admin"), body: { config: { allow_user_api_keys: false } } });
    try {
      const me = await signUp();
      const res = await createUserKey(me.headers, { user_id: "me" });
      expect(res.status).toBe(400);
      expect(res.text).toBe("User API keys are not enabled for this project.");
      expect((await call(stack, "POST", "/api/v1/user-api-keys/check", { headers: server(), body: { api_key: "x" } })).text).toBe(
        "User API keys are not enabled for this project.",
      );
    } finally {
      await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: headersFor(stack.demo, "admin"), body: { config: { allow_user_api_keys: true } } });
    }
  });
});

describe("/api/v1/team-api-keys (no teams service wired: every team is unknown)", () => {
  const team = "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f";

  it("refuses clients with API_KEY_NOT_FOUND and servers with TEAM_NOT_FOUND", async () => {
    const me = await signUp();
    const body = { team_id: team, description: "team", expires_at_millis: null };
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: me.headers, body }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys?team_id=${team}`, { headers: me.headers }), 404, "API_KEY_NOT_FOUND");
    const serverCreate = await call(stack, "POST", "/api/v1/team-api-keys", { headers: server(), body });
    expectKnownError(serverCreate, 404, "TEAM_NOT_FOUND");
    expect(serverCreate.json.details).toEqual({ team_id: team });
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys?team_id=${team}`, { headers: server() }), 404, "TEAM_NOT_FOUND");
    expectKnownError(await call(stack, "POST", "/api/v1/team-api-keys", { headers: client(), body }), 401, "USER_AUTHENTICATION_REQUIRED");
    const noOwner = await call(stack, "GET", "/api/v1/team-api-keys", { headers: server() });
    expect(noOwner.json.details.message).toBe("team_id is required for team API keys");
  });

  it("existing team keys are checked and managed by servers; clients without the permission see nothing", async () => {
    const keys = createServiceClient(ApiKeyService, { baseUrl: stack.env.VESTIBULE_AUTH_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    const { apiKey } = await keys.createApiKey({ projectId: stack.demo.projectId, type: ApiKeyType.TEAM, ownerId: team, description: "made directly" });
    const value = apiKey!.value;
    const ok = await call(stack, "POST", "/api/v1/team-api-keys/check", { headers: server(), body: { api_key: value } });
    expect(ok.json).toMatchObject({ id: apiKey!.id, type: "team", team_id: team });
    expect(ok.json.user_id).toBeUndefined();
    expectKnownError(await call(stack, "POST", "/api/v1/user-api-keys/check", { headers: server(), body: { api_key: value } }), 400, "WRONG_API_KEY_TYPE");
    expect((await call(stack, "GET", `/api/v1/team-api-keys/${apiKey!.id}`, { headers: server() })).json.team_id).toBe(team);
    const me = await signUp();
    expectKnownError(await call(stack, "GET", `/api/v1/team-api-keys/${apiKey!.id}`, { headers: me.headers }), 404, "API_KEY_NOT_FOUND");
    expectKnownError(await call(stack, "PATCH", `/api/v1/team-api-keys/${apiKey!.id}`, { headers: me.headers, body: { revoked: true } }), 404, "API_KEY_NOT_FOUND");
    const revoked = await call(stack, "PATCH", `/api/v1/team-api-keys/${apiKey!.id}`, { headers: server(), body: { revoked: true } });
    expect(revoked.json.manually_revoked_at_millis).toEqual(expect.any(Number));
  });
});

describe("/api/v1/integrations/credential-scanning/revoke", () => {
  it("revokes a leaked secret key without project headers and e-mails its owner; public keys are refused", async () => {
    const me = await signUp();
    const key = (await createUserKey(me.headers, { user_id: "me", description: "leaked one" })).json;
    const res = await call(stack, "POST", "/api/v1/integrations/credential-scanning/revoke", { body: { api_key: key.value } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true });
    expectKnownError(await call(stack, "POST", "/api/v1/user-api-keys/check", { headers: server(), body: { api_key: key.value } }), 401, "API_KEY_REVOKED");
    expect((await call(stack, "POST", "/api/v1/integrations/credential-scanning/revoke", { body: { api_key: key.value } })).json).toEqual({ success: true });
    const mailbox = createServiceClient(MailboxService, { baseUrl: `http://127.0.0.1:${stack.email!.port}`, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    await waitUntil(async () => (await mailbox.listMailboxMessages({ to: me.email })).messages.some((m) => /API key .* was revoked/.test(m.subject)), 10_000);

    const pub = (await createUserKey(me.headers, { user_id: "me", description: "public", is_public: true })).json;
    expectKnownError(await call(stack, "POST", "/api/v1/integrations/credential-scanning/revoke", { body: { api_key: pub.value } }), 400, "PUBLIC_API_KEY_CANNOT_BE_REVOKED");
    expectKnownError(await call(stack, "POST", "/api/v1/integrations/credential-scanning/revoke", { body: { api_key: "sk_unknown" } }), 404, "API_KEY_NOT_FOUND");
  });
});
