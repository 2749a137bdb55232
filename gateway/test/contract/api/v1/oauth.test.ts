import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import pg from "pg";
import { call, expectKnownError, headersFor, type ProjectKeys } from "../../../support.ts";
import { Browser, ERROR_URL, REDIRECT_URI, atProvider, authorizePath, exchange, oauthSignIn, runFlow, standardProvider, startOAuthStack, type OAuthStack } from "../../../oauth-support.ts";

let o: OAuthStack;
let keys: ProjectKeys;
beforeAll(async () => {
  o = await startOAuthStack();
  keys = await o.newProject({ oauth_providers: [standardProvider(o.idp, "github"), { id: "google", type: "shared" }] });
}, 60_000);
afterAll(async () => {
  await o?.stop();
});

const client = () => headersFor(keys, "client");
const server = () => headersFor(keys, "server");
const email = () => `oauth-${randomBytes(5).toString("hex")}@example.com`;

describe("OAuth sign-in through the development identity provider", () => {
  it("signs up a new user, then signs the same account in again", async () => {
    const who = { email: email(), name: "Ada Lovelace" };
    const up = await oauthSignIn(o.stack, keys, "github", who, { afterCallbackRedirectUrl: "http://localhost:3000/after" });
    expect(up.status, up.text).toBe(200);
    expect(up.json).toMatchObject({ token_type: "Bearer", scope: "legacy", is_new_user: true, newUser: true, after_callback_redirect_url: "http://localhost:3000/after" });
    const me = await call(o.stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(keys, "client"), "x-stack-access-token": up.json.access_token } });
    expect(me.json).toMatchObject({
      primary_email: who.email,
      primary_email_verified: true,
      display_name: "Ada Lovelace",
      oauth_providers: [{ id: "github", account_id: o.idp.accountIdOf(who.email), email: who.email }],
      has_password: false,
    });
    const again = await oauthSignIn(o.stack, keys, "github", who);
    expect(again.status).toBe(200);
    expect(again.json.is_new_user).toBe(false);
    expect(again.json.user_id).toBe(up.json.user_id);
  });

  it("links an OAuth account to a signed-in password user, who then signs in with it", async () => {
    const pw = await call(o.stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: client(),
      body: { email: email(), password: "a good password", verification_callback_url: "http://localhost:3000/verify" },
    });
    expect(pw.status).toBe(200);
    const who = { email: email(), name: "Linked" };
    const linked = await oauthSignIn(o.stack, keys, "github", who, { type: "link", token: pw.json.access_token });
    expect(linked.status, linked.text).toBe(200);
    expect(linked.json).toMatchObject({ user_id: pw.json.user_id, is_new_user: false });
    const list = await call(o.stack, "GET", "/api/v1/oauth-providers?user_id=me", { headers: { ...client(), "x-stack-access-token": pw.json.access_token } });
    expect(list.json.items).toEqual([
      { user_id: pw.json.user_id, id: expect.any(String), email: who.email, provider_config_id: "github", type: "github", allow_sign_in: true, allow_connected_accounts: true },
    ]);
    const user = await call(o.stack, "GET", `/api/v1/users/${pw.json.user_id}`, { headers: server() });
    expect(user.json).toMatchObject({ has_password: true, oauth_providers: [{ id: "github", account_id: o.idp.accountIdOf(who.email), email: who.email }] });
    const signIn = await oauthSignIn(o.stack, keys, "github", who);
    expect(signIn.json).toMatchObject({ user_id: pw.json.user_id, is_new_user: false });

    // The same provider account cannot join a second user.
    const other = await call(o.stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: client() });
    const other2 = await call(o.stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: client(),
      body: { email: email(), password: "a good password", verification_callback_url: "http://localhost:3000/verify" },
    });
    expect(other.status).toBe(200);
    const taken = await runFlow(o.stack, keys, "github", who, { type: "link", token: other2.json.access_token, errorRedirectUrl: ERROR_URL });
    expect(taken.location.origin + taken.location.pathname).toBe(ERROR_URL);
    expect(taken.location.searchParams.get("errorCode")).toBe("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
    // Linking needs a signed-in user.
    const noToken = await call(o.stack, "GET", authorizePath(keys, "github", { type: "link" }).path);
    expect(noToken.status).toBe(400);
  });

  it("merge strategies: link_method links a verified e-mail, raise_error refuses, allow_duplicates makes a second user", async () => {
    for (const strategy of ["link_method", "raise_error", "allow_duplicates"] as const) {
      const k = await o.newProject({ oauth_providers: [standardProvider(o.idp, "github")], oauth_account_merge_strategy: strategy });
      const address = email();
      const pw = await call(o.stack, "POST", "/api/v1/auth/password/sign-up", {
        headers: headersFor(k, "client"),
        body: { email: address, password: "a good password", verification_callback_url: "http://localhost:3000/verify" },
      });
      expect(pw.status).toBe(200);
      if (strategy === "link_method") {
        // Unverified on our side: refused until verified.
        const refused = await runFlow(o.stack, k, "github", { email: address }, {});
        expect(refused.location.searchParams.get("errorCode")).toBe("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE");
        expect(refused.location.searchParams.get("error")).toBe("server_error");
        expect(refused.location.searchParams.get("state")).toBe(refused.state);
        const verify = await call(o.stack, "PATCH", `/api/v1/users/${pw.json.user_id}`, { headers: headersFor(k, "server"), body: { primary_email_verified: true } });
        expect(verify.status).toBe(200);
        const res = await oauthSignIn(o.stack, k, "github", { email: address });
        expect(res.json).toMatchObject({ user_id: pw.json.user_id, is_new_user: false });
      } else if (strategy === "raise_error") {
        const refused = await runFlow(o.stack, k, "github", { email: address }, { errorRedirectUrl: ERROR_URL });
        expect(refused.location.searchParams.get("errorCode")).toBe("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE");
        expect(JSON.parse(refused.location.searchParams.get("details")!)).toMatchObject({ type: "email", contact_channel_value: address });
      } else {
        const res = await oauthSignIn(o.stack, k, "github", { email: address });
        expect(res.json.is_new_user).toBe(true);
        expect(res.json.user_id).not.toBe(pw.json.user_id);
        const dup = await call(o.stack, "GET", `/api/v1/users/${res.json.user_id}`, { headers: headersFor(k, "server") });
        expect(dup.json).toMatchObject({ primary_email: address, primary_email_auth_enabled: false });
      }
    }
  });

  it("upgrades an anonymous user in place", async () => {
    const anon = await call(o.stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: client() });
    const who = { email: email(), name: "Was Anonymous" };
    const res = await oauthSignIn(o.stack, keys, "github", who, { token: anon.json.access_token });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ user_id: anon.json.user_id, is_new_user: true });
    const user = await call(o.stack, "GET", `/api/v1/users/${anon.json.user_id}`, { headers: server() });
    expect(user.json).toMatchObject({ is_anonymous: false, primary_email: who.email, display_name: "Was Anonymous" });
  });

  it("asks for the second factor when the user has TOTP", async () => {
    const who = { email: email() };
    const up = await oauthSignIn(o.stack, keys, "github", who);
    const secret = randomBytes(20);
    const on = await call(o.stack, "PATCH", `/api/v1/users/${up.json.user_id}`, { headers: server(), body: { totp_secret_base64: secret.toString("base64") } });
    expect(on.status).toBe(200);
    const mfa = await oauthSignIn(o.stack, keys, "github", who);
    expectKnownError(mfa, 400, "MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    expect(mfa.json.error).toBeTypeOf("string");
    const attempt = mfa.json.details.attempt_code as string;
    const totp = await generate({ secret, epoch: Math.floor(Date.now() / 1000) });
    const ok = await call(o.stack, "POST", "/api/v1/auth/mfa/sign-in", { headers: client(), body: { type: "totp", totp, code: attempt } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.user_id).toBe(up.json.user_id);
  });

  it("authorization codes: PKCE verifier checked, single use, redirect URI must match", async () => {
    const flow = await runFlow(o.stack, keys, "github", { email: email() });
    const code = flow.location.searchParams.get("code")!;
    expect(code).toMatch(/^[0-9a-z]{45}$/);
    const wrongVerifier = await exchange(o.stack, keys, code, "x".repeat(43));
    expectKnownError(wrongVerifier, 400, "INVALID_AUTHORIZATION_CODE");
    // Burnt by the failed attempt, like any used code.
    expectKnownError(await exchange(o.stack, keys, code, flow.pkce.verifier), 400, "INVALID_AUTHORIZATION_CODE");

    const flow2 = await runFlow(o.stack, keys, "github", { email: email() });
    const code2 = flow2.location.searchParams.get("code")!;
    const wrongRedirect = await exchange(o.stack, keys, code2, flow2.pkce.verifier, "http://localhost:3000/elsewhere");
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.headers.get("x-stack-known-error")).toBeNull();

    const flow3 = await runFlow(o.stack, keys, "github", { email: email() });
    const code3 = flow3.location.searchParams.get("code")!;
    expect((await exchange(o.stack, keys, code3, flow3.pkce.verifier)).status).toBe(200);
    expectKnownError(await exchange(o.stack, keys, code3, flow3.pkce.verifier), 400, "INVALID_AUTHORIZATION_CODE");
    // Another project's keys cannot use a code.
    const other = await o.newProject({ oauth_providers: [standardProvider(o.idp, "github")] });
    const flow4 = await runFlow(o.stack, keys, "github", { email: email() });
    expectKnownError(await exchange(o.stack, other, flow4.location.searchParams.get("code")!, flow4.pkce.verifier), 400, "INVALID_AUTHORIZATION_CODE");
    // Missing or malformed fields.
    const missing = await call(o.stack, "POST", "/api/v1/auth/oauth/token", {
      rawBody: new URLSearchParams({ grant_type: "authorization_code", client_id: keys.projectId, client_secret: keys.publishableClientKey }).toString(),
      contentType: "application/x-www-form-urlencoded",
    });
    expectKnownError(missing, 400, "INVALID_AUTHORIZATION_CODE");
  });

  it("callback: wrong state, replayed callback, missing cookie and an expired flow", async () => {
    const wrong = await call(o.stack, "GET", "/api/v1/auth/oauth/callback/github?state=nope&code=abc");
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get("x-stack-known-error")).toBeNull();
    const none = await call(o.stack, "GET", "/api/v1/auth/oauth/callback/github");
    expect(none.status).toBe(400);

    // Replay of a callback URL that already worked.
    const browser = new Browser();
    const a = authorizePath(keys, "github");
    const start = await browser.fetch(o.stack.url + a.path);
    const cb = await atProvider(browser, o.stack, start.headers.get("location")!, { email: email() });
    expect((await browser.fetch(cb)).status).toBe(307);
    expect((await browser.fetch(cb)).status).toBe(400);

    // Without the inner-state cookie (redirect mode): refused.
    const b = authorizePath(keys, "github");
    const start2 = await new Browser().fetch(o.stack.url + b.path);
    const cookieLess = new Browser();
    const cb2 = await atProvider(cookieLess, o.stack, start2.headers.get("location")!, { email: email() });
    const refused = await cookieLess.fetch(cb2);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Inner OAuth cookie not found");

    // Expired flow.
    const c = authorizePath(keys, "github");
    const b3 = new Browser();
    const start3 = await b3.fetch(o.stack.url + c.path);
    const cb3 = await atProvider(b3, o.stack, start3.headers.get("location")!, { email: email() });
    const db = new pg.Client({ connectionString: o.stack.db.url });
    await db.connect();
    try {
      await db.query(`UPDATE auth.oauth_flows SET expires_at = now() - interval '1 second'`);
    } finally {
      await db.end();
    }
    const late = await b3.fetch(cb3);
    expect(late.status).toBe(408);
    expect(late.headers.get("x-stack-known-error")).toBe("OUTER_OAUTH_TIMEOUT");
  });

  it("the provider's access denied goes back to the app as OAUTH_PROVIDER_ACCESS_DENIED", async () => {
    const toError = await runFlow(o.stack, keys, "github", "deny", { errorRedirectUrl: ERROR_URL });
    expect(toError.location.origin + toError.location.pathname).toBe(ERROR_URL);
    expect(toError.location.searchParams.get("errorCode")).toBe("OAUTH_PROVIDER_ACCESS_DENIED");
    expect(toError.location.searchParams.get("message")).toBe("The OAuth provider denied access to the user.");
    const toApp = await runFlow(o.stack, keys, "github", "deny");
    expect(toApp.location.origin + toApp.location.pathname).toBe(REDIRECT_URI);
    expect(toApp.location.searchParams.get("error")).toBe("server_error");
    expect(toApp.location.searchParams.get("errorCode")).toBe("OAUTH_PROVIDER_ACCESS_DENIED");
    expect(toApp.location.searchParams.get("code")).toBeNull();
  });

  it("authorize: JSON mode, untrusted URLs and every malformed parameter get known errors or 400 text", async () => {
    const json = await call(o.stack, "GET", authorizePath(keys, "github", { json: true }).path);
    expect(json.status).toBe(200);
    expect(Object.keys(json.json)).toEqual(["location"]);
    expect(json.json.location.startsWith(o.idp.issuer)).toBe(true);
    expect(json.headers.getSetCookie()).toEqual([]);
    const redirect = await fetch(o.stack.url + authorizePath(keys, "github").path, { redirect: "manual" });
    expect(redirect.status).toBe(307);
    expect(redirect.headers.getSetCookie()[0]).toMatch(/^stack-oauth-inner-[A-Za-z0-9_-]+=1; Path=\/; Max-Age=600; HttpOnly/);
    // JSON mode flows need no cookie.
    const flow = await runFlow(o.stack, keys, "github", { email: email() }, { json: true });
    expect(flow.location.searchParams.get("code")).toMatch(/^[0-9a-z]{45}$/);

    expectKnownError(await call(o.stack, "GET", authorizePath(keys, "github", { redirectUri: "https://evil.example.com/cb" }).path), 400, "REDIRECT_URL_NOT_WHITELISTED");
    expectKnownError(await call(o.stack, "GET", authorizePath(keys, "github", { afterCallbackRedirectUrl: "https://evil.example.com/after" }).path), 400, "REDIRECT_URL_NOT_WHITELISTED");
    expectKnownError(await call(o.stack, "GET", authorizePath(keys, "github", { errorRedirectUrl: "https://evil.example.com/err" }).path), 400, "REDIRECT_URL_NOT_WHITELISTED");
    expectKnownError(await call(o.stack, "GET", authorizePath(keys, "gitlab").path), 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    expectKnownError(await call(o.stack, "GET", authorizePath({ ...keys, publishableClientKey: "pck_wrong" }, "github").path), 401, "INVALID_PUBLISHABLE_CLIENT_KEY");
    expectKnownError(
      await call(o.stack, "GET", authorizePath({ ...keys, projectId: "00000000-0000-4000-8000-000000000000" }, "github").path),
      400,
      "INVALID_OAUTH_CLIENT_ID_OR_SECRET",
    );
    expectKnownError(await call(o.stack, "GET", authorizePath({ ...keys, projectId: "not a project" }, "github").path), 400, "INVALID_OAUTH_CLIENT_ID_OR_SECRET");
    expectKnownError(await call(o.stack, "GET", authorizePath(keys, "google", { providerScope: "repo" }).path), 400, "OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS");
    expectKnownError(await call(o.stack, "GET", authorizePath(keys, "github", { token: "not.a.token" }).path), 401, "UNPARSABLE_ACCESS_TOKEN");
    const base = authorizePath(keys, "github").path;
    for (const [key, value] of [
      ["code_challenge_method", "plain"],
      ["code_challenge", "short"],
      ["response_type", "token"],
      ["type", "steal"],
      ["state", ""],
    ] as const) {
      const u = new URL(o.stack.url + base);
      u.searchParams.set(key, value);
      const res = await call(o.stack, "GET", u.pathname + u.search);
      expect(res.status, `${key}=${value}: ${res.text}`).toBe(400);
    }
    for (const key of ["client_id", "client_secret", "redirect_uri", "state", "code_challenge", "code_challenge_method"]) {
      const u = new URL(o.stack.url + base);
      u.searchParams.delete(key);
      expectKnownError(await call(o.stack, "GET", u.pathname + u.search), 400, "SCHEMA_ERROR");
    }
  });
});

describe("connected accounts and /oauth-providers", () => {
  it("hands out the provider's token with the granted scopes, refreshes it, refuses missing scopes and shared keys", async () => {
    const who = { email: email() };
    const up = await oauthSignIn(o.stack, keys, "github", who, { providerScope: "repo" });
    expect(up.status, up.text).toBe(200);
    const me = { ...client(), "x-stack-access-token": up.json.access_token };
    const t = await call(o.stack, "POST", "/api/v1/connected-accounts/me/github/access-token", { headers: me, body: { scope: "repo" } });
    expect(t.status, t.text).toBe(201);
    // The token works at the provider.
    const info = await fetch(`${o.idp.issuer}/me`, { headers: { authorization: `Bearer ${t.json.access_token}` } });
    expect(info.status).toBe(200);
    expect(((await info.json()) as { email: string }).email).toBe(who.email);
    expectKnownError(await call(o.stack, "POST", "/api/v1/connected-accounts/me/github/access-token", { headers: me, body: { scope: "calendar" } }), 400, "OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE");
    expectKnownError(await call(o.stack, "POST", "/api/v1/connected-accounts/me/google/access-token", { headers: me, body: {} }), 400, "OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS");
    expectKnownError(await call(o.stack, "POST", "/api/v1/connected-accounts/me/gitlab/access-token", { headers: me, body: {} }), 400, "OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    const listed = await call(o.stack, "GET", "/api/v1/connected-accounts/me", { headers: me });
    expect(listed.json).toEqual({ items: [{ user_id: up.json.user_id, provider: "github", provider_account_id: o.idp.accountIdOf(who.email) }], is_paginated: false });
    const byAccount = await call(o.stack, "POST", `/api/v1/connected-accounts/me/github/${o.idp.accountIdOf(who.email)}/access-token`, { headers: me, body: { scope: "repo" } });
    expect(byAccount.json.access_token).toBe(t.json.access_token);

    // An expired token is refreshed with the provider's refresh token.
    const db = new pg.Client({ connectionString: o.stack.db.url });
    await db.connect();
    try {
      await db.query(`UPDATE auth.oauth_accounts SET access_token_expires_at = now() - interval '1 minute' WHERE user_id = $1`, [up.json.user_id]);
      const dump = await db.query(`SELECT access_token_ciphertext, refresh_token_ciphertext FROM auth.oauth_accounts WHERE user_id = $1`, [up.json.user_id]);
      expect(JSON.stringify(dump.rows)).not.toContain(t.json.access_token);
    } finally {
      await db.end();
    }
    const refreshed = await call(o.stack, "POST", "/api/v1/connected-accounts/me/github/access-token", { headers: me, body: { scope: "repo" } });
    expect(refreshed.status, refreshed.text).toBe(201);
    expect(refreshed.json.access_token).not.toBe(t.json.access_token);

    // A user without a link.
    const anon = await call(o.stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: client() });
    const pw = await call(o.stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: client(),
      body: { email: email(), password: "a good password", verification_callback_url: "http://localhost:3000/verify" },
    });
    expect(anon.status).toBe(200);
    expectKnownError(
      await call(o.stack, "POST", "/api/v1/connected-accounts/me/github/access-token", { headers: { ...client(), "x-stack-access-token": pw.json.access_token }, body: {} }),
      400,
      "OAUTH_CONNECTION_NOT_CONNECTED_TO_USER",
    );
  });

  it("server CRUD writes the same links the user views show", async () => {
    const pw = await call(o.stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: client(),
      body: { email: email(), password: "a good password", verification_callback_url: "http://localhost:3000/verify" },
    });
    const userId = pw.json.user_id as string;
    const created = await call(o.stack, "POST", "/api/v1/oauth-providers", {
      headers: server(),
      body: { user_id: userId, provider_config_id: "github", account_id: "gh-1", email: "x@example.com", allow_sign_in: true, allow_connected_accounts: false },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ user_id: userId, provider_config_id: "github", type: "github", account_id: "gh-1", allow_sign_in: true, allow_connected_accounts: false });
    const again = await call(o.stack, "POST", "/api/v1/oauth-providers", {
      headers: server(),
      body: { user_id: userId, provider_config_id: "github", account_id: "gh-2", allow_sign_in: true, allow_connected_accounts: true },
    });
    expect(again.status).toBe(400);
    const unknown = await call(o.stack, "POST", "/api/v1/oauth-providers", {
      headers: server(),
      body: { user_id: userId, provider_config_id: "nope", account_id: "gh-2", allow_sign_in: false, allow_connected_accounts: true },
    });
    expect(unknown.status).toBe(404);
    const user = await call(o.stack, "GET", `/api/v1/users/${userId}`, { headers: server() });
    expect(user.json.oauth_providers).toEqual([{ id: "github", account_id: "gh-1", email: "x@example.com" }]);

    const me = { ...client(), "x-stack-access-token": pw.json.access_token };
    const patched = await call(o.stack, "PATCH", `/api/v1/oauth-providers/me/${created.json.id}`, { headers: me, body: { allow_connected_accounts: true } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.allow_connected_accounts).toBe(true);
    expect(patched.json.account_id).toBeUndefined();
    const got = await call(o.stack, "GET", `/api/v1/oauth-providers/${userId}/${created.json.id}`, { headers: server() });
    expect(got.json.account_id).toBe("gh-1");
    const clientPatchAccount = await call(o.stack, "PATCH", `/api/v1/oauth-providers/me/${created.json.id}`, { headers: me, body: { account_id: "x" } });
    expect(clientPatchAccount.status).toBe(400);
    // Another user's link is not the client's.
    const anon = await call(o.stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: client() });
    const foreign = await call(o.stack, "GET", `/api/v1/oauth-providers/${userId}/${created.json.id}`, {
      headers: { ...client(), "x-stack-access-token": anon.json.access_token, "x-stack-allow-anonymous-user": "true" },
    });
    expect(foreign.status).toBe(403);
    const del = await call(o.stack, "DELETE", `/api/v1/oauth-providers/me/${created.json.id}`, { headers: me });
    expect(del.json).toEqual({ success: true });
    expect((await call(o.stack, "GET", `/api/v1/users/${userId}`, { headers: server() })).json.oauth_providers).toEqual([]);
    expect((await call(o.stack, "GET", `/api/v1/oauth-providers/me/${created.json.id}`, { headers: me })).status).toBe(404);
  });

  it("a server-created user with oauth_providers signs in with that provider account", async () => {
    const who = { email: email() };
    const unknown = await call(o.stack, "POST", "/api/v1/users", { headers: server(), body: { oauth_providers: [{ id: "gitlab", account_id: "x", email: null }] } });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("x-stack-known-error")).toBeNull();
    const created = await call(o.stack, "POST", "/api/v1/users", {
      headers: server(),
      body: { primary_email: who.email, oauth_providers: [{ id: "github", account_id: o.idp.accountIdOf(who.email), email: who.email }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.oauth_providers).toEqual([{ id: "github", account_id: o.idp.accountIdOf(who.email), email: who.email }]);
    // The same auth call stored the link: it is there at once.
    const items = (await call(o.stack, "GET", `/api/v1/oauth-providers?user_id=${created.json.id}`, { headers: server() })).json.items;
    expect(items).toEqual([expect.objectContaining({ provider_config_id: "github", account_id: o.idp.accountIdOf(who.email), allow_sign_in: true })]);
    const signIn = await oauthSignIn(o.stack, keys, "github", who);
    expect(signIn.json).toMatchObject({ user_id: created.json.id, is_new_user: false });

    // Password, TOTP and a link in one request; the provider account already signs someone in, so it links without sign-in.
    const secret = randomBytes(20).toString("base64");
    const full = await call(o.stack, "POST", "/api/v1/users", {
      headers: server(),
      body: { primary_email: email(), password: "a good password", totp_secret_base64: secret, oauth_providers: [{ id: "github", account_id: o.idp.accountIdOf(who.email), email: null }] },
    });
    expect(full.status, full.text).toBe(201);
    expect(full.json).toMatchObject({ has_password: true, requires_totp_mfa: true, otp_auth_enabled: false });
    const fullLinks = (await call(o.stack, "GET", `/api/v1/oauth-providers?user_id=${full.json.id}`, { headers: server() })).json.items;
    expect(fullLinks).toEqual([expect.objectContaining({ provider_config_id: "github", allow_sign_in: false })]);
    // A bad secret creates nothing.
    const before = (await call(o.stack, "GET", "/api/v1/users?limit=200", { headers: server() })).json.items.length;
    const bad = await call(o.stack, "POST", "/api/v1/users", { headers: server(), body: { primary_email: email(), totp_secret_base64: randomBytes(8).toString("base64") } });
    expect(bad.status).toBe(400);
    expect((await call(o.stack, "GET", "/api/v1/users?limit=200", { headers: server() })).json.items.length).toBe(before);
  });

  it("cross-domain authorize gives the signed-in session's user an authorization code", async () => {
    const up = await oauthSignIn(o.stack, keys, "github", { email: email() });
    const session = { ...client(), "x-stack-access-token": up.json.access_token, "x-stack-refresh-token": up.json.refresh_token };
    const verifier = randomBytes(40).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const body = { redirect_uri: REDIRECT_URI, state: "xyz", code_challenge: challenge, code_challenge_method: "S256", after_callback_redirect_url: "http://localhost:3000/app" };
    const res = await call(o.stack, "POST", "/api/v1/auth/oauth/cross-domain/authorize", { headers: session, body });
    expect(res.status, res.text).toBe(200);
    const target = new URL(res.json.redirect_url);
    expect(target.searchParams.get("state")).toBe("xyz");
    const tokens = await exchange(o.stack, keys, target.searchParams.get("code")!, verifier);
    expect(tokens.json).toMatchObject({ user_id: up.json.user_id, is_new_user: false, after_callback_redirect_url: "http://localhost:3000/app" });
    const other = await call(o.stack, "POST", "/api/v1/auth/oauth/cross-domain/authorize", { headers: { ...session, "x-stack-refresh-token": "wrong" }, body });
    expect(other.status).toBe(400);
    expectKnownError(await call(o.stack, "POST", "/api/v1/auth/oauth/cross-domain/authorize", { headers: session, body: { ...body, redirect_uri: "https://evil.example.com/cb" } }), 400, "REDIRECT_URL_NOT_WHITELISTED");
    expectKnownError(await call(o.stack, "POST", "/api/v1/auth/oauth/cross-domain/authorize", { headers: session, body: { ...body, code_challenge: "bad" } }), 400, "SCHEMA_ERROR");
  });

  it("the callback also takes the provider's answer as a form post", async () => {
    const browser = new Browser();
    const a = authorizePath(keys, "github");
    const start = await browser.fetch(o.stack.url + a.path);
    const cb = new URL(await atProvider(browser, o.stack, start.headers.get("location")!, { email: email() }));
    const form = Object.fromEntries(cb.searchParams);
    const posted = await browser.fetch(`${cb.origin}${cb.pathname}`, { method: "POST", form });
    expect(posted.status).toBe(303);
    const back = new URL(posted.headers.get("location")!);
    expect((await exchange(o.stack, keys, back.searchParams.get("code")!, a.pkce.verifier)).status).toBe(200);
  });

  it("publishes OpenID metadata next to the JWKS", async () => {
    const doc = await call(o.stack, "GET", "/api/v1/openapi.json");
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/auth/oauth/authorize/{provider_id}",
        "/api/v1/auth/oauth/callback/{provider_id}",
        "/api/v1/oauth-providers/{user_id}/{provider_id}",
        "/api/v1/connected-accounts/{user_id}/{provider_id}/access-token",
        "/api/v1/projects/{project_id}/.well-known/openid-configuration",
      ]),
    );
    const res = await call(o.stack, "GET", `/api/v1/projects/${keys.projectId}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      issuer: `http://localhost:8102/api/v1/projects/${keys.projectId}`,
      jwks_uri: `http://localhost:8102/api/v1/projects/${keys.projectId}/.well-known/jwks.json`,
      token_endpoint: "http://localhost:8102/api/v1/auth/oauth/token",
      id_token_signing_alg_values_supported: ["ES256"],
    });
    expect((await call(o.stack, "GET", "/api/v1/projects/nope/.well-known/openid-configuration")).status).toBe(404);
  });
});
