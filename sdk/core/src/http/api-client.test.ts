import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeAccessToken } from "../../test/fake-jwt.ts";
import { KnownErrors } from "../errors/known-errors.ts";
import { StatusError } from "../errors/status-error.ts";
import {
  ApiClient,
  NETWORK_ATTEMPTS,
  NETWORK_ERROR_MESSAGE,
  NetworkError,
  OFFLINE_MESSAGE,
  PUBLIC_CLIENT_SECRET,
  RETRY_BASE_DELAY_MS,
  retryDelayMillis,
  validateTokenResponse,
  type FetchLike,
} from "./api-client.ts";

interface Call {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
}

function recorder(handler: (call: Call, index: number) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    const call = { url, init, headers: { ...(init.headers as Record<string, string>) } };
    calls.push(call);
    return handler(call, calls.length - 1);
  };
  return { calls, fetch };
}

const json = (body: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(body), { ...init, headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) } });
const knownError = (code: string, status: number, details?: unknown) =>
  json({ code, details, error: `message of ${code}` }, { status: 200, headers: { "x-stack-known-error": code, "x-stack-actual-status": String(status) } });
const networkFailure = () => Promise.reject(new TypeError("fetch failed"));

function client(fetch: FetchLike, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  return new ApiClient({
    baseUrl: "https://api.example.com/",
    projectId: "p1",
    publishableClientKey: "pck_1",
    clientVersion: "js @vestibule/js@0.1.0",
    fetch,
    random: () => 0.5,
    ...extra,
  });
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("request headers", () => {
  it("sends every contract header, the session's tokens and the JSON body", async () => {
    const { calls, fetch } = recorder(() => json({ ok: true }));
    const c = client(fetch, { extraRequestHeaders: { "x-extra": "1" } });
    const at = fakeAccessToken();
    const session = c.createSession({ refreshToken: "rt", accessToken: at });
    await c.json("/users/me", { method: "PATCH", body: { display_name: "A" }, session });
    const h = calls[0]!.headers;
    expect(calls[0]!.url).toBe("https://api.example.com/api/v1/users/me");
    expect(h).toMatchObject({
      "x-stack-override-error-status": "true",
      "x-stack-project-id": "p1",
      "x-stack-access-type": "client",
      "x-stack-client-version": "js @vestibule/js@0.1.0",
      "x-stack-allow-anonymous-user": "true",
      "x-stack-publishable-client-key": "pck_1",
      "x-stack-access-token": at,
      "x-stack-refresh-token": "rt",
      "ngrok-skip-browser-warning": "true",
      "content-type": "application/json",
      "x-extra": "1",
    });
    expect(h["x-stack-random-nonce"]).toMatch(/^[0-9a-f]{32}$/);
    expect(calls[0]!.init).toMatchObject({ method: "PATCH", credentials: "omit", cache: "no-store", body: '{"display_name":"A"}' });
    expect(h["x-stack-secret-server-key"]).toBeUndefined();
  });

  it("adds the secret key on server requests and the admin key (or empty strings) on admin requests", async () => {
    const { calls, fetch } = recorder(() => json({}));
    const c = client(fetch, { secretServerKey: "ssk_1", superSecretAdminKey: "sak_1" });
    await c.send("/users", { accessType: "server", query: { limit: 2, desc: true, cursor: undefined } });
    await c.send("/internal/projects/current", { accessType: "admin" });
    expect(calls[0]!.url).toBe("https://api.example.com/api/v1/users?limit=2&desc=true");
    expect(calls[0]!.headers["x-stack-secret-server-key"]).toBe("ssk_1");
    expect(calls[1]!.headers["x-stack-super-secret-admin-key"]).toBe("sak_1");
    const owner = client(fetch).createSession({ refreshToken: "owner-rt", accessToken: fakeAccessToken({ project_id: "internal" }) });
    const dashboard = client(fetch, { publishableClientKey: undefined, projectOwnerSession: owner });
    await dashboard.send("/internal/projects/current", { accessType: "admin" });
    expect(calls[2]!.headers).toMatchObject({ "x-stack-secret-server-key": "", "x-stack-super-secret-admin-key": "" });
    expect(calls[2]!.headers["x-stack-admin-access-token"]).toBe(owner.getAccessToken()!.token);
  });
});

describe("responses", () => {
  it("turns known errors into typed errors, honouring x-stack-actual-status", async () => {
    const { fetch } = recorder(() => knownError("USER_NOT_FOUND", 404));
    const err = await client(fetch).send("/users/x", { accessType: "server" }).catch((e) => e);
    expect(err).toBeInstanceOf(KnownErrors.UserNotFound);
    expect(err.statusCode).toBe(404);
  });

  it("refuses a known-error header that does not match the body's code", async () => {
    const { fetch } = recorder(() => json({ code: "USER_NOT_FOUND", error: "x" }, { status: 404, headers: { "x-stack-known-error": "TEAM_NOT_FOUND" } }));
    await expect(client(fetch).send("/users/x")).rejects.toThrow(/x-stack-known-error is TEAM_NOT_FOUND/);
  });

  it("throws other non-2xx answers as StatusError with the server's text", async () => {
    const { fetch } = recorder(() => new Response("Client can only list teams for their own user.", { status: 200, headers: { "x-stack-actual-status": "403" } }));
    const err = await client(fetch).send("/teams").catch((e) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect(err.statusCode).toBe(403);
    expect(err.message).toBe("Client can only list teams for their own user.");
  });
});

describe("retries", () => {
  it("retries network failures of idempotent methods 5 times with delays 1000·2^n·jitter (0.5-1.5)", async () => {
    expect(NETWORK_ATTEMPTS).toBe(5);
    expect(RETRY_BASE_DELAY_MS).toBe(1_000);
    expect(retryDelayMillis(0, 0)).toBe(500);
    expect(retryDelayMillis(0, 0.999999)).toBeCloseTo(1_500, 0);
    expect(retryDelayMillis(3, 0.5)).toBe(8_000);
    const times: number[] = [];
    const { calls, fetch } = recorder(() => {
      times.push(Date.now());
      return networkFailure();
    });
    const p = client(fetch).send("/users/me").catch((e) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    const err = await p;
    expect(calls).toHaveLength(5);
    expect(times.slice(1).map((t, i) => t - times[i]!)).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe(NETWORK_ERROR_MESSAGE);
  });

  it("succeeds on a later attempt", async () => {
    const { calls, fetch } = recorder((_c, i) => (i < 2 ? networkFailure() : json({ ok: 1 })));
    const p = client(fetch).json("/projects/current");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await p).toEqual({ ok: 1 });
    expect(calls).toHaveLength(3);
  });

  it("does not retry non-idempotent methods, and says so when the browser is offline", async () => {
    vi.stubGlobal("navigator", { onLine: false });
    const { calls, fetch } = recorder(() => networkFailure());
    const err = await client(fetch).send("/auth/password/sign-in", { method: "POST", body: {} }).catch((e) => e);
    expect(calls).toHaveLength(1);
    expect(err.message).toBe(OFFLINE_MESSAGE);
    expect(OFFLINE_MESSAGE).toBe("You are offline. Please check your internet connection and try again.");
  });

  it("waits Retry-After seconds on 429, then tries again", async () => {
    const times: number[] = [];
    const { fetch } = recorder((_c, i) => {
      times.push(Date.now());
      return i === 0 ? new Response("slow down", { status: 429, headers: { "retry-after": "3" } }) : json({ ok: 1 });
    });
    const p = client(fetch).json("/users/me");
    await vi.advanceTimersByTimeAsync(2_999);
    expect(times).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toEqual({ ok: 1 });
    expect(times[1]! - times[0]!).toBe(3_000);
  });

  it("throws a 429 longer than maxRateLimitWaitMillis at once, with its Retry-After seconds", async () => {
    const { calls, fetch } = recorder(() => new Response("Too many attempts. Please wait 42 seconds and try again.", { status: 429, headers: { "retry-after": "42" } }));
    const err = (await client(fetch, { maxRateLimitWaitMillis: 2_000 }).json("/auth/password/sign-in", { method: "POST", body: {} }).catch((e: unknown) => e)) as StatusError;
    expect(calls).toHaveLength(1);
    expect(err).toBeInstanceOf(StatusError);
    expect(err.statusCode).toBe(429);
    expect(err.retryAfterSeconds).toBe(42);
    expect(err.message).toBe("Too many attempts. Please wait 42 seconds and try again.");
  });

  it("still waits out a 429 within maxRateLimitWaitMillis", async () => {
    const { calls, fetch } = recorder((_c, i) => (i === 0 ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } }) : json({ ok: 1 })));
    const p = client(fetch, { maxRateLimitWaitMillis: 2_000 }).json("/users/me");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await p).toEqual({ ok: 1 });
    expect(calls).toHaveLength(2);
  });

  it("retries 508 INFINITE_LOOP_DETECTED", async () => {
    const { calls, fetch } = recorder((_c, i) => (i === 0 ? new Response("INFINITE_LOOP_DETECTED", { status: 508 }) : json({ ok: 1 })));
    const p = client(fetch).json("/users/me", { method: "POST", body: {} });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await p).toEqual({ ok: 1 });
    expect(calls).toHaveLength(2);
  });

  it("marks the access token expired on an invalid-access-token error, refreshes and retries", async () => {
    const stale = fakeAccessToken({ name: "stale" });
    const fresh = fakeAccessToken({ name: "fresh" });
    const { calls, fetch } = recorder((call) => {
      if (call.url.endsWith("/auth/oauth/token")) return json({ access_token: fresh, token_type: "Bearer", expires_in: 3599, scope: "legacy" });
      if (call.headers["x-stack-access-token"] === stale) return knownError("ACCESS_TOKEN_EXPIRED", 401, { expired_at_millis: 1 });
      return json({ id: "me" });
    });
    const c = client(fetch);
    const session = c.createSession({ refreshToken: "rt", accessToken: stale });
    expect(await c.json("/users/me", { session })).toEqual({ id: "me" });
    expect(calls.map((x) => x.url.replace("https://api.example.com/api/v1", ""))).toEqual(["/users/me", "/auth/oauth/token", "/users/me"]);
    const refresh = calls[1]!;
    expect(refresh.headers["content-type"]).toBe("application/x-www-form-urlencoded;charset=UTF-8");
    expect(Object.fromEntries(new URLSearchParams(refresh.init.body as string))).toEqual({
      grant_type: "refresh_token",
      refresh_token: "rt",
      client_id: "p1",
      client_secret: "pck_1",
    });
    expect(refresh.headers["x-stack-project-id"]).toBeUndefined();
    expect(session.getAccessToken()!.token).toBe(fresh);
  });

  it("refreshes without a publishable key as the current SDK does: no key header, the public client secret", async () => {
    const fresh = fakeAccessToken({ name: "fresh" });
    const { calls, fetch } = recorder((call) =>
      call.url.endsWith("/auth/oauth/token") ? json({ access_token: fresh, token_type: "Bearer", expires_in: 3599, scope: "legacy" }) : json({ id: "me" }),
    );
    const c = client(fetch, { publishableClientKey: undefined });
    expect((await c.refreshAccessToken("rt"))?.token).toBe(fresh);
    expect(new URLSearchParams(calls[0]!.init.body as string).get("client_secret")).toBe(PUBLIC_CLIENT_SECRET);
    expect(await c.json("/users/me")).toEqual({ id: "me" });
    expect(calls[1]!.headers["x-stack-access-type"]).toBe("client");
    expect(calls[1]!.headers["x-stack-publishable-client-key"]).toBeUndefined();
  });

  it("signs the session out when the refresh token is refused (no tokens), and sends the request without a user", async () => {
    const { calls, fetch } = recorder((call) =>
      call.url.endsWith("/auth/oauth/token") ? knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401) : json({ anonymous: true }),
    );
    const c = client(fetch);
    const session = c.createSession({ refreshToken: "revoked" });
    await c.json("/projects/current", { session });
    expect(session.isKnownToBeInvalid()).toBe(true);
    expect(calls[1]!.headers["x-stack-access-token"]).toBeUndefined();
    expect(calls[1]!.headers["x-stack-refresh-token"]).toBeUndefined();
  });
});

describe("token responses", () => {
  it("requires a non-empty access_token, a bearer or dpop token_type and a positive expires_in", () => {
    expect(validateTokenResponse({ access_token: "x", token_type: "BEARER" })).toBe("x");
    expect(validateTokenResponse({ access_token: "x", token_type: "DPoP", expires_in: 1 })).toBe("x");
    expect(() => validateTokenResponse({ access_token: "", token_type: "bearer" })).toThrow(/access_token/);
    expect(() => validateTokenResponse({ access_token: "x", token_type: "mac" })).toThrow(/token_type/);
    expect(() => validateTokenResponse({ access_token: "x", token_type: "bearer", expires_in: 0 })).toThrow(/expires_in/);
  });
});
