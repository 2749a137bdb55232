import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeAccessToken } from "../../test/fake-jwt.ts";
import { AccessToken, MAX_DATE_MILLIS, decodeAccessToken } from "./access-token.ts";
import { ACCESS_TOKEN_FRESHNESS_MARGIN_MS, Session } from "./session.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("access tokens", () => {
  it("treats a token with no exp as expiring at the maximum date", () => {
    const t = new AccessToken(fakeAccessToken({}, null));
    expect(t.expiresAtMillis).toBe(MAX_DATE_MILLIS);
    expect(t.expiresAt.getTime()).toBe(8.64e15);
  });

  it("rejects the literal token string undefined and tokens missing claims (an internal assertion)", () => {
    expect(() => decodeAccessToken("undefined")).toThrow(/literal string 'undefined'/);
    expect(() => decodeAccessToken(fakeAccessToken({ refresh_token_id: undefined }))).toThrow(/refresh_token_id/);
    expect(() => decodeAccessToken("a.b")).toThrow(/compact JWT/);
  });
});

describe("Session refresh rules", () => {
  it("uses the freshness margin of 20000 ms", () => {
    expect(ACCESS_TOKEN_FRESHNESS_MARGIN_MS).toBe(20_000);
  });

  it("is invalid from the start when it lacks both tokens", async () => {
    const refresher = vi.fn();
    const s = new Session({ refreshToken: null, accessToken: null }, refresher);
    expect(s.isKnownToBeInvalid()).toBe(true);
    expect(await s.getOrFetchLikelyValidTokens()).toBeNull();
    expect(refresher).not.toHaveBeenCalled();
  });

  it("keeps an access token that expires in more than 20000 ms, refreshes one that expires within 20000 ms", async () => {
    const fresh = fakeAccessToken({}, 600);
    const refresher = vi.fn(async () => new AccessToken(fakeAccessToken({ name: "new" }, 600)));
    const s = new Session({ refreshToken: "rt", accessToken: fresh }, refresher);
    expect((await s.getOrFetchLikelyValidTokens())!.accessToken.token).toBe(fresh);
    expect(refresher).not.toHaveBeenCalled();
    // 600 s - 579 s = 21 s left: still fresh. One more second: 20 s left, not more than the margin.
    vi.advanceTimersByTime(579_000);
    expect((await s.getOrFetchLikelyValidTokens())!.accessToken.token).toBe(fresh);
    vi.advanceTimersByTime(1_000);
    const after = await s.getOrFetchLikelyValidTokens();
    expect(refresher).toHaveBeenCalledWith("rt");
    expect(after!.accessToken.claims.name).toBe("new");
  });

  it("fetches an access token when it is missing, and shares one refresh between concurrent callers", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const refresher = vi.fn(async () => {
      await gate;
      return new AccessToken(fakeAccessToken());
    });
    const s = new Session({ refreshToken: "rt" }, refresher);
    const calls = [s.getOrFetchLikelyValidTokens(), s.getOrFetchLikelyValidTokens(), s.refreshAccessToken()];
    release();
    const results = await Promise.all(calls);
    expect(refresher).toHaveBeenCalledTimes(1);
    expect(new Set(results.map((r) => (r && "token" in r ? r.token : r?.accessToken.token))).size).toBe(1);
  });

  it("marks the session invalid and clears the access token when the refresh yields nothing", async () => {
    const s = new Session({ refreshToken: "rt", accessToken: fakeAccessToken({}, 10) }, async () => null);
    const invalidated = vi.fn();
    const changes: (AccessToken | null)[] = [];
    s.onInvalidate(invalidated);
    s.onAccessTokenChange((t) => changes.push(t));
    expect(await s.getOrFetchLikelyValidTokens()).toBeNull();
    expect(s.isKnownToBeInvalid()).toBe(true);
    expect(s.getAccessToken()).toBeNull();
    expect(s.getRefreshToken()).toBeNull();
    expect(invalidated).toHaveBeenCalledTimes(1);
    expect(changes).toEqual([null]);
  });

  it("lets a caller mark the access token expired, so the next request refreshes", async () => {
    const first = fakeAccessToken({ name: "first" }, 600);
    const refresher = vi.fn(async () => new AccessToken(fakeAccessToken({ name: "second" }, 600)));
    const s = new Session({ refreshToken: "rt", accessToken: first }, refresher);
    s.markAccessTokenExpired("some other token");
    expect(s.getAccessToken()!.token).toBe(first);
    s.markAccessTokenExpired(first);
    expect(s.getAccessToken()).toBeNull();
    expect((await s.getOrFetchLikelyValidTokens())!.accessToken.claims.name).toBe("second");
  });

  it("clears both tokens when invalidated", () => {
    const s = new Session({ refreshToken: "rt", accessToken: fakeAccessToken() }, async () => null);
    s.markInvalid();
    expect([s.getRefreshToken(), s.getAccessToken()]).toEqual([null, null]);
  });

  it("uses an access-token-only session until it expires, without refreshing", async () => {
    const refresher = vi.fn();
    const s = new Session({ refreshToken: null, accessToken: fakeAccessToken({}, 30) }, refresher);
    expect(await s.getOrFetchLikelyValidTokens()).not.toBeNull();
    vi.advanceTimersByTime(31_000);
    expect(await s.getOrFetchLikelyValidTokens()).toBeNull();
    expect(refresher).not.toHaveBeenCalled();
  });
});
