import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import { createServiceClient } from "@vestibule/shared/rpc";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { call, expectKnownError, headersFor, startStack, type ApiResponse, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const callback = "http://localhost:3000/handler/email-verification";

async function signUp(): Promise<{ refresh_token: string; access_token: string; user_id: string }> {
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
    headers: client(),
    body: { email: `rf-${randomBytes(5).toString("hex")}@example.com`, password: "a good password", verification_callback_url: callback },
  });
  expect(res.status).toBe(200);
  return res.json;
}

function oauth(refreshToken: string, clientSecret = stack.demo.publishableClientKey): Promise<ApiResponse> {
  const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: stack.demo.projectId, client_secret: clientSecret });
  return call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: form.toString(), contentType: "application/x-www-form-urlencoded" });
}

function viaSessions(refreshToken: string): Promise<ApiResponse> {
  return call(stack, "POST", "/api/v1/auth/sessions/current/refresh", { headers: { ...client(), "x-stack-refresh-token": refreshToken } });
}

describe("token refresh under concurrency (batched into RefreshSessions)", () => {
  it("many concurrent refreshes through both endpoints, valid and invalid mixed: each gets its own contract answer", async () => {
    const [a, b] = await Promise.all([signUp(), signUp()]);
    const bad = "0".repeat(45);
    const calls = [
      ...Array.from({ length: 12 }, (_, i) => ({ kind: "oauth", token: i % 2 ? a.refresh_token : b.refresh_token, user: i % 2 ? a.user_id : b.user_id })),
      ...Array.from({ length: 6 }, () => ({ kind: "oauth", token: bad, user: undefined })),
      ...Array.from({ length: 6 }, (_, i) => ({ kind: "sessions", token: i % 2 ? a.refresh_token : bad, user: i % 2 ? a.user_id : undefined })),
    ];
    const answers = await Promise.all(calls.map((c) => (c.kind === "oauth" ? oauth(c.token) : viaSessions(c.token))));
    answers.forEach((res, i) => {
      const c = calls[i]!;
      if (!c.user) return expectKnownError(res, 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      expect(res.status).toBe(200);
      if (c.kind === "oauth") {
        expect(Object.keys(res.json)).toEqual(["access_token", "token_type", "expires_in", "scope"]);
        expect(res.json).toMatchObject({ token_type: "Bearer", expires_in: 3599, scope: "legacy" });
      } else {
        expect(Object.keys(res.json)).toEqual(["access_token"]);
      }
      expect(decodeJwt(res.json.access_token).sub).toBe(c.user);
    });
  });

  it("client errors stay as they were: bad client secret, missing refresh token, missing header", async () => {
    const a = await signUp();
    const [badClient, missing, noHeader] = await Promise.all([
      oauth(a.refresh_token, "pck_wrong"),
      call(stack, "POST", "/api/v1/auth/oauth/token", {
        rawBody: new URLSearchParams({ grant_type: "refresh_token", client_id: stack.demo.projectId, client_secret: stack.demo.publishableClientKey }).toString(),
        contentType: "application/x-www-form-urlencoded",
      }),
      call(stack, "POST", "/api/v1/auth/sessions/current/refresh", { headers: client() }),
    ]);
    expectKnownError(badClient, 400, "INVALID_OAUTH_CLIENT_ID_OR_SECRET");
    expect(badClient.json.details).toEqual({ client_id: stack.demo.projectId });
    expectKnownError(missing, 400, "SCHEMA_ERROR");
    expectKnownError(noHeader, 400, "SCHEMA_ERROR");
  });

  it("a revoked session is refused at once, also for refreshes already waiting next to valid ones", async () => {
    const [a, b] = await Promise.all([signUp(), signUp()]);
    const signOut = await call(stack, "DELETE", "/api/v1/auth/sessions/current", { headers: { ...client(), "x-stack-access-token": a.access_token }, body: {} });
    expect(signOut.json).toEqual({ success: true });
    const [gone, fine] = await Promise.all([oauth(a.refresh_token), oauth(b.refresh_token)]);
    expectKnownError(gone, 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(fine.status).toBe(200);
  });

  it("with refresh-token rotation: a new refresh token per refresh; a reused one revokes the session", async () => {
    const projects = createServiceClient(ProjectService, { baseUrl: stack.env.VESTIBULE_IDENTITY_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
    const a = await signUp();
    await projects.updateConfigOverride({ projectId: stack.demo.projectId, configOverrideJson: JSON.stringify({ "auth.refreshTokenRotation": true }) });
    try {
      let first: ApiResponse | undefined;
      // The auth service follows project changes through events; wait until rotation is on there.
      for (let i = 0; i < 100 && !first?.json?.refresh_token; i++) {
        first = await oauth(first?.json?.refresh_token ?? a.refresh_token);
        if (!first.json?.refresh_token) await new Promise((r) => setTimeout(r, 50));
      }
      expect(first!.json.refresh_token).toMatch(/^[0-9a-z]{45}$/);
      expect(Object.keys(first!.json)).toEqual(["access_token", "token_type", "expires_in", "scope", "refresh_token"]);
      const next = await viaSessions(first!.json.refresh_token);
      expect(Object.keys(next.json)).toEqual(["access_token", "refresh_token"]);
      // The rotated-away token comes back: the session is revoked, and its current token is refused too.
      expectKnownError(await oauth(first!.json.refresh_token), 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      expectKnownError(await oauth(next.json.refresh_token), 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    } finally {
      await projects.updateConfigOverride({ projectId: stack.demo.projectId, configOverrideJson: JSON.stringify({ "auth.refreshTokenRotation": false }) });
    }
  });
});

describe("a deleted user's refresh token (issue 12)", () => {
  it("stops minting access tokens as soon as DELETE /users/{id} has answered", async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signUp();
      expect((await oauth(user.refresh_token)).status).toBe(200);
      const del = await call(stack, "DELETE", `/api/v1/users/${user.user_id}`, { headers: headersFor(stack.demo, "server") });
      expect(del.status).toBe(200);
      // No wait: before the fix the sessions went only when identity's event reached auth, moments later.
      expectKnownError(await oauth(user.refresh_token), 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      expectKnownError(await viaSessions(user.refresh_token), 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    }
  });

  it("also for a user who deletes themself, and a second delete is the contract's unknown user", async () => {
    const admin = headersFor(stack.demo, "admin");
    await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin, body: { config: { client_user_deletion_enabled: true } } });
    const user = await signUp();
    const del = await call(stack, "DELETE", "/api/v1/users/me", { headers: { ...client(), "x-stack-access-token": user.access_token } });
    expect(del.status).toBe(200);
    expectKnownError(await oauth(user.refresh_token), 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const again = await call(stack, "DELETE", `/api/v1/users/${user.user_id}`, { headers: headersFor(stack.demo, "server") });
    expectKnownError(again, 404, "USER_NOT_FOUND"); // a user id in the path (errors.md)
  });
});
