/**
 * Issue 13, latest-sdk.md A: what @stackframe/js 2.8.108 sends and expects on every request (header prefixes, CORS,
 * keyless client access, access-token claims, token lifetimes, the oauth4webapi v3 refresh, backend-urls), next to
 * the seed-era answers that must not change.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;

async function setOverride(override: Record<string, unknown>) {
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", {
    headers: headersFor(stack.demo, "admin"),
    body: { config_override_string: JSON.stringify(override) },
  });
  return res;
}

/** Polls until `check` passes (project changes reach every cache by event). */
async function eventually(check: () => Promise<void>, timeoutMs = 10_000) {
  const started = Date.now();
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() - started > timeoutMs) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe("headers of both prefixes (A1)", () => {
  it("lists every contract header under both prefixes in the CORS preflight, x-*-allow-restricted-user included", async () => {
    const res = await fetch(`${stack.url}/api/v1/users/me`, {
      method: "OPTIONS",
      headers: { origin: "http://app.example.com", "access-control-request-method": "GET", "access-control-request-headers": "x-hexclave-allow-restricted-user" },
    });
    expect(res.status).toBe(200);
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").split(", ");
    // Every header 2.8.108 sends (client-interface.js), both spellings.
    for (const name of [
      "override-error-status", "project-id", "access-type", "client-version", "access-token", "refresh-token", "allow-anonymous-user",
      "allow-restricted-user", "publishable-client-key", "secret-server-key", "super-secret-admin-key", "admin-access-token", "random-nonce", "branch-id",
    ]) {
      expect(allowed, name).toContain(`x-stack-${name}`);
      expect(allowed, name).toContain(`x-hexclave-${name}`);
    }
    const exposed = res.headers.get("access-control-expose-headers") ?? "";
    for (const name of ["x-stack-actual-status", "x-hexclave-actual-status", "x-stack-known-error", "x-hexclave-known-error"]) expect(exposed).toContain(name);
  });

  it("emits actual-status and known-error under both prefixes, and reads x-hexclave-branch-id", async () => {
    const hex = headersFor(stack.demo, "client", "x-hexclave-");
    const res = await call(stack, "GET", "/api/v1/users/me", { headers: { ...hex, "x-hexclave-override-error-status": "true" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-stack-actual-status")).toBe(res.headers.get("x-hexclave-actual-status"));
    expect(res.json.code).toBe("CANNOT_GET_OWN_USER_WITHOUT_USER");
    expect(res.headers.get("x-hexclave-known-error")).toBe(res.json.code);
    expect(res.headers.get("x-stack-known-error")).toBe(res.json.code);
    const branch = await call(stack, "GET", "/api/v1/projects/current", { headers: { ...hex, "x-hexclave-branch-id": "dev" } });
    expectKnownError(branch, 400, "BRANCH_DOES_NOT_EXIST");
  });
});

describe("GET /internal/backend-urls (A7)", () => {
  it("answers the gateway's public URL without any header", async () => {
    const res = await call(stack, "GET", "/api/v1/internal/backend-urls");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ urls: ["http://localhost:8102"] });
    const doc = await call(stack, "GET", "/api/v1/openapi.json");
    expect(Object.keys(doc.json.paths)).toContain("/api/v1/internal/backend-urls");
    // Routes changed for issue 13 are documented with their new shapes.
    const signUp = doc.json.paths["/api/v1/auth/password/sign-up"].post.requestBody.content["application/json"].schema;
    expect(signUp.required ?? []).not.toContain("verification_callback_url");
    expect(Object.keys(signUp.properties)).toContain("verification_callback_url");
    const sendEmail = doc.json.paths["/api/v1/emails/send-email"].post.requestBody.content["application/json"].schema;
    expect(sendEmail.anyOf).toHaveLength(3);
  });
});

describe("access tokens for 2.8.108 (A3, A4)", () => {
  it("carries iat, signed_up_at and requires_totp_mfa; anonymous users are restricted with reason anonymous", async () => {
    const anon = await call(stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: headersFor(stack.demo, "client", "x-hexclave-") });
    expect(anon.status, anon.text).toBe(200);
    const claims = claimsOf(anon.json.access_token);
    expect(claims).toMatchObject({ is_anonymous: true, is_restricted: true, restricted_reason: { type: "anonymous" }, requires_totp_mfa: false });
    expect(typeof claims.iat).toBe("number");
    expect(typeof claims.signed_up_at).toBe("number");
    const user = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: headersFor(stack.demo, "client"),
      body: { email: `w-${randomBytes(4).toString("hex")}@example.com`, password: "a good password" },
    });
    expect(claimsOf(user.json.access_token)).toMatchObject({ is_anonymous: false, is_restricted: false, restricted_reason: null });
  });

  it("refuses access-token lifetimes the current SDK cannot use (under 60 s)", async () => {
    const short = await setOverride({ "auth.accessTokenLifetimeSeconds": 45 });
    expect(short.status).toBe(400);
    expect((await setOverride({ "auth.accessTokenLifetimeSeconds": 60 })).status).toBe(200);
    expect((await setOverride({ "auth.accessTokenLifetimeSeconds": 600 })).status).toBe(200);
  });
});

describe("refresh as oauth4webapi v3 sends it (A5)", () => {
  it("answers 200 JSON with access_token and token_type, and errors without WWW-Authenticate", async () => {
    const signUp = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: headersFor(stack.demo, "client"),
      body: { email: `r-${randomBytes(4).toString("hex")}@example.com`, password: "a good password" },
    });
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: signUp.json.refresh_token, client_id: stack.demo.projectId, client_secret: stack.demo.publishableClientKey });
    const ok = await fetch(`${stack.url}/api/v1/auth/oauth/token`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded;charset=UTF-8", "user-agent": "oauth4webapi/v3.8.3" },
      body: form.toString(),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await ok.json()) as Record<string, unknown>;
    expect(body.access_token).toEqual(expect.any(String));
    expect(String(body.token_type).toLowerCase()).toBe("bearer");
    form.set("refresh_token", "x".repeat(45));
    const bad = await fetch(`${stack.url}/api/v1/auth/oauth/token`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded;charset=UTF-8" },
      body: form.toString(),
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toBeNull();
    expect(((await bad.json()) as { code: string }).code).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  });
});

describe("optional publishable key (A2)", () => {
  const keyless = (prefix: "x-stack-" | "x-hexclave-") => ({ [`${prefix}project-id`]: stack.demo.projectId, [`${prefix}access-type`]: "client" });

  it("requires a key by default: CLIENT_AUTHENTICATION_REQUIRED to seed callers, PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT to current ones", async () => {
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: keyless("x-stack-") }), 401, "CLIENT_AUTHENTICATION_REQUIRED");
    const current = await call(stack, "GET", "/api/v1/projects/current", { headers: keyless("x-hexclave-") });
    expectKnownError(current, 401, "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT");
    expect(current.json.details).toEqual({ project_id: stack.demo.projectId });
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x".repeat(45), client_id: stack.demo.projectId, client_secret: "__stack_public_client__" });
    const token = await call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: form.toString(), contentType: "application/x-www-form-urlencoded" });
    expectKnownError(token, 401, "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT");
    // The authorize URL too (the current SDK sends the marker there as well).
    const authorize = new URLSearchParams({
      client_id: stack.demo.projectId,
      client_secret: "__stack_public_client__",
      redirect_uri: "http://localhost:3000/handler/oauth-callback",
      scope: "legacy",
      state: "s".repeat(20),
      grant_type: "authorization_code",
      code_challenge: "c".repeat(43),
      code_challenge_method: "S256",
      response_type: "code",
      stack_response_mode: "json",
    });
    expectKnownError(await call(stack, "GET", `/api/v1/auth/oauth/authorize/github?${authorize}`), 401, "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT");
  });

  it("lets a project allow keyless client access: no header, and __stack_public_client__ as the OAuth client secret", async () => {
    expect((await setOverride({ "project.requirePublishableClientKey": false })).status).toBe(200);
    try {
      await eventually(async () => {
        expect((await call(stack, "GET", "/api/v1/projects/current", { headers: keyless("x-hexclave-") })).status).toBe(200);
      });
      const signUp = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
        headers: keyless("x-hexclave-"),
        body: { email: `k-${randomBytes(4).toString("hex")}@example.com`, password: "a good password" },
      });
      expect(signUp.status).toBe(200);
      const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: signUp.json.refresh_token, client_id: stack.demo.projectId, client_secret: "__stack_public_client__" });
      const token = await call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: form.toString(), contentType: "application/x-www-form-urlencoded;charset=UTF-8" });
      expect(token.status).toBe(200);
      expect(token.json.access_token).toEqual(expect.any(String));
      // A wrong key is still wrong.
      const wrong = await call(stack, "GET", "/api/v1/projects/current", { headers: { ...keyless("x-stack-"), "x-stack-publishable-client-key": "pck_wrong" } });
      expectKnownError(wrong, 401, "INVALID_PUBLISHABLE_CLIENT_KEY");
      // Server access still needs its key.
      expectKnownError(await call(stack, "GET", "/api/v1/users", { headers: { "x-stack-project-id": stack.demo.projectId, "x-stack-access-type": "server" } }), 401, "SERVER_AUTHENTICATION_REQUIRED");
    } finally {
      expect((await setOverride({ "project.requirePublishableClientKey": true })).status).toBe(200);
    }
    await eventually(async () => {
      expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: keyless("x-stack-") }), 401, "CLIENT_AUTHENTICATION_REQUIRED");
    });
  });
});
