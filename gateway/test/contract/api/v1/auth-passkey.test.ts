import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { SoftwareAuthenticator } from "@vestibule/auth/testing";
import { call, expectKnownError, headersFor, startStack, type ApiResponse, type Stack } from "../../../support.ts";

let stack: Stack;
let projects: ReturnType<typeof createServiceClient<typeof ProjectService>>;
beforeAll(async () => {
  stack = await startStack({ auth: true, env: { VESTIBULE_AUTH_RATE_LIMIT: "off" } });
  projects = createServiceClient(ProjectService, { baseUrl: stack.env.VESTIBULE_IDENTITY_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
  await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify({ passkey_enabled: true }) });
});
afterAll(async () => {
  await stack?.stop();
});

const PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com";
const client = (token?: string) => ({ ...headersFor(stack.demo, "client"), ...(token ? { "x-stack-access-token": token } : {}) });
const server = (token?: string) => ({ ...headersFor(stack.demo, "server"), ...(token ? { "x-stack-access-token": token } : {}) });

async function signUp(): Promise<{ userId: string; token: string }> {
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
    headers: client(),
    body: { email: `pk-${randomBytes(5).toString("hex")}@example.com`, password: "correct horse battery", verification_callback_url: "http://localhost:3000/handler/email-verification" },
  });
  expect(res.status).toBe(200);
  return { userId: res.json.user_id, token: res.json.access_token };
}

async function registerOver(headers: Record<string, string>, authenticator: SoftwareAuthenticator): Promise<ApiResponse> {
  const init = await call(stack, "POST", "/api/v1/auth/passkey/initiate-passkey-registration", { headers, body: {} });
  expect(init.status).toBe(200);
  expect(Object.keys(init.json).sort()).toEqual(["code", "options_json"]);
  expect(init.json.options_json.rp.id).toBe(PLACEHOLDER);
  const credential = authenticator.register(init.json.options_json);
  return call(stack, "POST", "/api/v1/auth/passkey/register", { headers, body: { credential, code: init.json.code } });
}

async function signInOver(authenticator: SoftwareAuthenticator): Promise<ApiResponse> {
  const init = await call(stack, "POST", "/api/v1/auth/passkey/initiate-passkey-authentication", { headers: client(), body: {} });
  expect(init.status).toBe(200);
  expect(init.json.options_json.rpId).toBe(PLACEHOLDER);
  const authentication_response = authenticator.authenticate(init.json.options_json);
  return call(stack, "POST", "/api/v1/auth/passkey/sign-in", { headers: client(), body: { authentication_response, code: init.json.code } });
}

describe("passkeys over REST", () => {
  it("a signed-in user registers a passkey, signs in with it alone, lists, renames and removes it", async () => {
    const { userId, token } = await signUp();
    const authenticator = new SoftwareAuthenticator();
    const reg = await registerOver(client(token), authenticator);
    expect(reg.status).toBe(200);
    expect(reg.json).toEqual({ user_handle: Buffer.from(userId.replace(/-/g, ""), "hex").toString("base64url") });
    expect((await call(stack, "GET", "/api/v1/users/me", { headers: client(token) })).json.passkey_auth_enabled).toBe(true);

    const signIn = await signInOver(authenticator);
    expect(signIn.status).toBe(200);
    expect(Object.keys(signIn.json).sort()).toEqual(["access_token", "is_new_user", "refresh_token", "user_id"]);
    expect(signIn.json).toMatchObject({ user_id: userId, is_new_user: false });

    const list = await call(stack, "GET", "/api/v1/auth/passkeys?user_id=me", { headers: client(signIn.json.access_token) });
    expect(list.status).toBe(200);
    expect(list.json.is_paginated).toBe(false);
    expect(list.json.items).toHaveLength(1);
    const item = list.json.items[0];
    expect(Object.keys(item).sort()).toEqual(["created_at_millis", "credential_id", "id", "last_used_at_millis", "name", "transports"]);
    expect(item).toMatchObject({ name: "Passkey 1", transports: ["internal"] });
    expect(item.last_used_at_millis).toBeGreaterThanOrEqual(item.created_at_millis);

    const renamed = await call(stack, "PATCH", `/api/v1/auth/passkeys/${item.id}?user_id=me`, { headers: client(token), body: { name: "My laptop" } });
    expect(renamed.json).toMatchObject({ id: item.id, name: "My laptop" });
    // Another user sees none of it.
    const other = await signUp();
    expect((await call(stack, "GET", `/api/v1/auth/passkeys?user_id=${userId}`, { headers: client(other.token) })).status).toBe(403);
    expect((await call(stack, "DELETE", `/api/v1/auth/passkeys/${item.id}`, { headers: client(other.token) })).text).toBe("Passkey not found.");

    const removed = await call(stack, "DELETE", `/api/v1/auth/passkeys/${item.id}?user_id=me`, { headers: client(token) });
    expect(removed.json).toEqual({ success: true });
    expect((await call(stack, "GET", "/api/v1/users/me", { headers: client(token) })).json.passkey_auth_enabled).toBe(false);
    expectKnownError(await signInOver(authenticator), 400, "PASSKEY_AUTHENTICATION_FAILED");
  });

  it("the server SDK's path: a short session of the user (server access), then registration as that user", async () => {
    const { userId } = await signUp();
    const session = await call(stack, "POST", "/api/v1/auth/sessions", { headers: server(), body: { user_id: userId, expires_in_millis: 120_000, is_impersonation: false } });
    expect(session.status).toBe(200);
    const authenticator = new SoftwareAuthenticator();
    const reg = await registerOver(server(session.json.access_token), authenticator);
    expect(reg.status).toBe(200);
    expect((await signInOver(authenticator)).json.user_id).toBe(userId);
    const list = await call(stack, "GET", `/api/v1/auth/passkeys?user_id=${userId}`, { headers: server() });
    expect(list.json.items).toHaveLength(1);
  });

  it("answers every malformed body with a known error or the schema's 400, never a 5xx", async () => {
    const { token } = await signUp();
    const code = "a".repeat(45);
    expectKnownError(await call(stack, "POST", "/api/v1/auth/passkey/initiate-passkey-registration", { headers: client(), body: {} }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "POST", "/api/v1/auth/passkey/register", { headers: client(), body: { credential: {}, code } }), 400, "SCHEMA_ERROR");
    const init = await call(stack, "POST", "/api/v1/auth/passkey/initiate-passkey-registration", { headers: client(token), body: {} });
    const good = new SoftwareAuthenticator().register(init.json.options_json) as { response: Record<string, unknown> };
    const bodies: unknown[] = [
      { credential: "x", code: init.json.code },
      { credential: null, code: init.json.code },
      { credential: 42, code: init.json.code },
      { credential: [], code: init.json.code },
      { credential: { ...good, id: "not base64url!" }, code: init.json.code },
      { credential: { ...good, response: { ...good.response, clientDataJSON: "%%%" } }, code: init.json.code },
      { credential: { ...good, response: { ...good.response, attestationObject: { a: 1 } } }, code: init.json.code },
      { credential: { ...good, options_json: "x".repeat(100_000) }, code: init.json.code },
    ];
    for (const body of bodies) expectKnownError(await call(stack, "POST", "/api/v1/auth/passkey/register", { headers: client(token), body }), 400, "PASSKEY_REGISTRATION_FAILED");
    for (const body of [{ credential: good }, { credential: good, code: 45 }, { credential: good, code: "short" }, "nope", [], { credential: good, code: init.json.code, extra: 1 }]) {
      expectKnownError(await call(stack, "POST", "/api/v1/auth/passkey/register", { headers: client(token), body }), 400, "SCHEMA_ERROR");
    }
    expectKnownError(await call(stack, "POST", "/api/v1/auth/passkey/register", { headers: client(token), body: { credential: good, code } }), 404, "VERIFICATION_CODE_NOT_FOUND");

    const auth = await call(stack, "POST", "/api/v1/auth/passkey/initiate-passkey-authentication", { headers: client(), body: { options_json: "x".repeat(200_000) } });
    expect(auth.status).toBe(200);
    for (const authentication_response of ["x", null, 1, {}, { id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "AAAA", authenticatorData: "@@", signature: "AAAA" } }]) {
      expectKnownError(
        await call(stack, "POST", "/api/v1/auth/passkey/sign-in", { headers: client(), body: { authentication_response, code: auth.json.code } }),
        400,
        "PASSKEY_AUTHENTICATION_FAILED",
      );
    }
    const res = await call(stack, "POST", "/api/v1/auth/passkey/sign-in", { headers: client(), rawBody: "{not json" });
    expect(res.status).toBe(400);
    const huge = await call(stack, "POST", "/api/v1/auth/passkey/sign-in", { headers: client(), body: { authentication_response: "x".repeat(3_000_000), code } });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
  });

  it("a project with passkeys off answers PASSKEY_AUTHENTICATION_NOT_ENABLED; the routes are in the OpenAPI document", async () => {
    const { token } = await signUp();
    await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify({ passkey_enabled: false }) });
    try {
      for (;;) {
        const res = await call(stack, "POST", "/api/v1/auth/passkey/initiate-passkey-authentication", { headers: client(), body: {} });
        if (res.status !== 200) {
          expectKnownError(res, 400, "PASSKEY_AUTHENTICATION_NOT_ENABLED");
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      expectKnownError(await call(stack, "POST", "/api/v1/auth/passkey/initiate-passkey-registration", { headers: client(token), body: {} }), 400, "PASSKEY_AUTHENTICATION_NOT_ENABLED");
    } finally {
      await projects.updateProject({ projectId: stack.demo.projectId, configUpdateJson: JSON.stringify({ passkey_enabled: true }) });
    }
    const doc = (await call(stack, "GET", "/api/v1/openapi.json")).json;
    for (const path of ["/auth/passkey/initiate-passkey-registration", "/auth/passkey/register", "/auth/passkey/initiate-passkey-authentication", "/auth/passkey/sign-in", "/auth/passkeys"]) {
      expect(Object.keys(doc.paths).some((p) => p.endsWith(path))).toBe(true);
    }
  });
});
