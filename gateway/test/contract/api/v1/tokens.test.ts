import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StackClientApp } from "@stackframe/js";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const callback = "http://localhost:3000/handler/email-verification";

function lifetime(token: string): number {
  const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { iat: number; exp: number };
  return claims.exp - claims.iat;
}

async function signUp(keys = stack.demo) {
  const email = `tok-${randomBytes(5).toString("hex")}@example.com`;
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
    headers: headersFor(keys, "client"),
    body: { email, password: "token test password", verification_callback_url: callback },
  });
  expect(res.status).toBe(200);
  return { email, accessToken: res.json.access_token as string, refreshToken: res.json.refresh_token as string, userId: res.json.user_id as string };
}

describe("access tokens", () => {
  it("carries the contract's claims and the newer SDKs' claims", async () => {
    const { accessToken, userId } = await signUp();
    const [header, payload] = accessToken.split(".").slice(0, 2).map((p) => JSON.parse(Buffer.from(p, "base64url").toString()));
    expect(header).toEqual({ alg: "ES256", kid: expect.stringMatching(/^.{12}$/) });
    expect(payload).toMatchObject({
      sub: userId,
      aud: stack.demo.projectId,
      iss: `http://localhost:8102/api/v1/projects/${stack.demo.projectId}`,
      project_id: stack.demo.projectId,
      branch_id: "main",
      role: "authenticated",
      is_anonymous: false,
      email_verified: false,
      selected_team_id: null,
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
    });
    expect(payload.exp - payload.iat).toBe(600);
    expect(typeof payload.signed_up_at).toBe("number");
    expect(typeof payload.refresh_token_id).toBe("string");
  });

  it("refuses a token re-signed for another project and keeps projects' users apart", async () => {
    const other = await signUp(stack.internal);
    const mine = await signUp();
    // A token of the internal project with its claims rewritten to the demo project: the signature no longer holds.
    const [h, p, s] = other.accessToken.split(".");
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, aud: stack.demo.projectId, project_id: stack.demo.projectId, iss: claims.iss.replace("internal", stack.demo.projectId) })).toString("base64url")}.${s}`;
    expectKnownError(await call(stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(stack.demo, "client"), "x-stack-access-token": forged } }), 401, "UNPARSABLE_ACCESS_TOKEN");
    // The demo project's server key can neither read nor change the internal project's user.
    expectKnownError(await call(stack, "GET", `/api/v1/users/${other.userId}`, { headers: headersFor(stack.demo, "server") }), 404, "USER_NOT_FOUND");
    expectKnownError(await call(stack, "PATCH", `/api/v1/users/${other.userId}`, { headers: headersFor(stack.demo, "server"), body: { display_name: "hijacked" } }), 404, "USER_NOT_FOUND");
    expectKnownError(await call(stack, "DELETE", `/api/v1/users/${other.userId}`, { headers: headersFor(stack.demo, "server") }), 404, "USER_NOT_FOUND");
    const intact = await call(stack, "GET", `/api/v1/users/${other.userId}`, { headers: headersFor(stack.internal, "server") });
    expect(intact.json.display_name).toBeNull();
    // A refresh token of one project does not refresh in another.
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: mine.refreshToken, client_id: "internal", client_secret: stack.internal.publishableClientKey });
    expectKnownError(await call(stack, "POST", "/api/v1/auth/oauth/token", { rawBody: form.toString(), contentType: "application/x-www-form-urlencoded" }), 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  });

  it("answers ACCESS_TOKEN_EXPIRED for an expired token, and the published SDK refreshes transparently", async () => {
    // Shortest lifetime Vestibule accepts (2.8.108 wants 45 s left on a fresh token; 2.8.41 refreshes 20 s before expiry).
    const set = await call(stack, "PATCH", "/api/v1/internal/config/override", {
      headers: headersFor(stack.demo, "admin"),
      body: { config_override_string: JSON.stringify({ "auth.accessTokenLifetimeSeconds": 60 }) },
    });
    expect(set.status).toBe(200);
    // The auth service learns the new lifetime from the project-updated event: sign up until a token carries it.
    let signedUp = await signUp();
    for (let i = 0; lifetime(signedUp.accessToken) !== 60; i++) {
      if (i > 50) throw new Error("the auth service did not pick up the new token lifetime");
      await new Promise((r) => setTimeout(r, 100));
      signedUp = await signUp();
    }
    const { accessToken, refreshToken, email } = signedUp;
    await new Promise((r) => setTimeout(r, 61_500));
    const expired = await call(stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(stack.demo, "client"), "x-stack-access-token": accessToken } });
    expectKnownError(expired, 401, "ACCESS_TOKEN_EXPIRED");
    expect(typeof expired.json.details.expired_at_millis).toBe("number");
    expect(expired.json.details.expired_at_millis).toBeLessThan(Date.now());

    const app = new StackClientApp({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      tokenStore: { accessToken, refreshToken },
      noAutomaticPrefetch: true,
    } as never);
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(email);
    await call(stack, "PATCH", "/api/v1/internal/config/override", {
      headers: headersFor(stack.demo, "admin"),
      body: { config_override_string: JSON.stringify({ "auth.accessTokenLifetimeSeconds": 600 }) },
    });
  }, 100_000);
});
