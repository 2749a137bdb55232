/**
 * The client's own rules with a fake fetch (no server): which calls each method makes, what it returns, and the
 * browser-only flows (MFA, OAuth, redirects) with a stubbed window. Integration against the real gateway lives in
 * test/*.int.test.ts.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeAccessToken } from "../../core/test/fake-jwt.ts";
import { StackClientApp, StackServerApp } from "./index.ts";
import {
  CLI_EXPIRED_MESSAGE,
  CLI_POLL_INTERVAL_MS,
  CLI_TIMEOUT_MESSAGE,
  CLI_USED_MESSAGE,
  GET_USER_THROW_MESSAGE,
  MFA_ATTEMPT_CODE_STORAGE_KEY,
  featureNotSupportedMessage,
} from "./client-app.ts";
import { DATA_VAULT_UNEXPECTED_ERROR_MESSAGE } from "./server-app.ts";
import { OAUTH_VERIFIER_COOKIE_MAX_AGE_SECONDS, PKCE_METHOD, codeChallengeS256 } from "./oauth.ts";
import { DEFAULT_HANDLER_PATH, HANDLER_PATH_MESSAGE, REDIRECT_PAUSE_MS, UNTRUSTED_REDIRECT_MESSAGE, isTrustedRedirect, resolveHandlerUrls } from "./urls.ts";
import { duplicateAppMessage } from "./app-registry.ts";

type Handler = (req: { method: string; path: string; query: URLSearchParams; body: any; headers: Record<string, string> }) => Response | Promise<Response>;

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const known = (code: string, status: number, details?: unknown) =>
  new Response(JSON.stringify({ code, details, error: code }), { status, headers: { "content-type": "application/json", "x-stack-known-error": code } });

const userJson = (over: Record<string, unknown> = {}) => ({
  id: "u1",
  primary_email: "ada@example.com",
  primary_email_verified: true,
  display_name: "Ada",
  profile_image_url: null,
  signed_up_at_millis: 1,
  client_metadata: null,
  client_read_only_metadata: null,
  has_password: true,
  auth_with_email: true,
  oauth_providers: [],
  selected_team_id: null,
  selected_team: null,
  requires_totp_mfa: false,
  otp_auth_enabled: false,
  passkey_auth_enabled: false,
  is_anonymous: false,
  ...over,
});

function fakeServer(routes: Record<string, Handler>) {
  const calls: { method: string; path: string; query: URLSearchParams; body: any; headers: Record<string, string> }[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const u = new URL(url);
    const path = decodeURIComponent(u.pathname).replace(/^\/api\/v1/, "");
    const method = (init.method ?? "GET").toUpperCase();
    const headers = { ...(init.headers as Record<string, string>) };
    const raw = init.body as string | undefined;
    const body = raw === undefined ? undefined : headers["content-type"]?.startsWith("application/x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(raw)) : JSON.parse(raw);
    const req = { method, path, query: u.searchParams, body, headers };
    calls.push(req);
    const handler = routes[`${method} ${path}`];
    if (!handler) return new Response(`no route ${method} ${path}`, { status: 404 });
    return handler(req);
  };
  return { calls, fetch };
}

let ids = 0;
function clientApp(fetch: (u: string, i: RequestInit) => Promise<Response>, tokens?: { accessToken: string | null; refreshToken: string | null }, extra: Record<string, unknown> = {}) {
  return new StackClientApp({
    baseUrl: "https://api.example.com",
    projectId: "p1",
    publishableClientKey: "pck",
    tokenStore: tokens ?? "memory",
    noAutomaticPrefetch: true,
    uniqueIdentifier: `test-${++ids}`,
    fetch,
    ...extra,
  });
}
function serverApp(fetch: (u: string, i: RequestInit) => Promise<Response>) {
  return new StackServerApp({ baseUrl: "https://api.example.com", projectId: "p1", publishableClientKey: "pck", secretServerKey: "ssk", tokenStore: null, uniqueIdentifier: `test-${++ids}`, fetch });
}
const signedIn = () => ({ accessToken: fakeAccessToken(), refreshToken: "rt" });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe("apps", () => {
  it("refuses a second app with the same unique identifier", () => {
    const { fetch } = fakeServer({});
    clientApp(fetch, undefined, { uniqueIdentifier: "same-id" });
    expect(() => clientApp(fetch, undefined, { uniqueIdentifier: "same-id" })).toThrow(duplicateAppMessage("same-id"));
  });

  it("names unsupported features the way the spec says", () => {
    expect(featureNotSupportedMessage("Passkey sign-up")).toBe("Passkey sign-up is not currently supported. Please reach out to Stack support for more information.");
  });
});

describe("getUser", () => {
  it("skips the request for a session without tokens; or: 'throw' throws, 'return-null' returns null", async () => {
    const { calls, fetch } = fakeServer({});
    const app = clientApp(fetch);
    expect(await app.getUser()).toBeNull();
    await expect(app.getUser({ or: "throw" })).rejects.toThrow(GET_USER_THROW_MESSAGE);
    expect(calls).toHaveLength(0);
  });

  it("counts an anonymous user as signed out unless or: 'anonymous'", async () => {
    const { fetch } = fakeServer({ "GET /users/me": () => json(userJson({ is_anonymous: true, primary_email: null })) });
    const app = clientApp(fetch, signedIn());
    expect(await app.getUser()).toBeNull();
    expect((await app.getUser({ or: "anonymous" })).isAnonymous).toBe(true);
  });

  it("runs only one anonymous sign-up at a time", async () => {
    const anon = { access_token: fakeAccessToken({ is_anonymous: true }), refresh_token: "anon-rt", user_id: "u1" };
    const { calls, fetch } = fakeServer({
      "POST /auth/anonymous/sign-up": async () => {
        await new Promise((r) => setTimeout(r, 20));
        return json(anon);
      },
      "GET /users/me": () => json(userJson({ is_anonymous: true })),
    });
    const app = clientApp(fetch);
    const users = await Promise.all([app.getUser({ or: "anonymous" }), app.getUser({ or: "anonymous" }), app.getUser({ or: "anonymous" })]);
    expect(calls.filter((c) => c.path === "/auth/anonymous/sign-up")).toHaveLength(1);
    expect(users.every((u) => u.id === "u1")).toBe(true);
  });

  it("reads a partial user from the access token without a request", async () => {
    const { calls, fetch } = fakeServer({});
    const app = clientApp(fetch, signedIn());
    expect(await app.getPartialUser({ from: "token" })).toEqual({ id: expect.any(String), displayName: "Ada Lovelace", primaryEmail: "ada@example.com", primaryEmailVerified: true, isAnonymous: false });
    expect(calls).toHaveLength(0);
  });
});

describe("user methods", () => {
  it("createTeam posts the team, re-reads the teams and selects the new team", async () => {
    const { calls, fetch } = fakeServer({
      "GET /users/me": () => json(userJson()),
      "POST /teams": () => json({ id: "t1", display_name: "Team", profile_image_url: null }, 201),
      "GET /teams": () => json({ items: [{ id: "t1", display_name: "Team" }] }),
      "PATCH /users/me": () => json(userJson({ selected_team_id: "t1", selected_team: { id: "t1", display_name: "Team" } })),
    });
    const user = await clientApp(fetch, signedIn()).getUser({ or: "throw" });
    const team = await user.createTeam({ displayName: "Team" });
    expect(team.id).toBe("t1");
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(["GET /users/me", "POST /teams", "GET /teams", "PATCH /users/me"]);
    expect(calls[1]!.body).toEqual({ display_name: "Team", creator_user_id: "me" });
    expect(calls[2]!.query.get("user_id")).toBe("me");
    expect(calls[3]!.body).toEqual({ selected_team_id: "t1" });
  });

  it("lists permissions recursively by default, always sending recursive", async () => {
    const { calls, fetch } = fakeServer({
      "GET /users/me": () => json(userJson()),
      "GET /team-permissions": () => json({ items: [{ id: "$read_members", team_id: "t1", user_id: "u1" }] }),
      "GET /project-permissions": () => json({ items: [] }),
    });
    const user = await clientApp(fetch, signedIn()).getUser({ or: "throw" });
    expect(await user.hasPermission({ id: "t1" } as never, "$read_members")).toBe(true);
    await user.listPermissions({ recursive: false });
    const team = calls.find((c) => c.path === "/team-permissions")!;
    expect(Object.fromEntries(team.query)).toEqual({ team_id: "t1", user_id: "me", recursive: "true" });
    expect(Object.fromEntries(calls.find((c) => c.path === "/project-permissions")!.query)).toEqual({ user_id: "me", recursive: "false" });
  });

  it("gives a null connected account when the scope is missing or the account is not connected", async () => {
    const { fetch } = fakeServer({
      "GET /users/me": () => json(userJson({ oauth_providers: [{ id: "github", account_id: "1", email: null }] })),
      "POST /connected-accounts/me/github/access-token": () => known("OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE", 400),
    });
    const user = await clientApp(fetch, signedIn()).getUser({ or: "throw" });
    expect(await user.getConnectedAccount("github", { scopes: ["repo"] })).toBeNull();
    expect(await user.getConnectedAccount("google")).toBeNull();
  });

  it("signs out ignoring refresh-token errors, clearing the tokens", async () => {
    const { calls, fetch } = fakeServer({ "DELETE /auth/sessions/current": () => known("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401), "GET /users/me": () => json(userJson()) });
    const app = clientApp(fetch, signedIn());
    await app.signOut();
    expect(calls[0]!.body).toEqual({});
    expect(calls[0]!.headers["content-type"]).toBe("application/json");
    expect(await app.getUser()).toBeNull();
  });

  it("requires exactly one customer for items", async () => {
    const { fetch } = fakeServer({});
    await expect(clientApp(fetch).getItem({ itemId: "credits" } as never)).rejects.toThrow("getItem requires one of userId, teamId, or customCustomerId");
    await expect(clientApp(fetch).getItem({ itemId: "credits", userId: "a", teamId: "b" } as never)).rejects.toThrow(/requires one of/);
  });
});

describe("calls of the other user and team methods", () => {
  it("magic link: sends the code with the callback URL, returns the nonce, and signs in a new user", async () => {
    const { calls, fetch } = fakeServer({
      "POST /auth/otp/send-sign-in-code": () => json({ nonce: "n0nce" }),
      "POST /auth/otp/sign-in": () => json({ access_token: fakeAccessToken(), refresh_token: "otp-rt", is_new_user: true, user_id: "u1" }),
      "GET /users/me": () => json(userJson()),
    });
    const app = clientApp(fetch);
    await expect(app.sendMagicLinkEmail("ada@example.com")).rejects.toThrow(/callbackUrl is required outside a browser/);
    expect(await app.sendMagicLinkEmail("ada@example.com", { callbackUrl: "https://app.example.com/handler/magic-link-callback" })).toEqual({ status: "ok", data: { nonce: "n0nce" } });
    expect(calls[0]!.body).toEqual({ email: "ada@example.com", callback_url: "https://app.example.com/handler/magic-link-callback" });
    expect((await app.signInWithMagicLink("c".repeat(45), { noRedirect: true })).status).toBe("ok");
    expect((await app.getUser({ or: "throw" })).id).toBe("u1");
  });

  it("teams: invite, list members and invitations, API keys, leave", async () => {
    const { calls, fetch } = fakeServer({
      "GET /users/me": () => json(userJson()),
      "GET /teams": () => json({ items: [{ id: "t1", display_name: "Team" }] }),
      "POST /team-invitations/send-code": () => json({ success: true, id: "i1" }),
      "GET /team-member-profiles": () => json({ items: [{ team_id: "t1", user_id: "u2", display_name: "Bo", profile_image_url: null }] }),
      "GET /team-invitations": () => json({ items: [{ id: "i1", team_id: "t1", recipient_email: "bo@example.com", expires_at_millis: 5 }] }),
      "POST /team-api-keys": (req) => json({ id: "k1", description: req.body.description, created_at_millis: 1, is_public: false, type: "team", team_id: "t1", value: "sk_full_secret", expires_at_millis: null }),
      "DELETE /team-memberships/t1/me": () => json({ success: true }),
    });
    const user = await clientApp(fetch, signedIn()).getUser({ or: "throw" });
    const [team] = await user.listTeams();
    await team!.inviteUser({ email: "bo@example.com", callbackUrl: "https://app.example.com/handler/team-invitation" });
    expect(calls.at(-1)!.body).toEqual({ email: "bo@example.com", team_id: "t1", callback_url: "https://app.example.com/handler/team-invitation" });
    expect(await team!.listUsers()).toEqual([{ id: "u2", teamProfile: { displayName: "Bo", profileImageUrl: null } }]);
    const [invitation] = await team!.listInvitations();
    expect([invitation!.recipientEmail, invitation!.expiresAt.getTime()]).toEqual(["bo@example.com", 5]);
    const key = await team!.createApiKey({ description: "ci", expiresAt: null });
    expect(calls.at(-1)!.body).toEqual({ description: "ci", expires_at_millis: null, team_id: "t1" });
    expect([key.value, key.isValid(), key.whyInvalid()]).toEqual(["sk_full_secret", true, null]);
    await user.leaveTeam(team!);
    expect(calls.some((c) => c.method === "DELETE" && c.path === "/team-memberships/t1/me")).toBe(true);
  });

  it("server: listUsers sends only the given options and returns nextCursor; createTeam and memberships", async () => {
    const { calls, fetch } = fakeServer({
      "GET /users": () => json({ items: [userJson({ server_metadata: null, last_active_at_millis: 2 })], is_paginated: true, pagination: { next_cursor: "c2" } }),
      "POST /teams": () => json({ id: "t9", display_name: "Nine", created_at_millis: 3 }, 201),
      "GET /teams": () => json({ items: [] }),
      "POST /team-memberships/t9/u1": () => json({ team_id: "t9", user_id: "u1" }, 201),
      "POST /team-permissions/t9/u1/$update_team": () => json({ id: "$update_team", team_id: "t9", user_id: "u1" }, 201),
      "GET /payments/items/team/t9/seats": () => json({ id: "seats", display_name: "Seats", quantity: 3 }),
      "POST /payments/items/team/t9/seats/update-quantity": () => json({ id: "change" }),
    });
    const server = serverApp(fetch);
    const users = await server.listUsers({ limit: 1, orderBy: "signedUpAt", desc: true, includeAnonymous: false });
    expect(Object.fromEntries(calls[0]!.query)).toEqual({ limit: "1", desc: "true", order_by: "signed_up_at" });
    expect(users.nextCursor).toBe("c2");
    expect(users[0]!.lastActiveAt.getTime()).toBe(2);
    const team = await server.createTeam({ displayName: "Nine", creatorUserId: "u1" });
    expect(calls.find((c) => c.path === "/teams" && c.method === "POST")!.body).toEqual({ display_name: "Nine", creator_user_id: "u1" });
    await team.addUser("u1");
    await users[0]!.grantPermission(team as never, "$update_team");
    const seats = await team.getItem("seats");
    await seats.increaseQuantity(2);
    const change = calls.find((c) => c.path.endsWith("/update-quantity"))!;
    expect([change.query.get("allow_negative"), change.body]).toEqual(["false", { delta: 2 }]);
  });
});

describe("server items and data vault", () => {
  it("tryDecreaseQuantity returns false when the quantity is insufficient; decreaseQuantity allows negatives", async () => {
    const { calls, fetch } = fakeServer({
      "GET /payments/items/user/u1/credits": () => json({ id: "credits", display_name: "Credits", quantity: -2 }),
      "POST /payments/items/user/u1/credits/update-quantity": (req) =>
        req.query.get("allow_negative") === "false" ? known("ITEM_QUANTITY_INSUFFICIENT_AMOUNT", 400, { item_id: "credits", customer_id: "u1", quantity: -5 }) : json({ id: "change" }),
    });
    const item = await serverApp(fetch).getItem({ itemId: "credits", userId: "u1" });
    expect([item.quantity, item.nonNegativeQuantity, item.displayName]).toEqual([-2, 0, "Credits"]);
    expect(calls[0]!.headers["x-stack-access-type"]).toBe("client"); // items are always read with a client call
    expect(await item.tryDecreaseQuantity(5)).toBe(false);
    await item.decreaseQuantity(5);
    const changes = calls.filter((c) => c.method === "POST");
    expect(changes.map((c) => [c.query.get("allow_negative"), c.body.delta, c.headers["x-stack-access-type"]])).toEqual([
      ["false", -5, "server"],
      ["true", -5, "server"],
    ]);
  });

  it("returns null for a missing vault key and wraps other errors as 'Unexpected uncaught error'", async () => {
    let mode = "missing";
    const stored: Record<string, string> = {};
    const { calls, fetch } = fakeServer({
      "POST /data-vault/stores/s1/set": (req) => {
        stored[req.body.hashed_key] = req.body.encrypted_value;
        return json({ success: true });
      },
      "POST /data-vault/stores/s1/get": (req) =>
        mode === "missing" ? known("DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST", 400, { store_id: "s1", hashed_key: req.body.hashed_key }) : mode === "store" ? known("DATA_VAULT_STORE_DOES_NOT_EXIST", 400, { store_id: "s1" }) : json({ encrypted_value: stored[req.body.hashed_key] }),
    });
    const store = await serverApp(fetch).getDataVaultStore("s1");
    expect(await store.getValue("k", { secret: "sec" })).toBeNull();
    await store.setValue("k", "v", { secret: "sec" });
    expect(calls[1]!.body.hashed_key).toBe(calls[0]!.body.hashed_key);
    expect(calls[1]!.body.encrypted_value).not.toBe("v");
    expect(calls[1]!.body.encrypted_value.length).toBeGreaterThan(40);
    mode = "ok";
    expect(await store.getValue("k", { secret: "sec" })).toBe("v");
    mode = "store";
    await expect(store.getValue("k", { secret: "sec" })).rejects.toThrow(DATA_VAULT_UNEXPECTED_ERROR_MESSAGE);
  });
});

describe("CLI login", () => {
  it("polls every 2000 ms until success, and names expired, used and timed-out logins", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    expect(CLI_POLL_INTERVAL_MS).toBe(2_000);
    let polls = 0;
    const pollTimes: number[] = [];
    const outcome = { value: "success" };
    const { fetch } = fakeServer({
      "POST /auth/cli": () => json({ polling_code: "pc", login_code: "lc", expires_at: new Date().toISOString() }),
      "POST /auth/cli/poll": () => {
        pollTimes.push(Date.now());
        return ++polls < 3 ? json({ status: "waiting" }) : outcome.value === "success" ? json({ status: "success", refresh_token: "cli-rt" }, 201) : json({ status: outcome.value });
      },
    });
    const links: string[] = [];
    const app = clientApp(fetch);
    const p = app.promptCliLogin({ appUrl: "https://app.example.com/", promptLink: (l) => links.push(l) });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await p).toEqual({ status: "ok", data: "cli-rt" });
    expect(links).toEqual(["https://app.example.com/handler/cli-auth-confirm?login_code=lc"]);
    expect(pollTimes.slice(1).map((t, i) => t - pollTimes[i]!)).toEqual([2_000, 2_000]);
    for (const [status, message] of [["expired", CLI_EXPIRED_MESSAGE], ["used", CLI_USED_MESSAGE]] as const) {
      polls = 2;
      outcome.value = status;
      const r = await app.promptCliLogin({ appUrl: "https://a", promptLink: () => {} });
      expect(r.status === "error" && r.error.message).toBe(message);
    }
    polls = -100;
    const timeout = app.promptCliLogin({ appUrl: "https://a", promptLink: () => {}, maxAttempts: 2, waitTimeMillis: 10 });
    await vi.advanceTimersByTimeAsync(100);
    const r = await timeout;
    expect(r.status === "error" && r.error.message).toBe(CLI_TIMEOUT_MESSAGE);
    expect([CLI_EXPIRED_MESSAGE, CLI_USED_MESSAGE, CLI_TIMEOUT_MESSAGE]).toEqual([
      "CLI authentication request expired. Please try again.",
      "This authentication token has already been used.",
      "Timed out waiting for CLI authentication.",
    ]);
  });
});

describe("handler URLs and redirects", () => {
  it("puts handler pages under /handler and chains the redirect defaults", () => {
    expect(DEFAULT_HANDLER_PATH).toBe("/handler");
    const urls = resolveHandlerUrls();
    expect(urls).toMatchObject({ signIn: "/handler/sign-in", mfa: "/handler/mfa", oauthCallback: "/handler/oauth-callback", home: "/", afterSignIn: "/", afterSignUp: "/", afterSignOut: "/" });
    const custom = resolveHandlerUrls({ handler: "/auth", home: "/app", afterSignIn: "/dashboard" });
    expect(custom).toMatchObject({ signUp: "/auth/sign-up", afterSignIn: "/dashboard", afterSignUp: "/dashboard", afterSignOut: "/app" });
    expect(() => resolveHandlerUrls({ handler: "auth" })).toThrow(HANDLER_PATH_MESSAGE);
  });

  it("only follows relative or same-origin redirects: 'Redirect URL is not trusted; should be relative.'", async () => {
    expect(isTrustedRedirect("/dashboard?x=1", null)).toBe(true);
    expect(isTrustedRedirect("https://evil.example.com/", "https://app.example.com")).toBe(false);
    expect(isTrustedRedirect("//evil.example.com/", "https://app.example.com")).toBe(false);
    expect(isTrustedRedirect("https://app.example.com/x", "https://app.example.com")).toBe(true);
    // Browsers drop tabs/line breaks and trim spaces: these would leave the site (issue 18).
    for (const sneaky of ["/\t/evil.example.com/", "/\n/evil.example.com/", " //evil.example.com/", "\u0000//evil.example.com/"]) {
      expect(isTrustedRedirect(sneaky, "https://app.example.com"), JSON.stringify(sneaky)).toBe(false);
      expect(isTrustedRedirect(sneaky, null), JSON.stringify(sneaky)).toBe(false);
    }
    const location = fakeLocation("https://app.example.com/handler/sign-in?after_auth_return_to=https%3A%2F%2Fevil.example.com");
    vi.stubGlobal("window", { location });
    const { fetch } = fakeServer({});
    await expect(clientApp(fetch).redirectToAfterSignIn()).rejects.toThrow(UNTRUSTED_REDIRECT_MESSAGE);
    expect(UNTRUSTED_REDIRECT_MESSAGE).toBe("Redirect URL is not trusted; should be relative.");
  });

  it("carries after_auth_return_to to the sign-in page and back after sign-in (pausing 2000 ms after navigating)", async () => {
    expect(REDIRECT_PAUSE_MS).toBe(2_000);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const location = fakeLocation("https://app.example.com/settings?tab=2");
    vi.stubGlobal("window", { location });
    const { fetch } = fakeServer({});
    const app = clientApp(fetch);
    const p = app.redirectToSignIn();
    await vi.advanceTimersByTimeAsync(2_000);
    await p;
    expect(location.assigned).toEqual(["/handler/sign-in?after_auth_return_to=%2Fsettings%3Ftab%3D2"]);
    location.href = `https://app.example.com${location.assigned[0]}`;
    const q = app.redirectToSignUp();
    await vi.advanceTimersByTimeAsync(2_000);
    await q;
    expect(location.assigned[1]).toBe("/handler/sign-up?after_auth_return_to=%2Fsettings%3Ftab%3D2");
    const r = app.redirectToAfterSignIn();
    await vi.advanceTimersByTimeAsync(2_000);
    await r;
    expect(location.assigned[2]).toBe("/settings?tab=2");
  });
});

describe("browser flows", () => {
  it("stores the MFA attempt code in session storage and redirects to the mfa page", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const storage = new Map<string, string>();
    const location = fakeLocation("https://app.example.com/handler/sign-in");
    vi.stubGlobal("window", { location });
    vi.stubGlobal("document", { cookie: "" });
    vi.stubGlobal("sessionStorage", { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => storage.set(k, v), removeItem: (k: string) => storage.delete(k) });
    const { fetch } = fakeServer({ "POST /auth/password/sign-in": () => known("MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, { attempt_code: "attempt-123" }) });
    const app = clientApp(fetch, undefined, { tokenStore: "memory" });
    const p = app.signInWithCredential({ email: "a@example.com", password: "pw" });
    await vi.advanceTimersByTimeAsync(2_000);
    const result = await p;
    expect(result.status).toBe("error");
    expect(storage.get(MFA_ATTEMPT_CODE_STORAGE_KEY)).toBe("attempt-123");
    expect(MFA_ATTEMPT_CODE_STORAGE_KEY).toBe("stack_mfa_attempt_code");
    expect(location.replaced).toEqual(["/handler/mfa"]);
  });

  it("starts OAuth with PKCE: verifier cookie stack-oauth-outer-{state} for 3600 s, S256 challenge and state", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    const cookies: string[] = [];
    const location = fakeLocation("https://app.example.com/");
    vi.stubGlobal("window", { location });
    vi.stubGlobal("document", { get cookie() { return ""; }, set cookie(v: string) { cookies.push(v); } });
    const { fetch } = fakeServer({});
    const app = clientApp(fetch, undefined, { tokenStore: "memory", oauthScopesOnSignIn: { github: ["repo"] } });
    await settle(app.signInWithOAuth("github", { returnTo: "/after" }));
    const url = new URL(location.assigned[0]!);
    expect(url.origin + url.pathname).toBe("https://api.example.com/api/v1/auth/oauth/authorize/github");
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({ client_id: "p1", client_secret: "pck", redirect_uri: "https://app.example.com/handler/oauth-callback", scope: "legacy", grant_type: "authorization_code", code_challenge_method: "S256", response_type: "code", type: "authenticate", after_callback_redirect_url: "https://app.example.com/after", provider_scope: "repo" });
    expect(PKCE_METHOD).toBe("S256");
    const cookie = cookies.find((c) => c.startsWith(`stack-oauth-outer-${q.state}=`))!;
    expect(cookie).toContain(`max-age=${OAUTH_VERIFIER_COOKIE_MAX_AGE_SECONDS}`);
    expect(OAUTH_VERIFIER_COOKIE_MAX_AGE_SECONDS).toBe(3_600);
    const verifier = decodeURIComponent(cookie.split(";")[0]!.split("=")[1]!);
    expect(q.code_challenge).toBe(createHash("sha256").update(verifier).digest("base64url"));
    expect(await codeChallengeS256(verifier)).toBe(q.code_challenge);
  });

  it("completes the OAuth callback: reads and removes the verifier, drops code and state, or ignores a callback without verifier", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    let cookieJar = "stack-oauth-outer-st8=the-verifier";
    const written: string[] = [];
    const location = fakeLocation("https://app.example.com/handler/oauth-callback?code=abc&state=st8");
    const history: string[] = [];
    vi.stubGlobal("window", { location, history: { replaceState: (_d: unknown, _u: string, url: string) => history.push(url) } });
    vi.stubGlobal("document", { get cookie() { return cookieJar; }, set cookie(v: string) { written.push(v); if (v.includes("max-age=0")) cookieJar = ""; } });
    const { calls, fetch } = fakeServer({
      "POST /auth/oauth/token": () => json({ access_token: fakeAccessToken(), refresh_token: "oauth-rt", token_type: "Bearer", expires_in: 3600, scope: "legacy", is_new_user: true, after_callback_redirect_url: null }),
    });
    const app = clientApp(fetch);
    expect(await settle(app.callOAuthCallback())).toBe(true);
    expect(history).toEqual(["https://app.example.com/handler/oauth-callback"]);
    expect(written.some((w) => w.startsWith("stack-oauth-outer-st8=;") && w.includes("max-age=0"))).toBe(true);
    expect(calls[0]!.body).toMatchObject({ grant_type: "authorization_code", code: "abc", code_verifier: "the-verifier", redirect_uri: "https://app.example.com/handler/oauth-callback", client_id: "p1", client_secret: "pck" });
    expect(location.replaced).toEqual(["/"]); // new user: after-sign-up
    // A second callback for the same state has no verifier any more: ignored with a warning.
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    location.href = "https://app.example.com/handler/oauth-callback?code=abc&state=st8";
    expect(await app.callOAuthCallback()).toBe(false);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(calls).toHaveLength(1);
  });
});

/** Advances fake time until `p` settles (its work mixes real async crypto and timers). */
async function settle<T>(p: Promise<T>): Promise<T> {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  const deadline = performance.now() + 20_000; // real time (performance is not faked)
  while (!done && performance.now() < deadline) {
    await new Promise((r) => setImmediate(r));
    await vi.advanceTimersByTimeAsync(50);
  }
  return p;
}

function fakeLocation(href: string) {
  const loc = {
    href,
    get origin() {
      return new URL(loc.href).origin;
    },
    get protocol() {
      return new URL(loc.href).protocol;
    },
    get hostname() {
      return new URL(loc.href).hostname;
    },
    assigned: [] as string[],
    replaced: [] as string[],
    assign(u: string) {
      loc.assigned.push(u);
    },
    replace(u: string) {
      loc.replaced.push(u);
    },
    reload() {},
  };
  return loc;
}
