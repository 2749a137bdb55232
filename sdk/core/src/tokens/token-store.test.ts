import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ACCESS_TOKEN_COOKIE_MAX_AGE_SECONDS,
  COOKIE_POLL_INTERVAL_MS,
  COOKIE_STORE_ON_SERVER_MESSAGE,
  CookieTokenStore,
  INVALID_AUTH_HEADER_MESSAGE,
  MemoryTokenStore,
  REFRESH_TOKEN_COOKIE_MAX_AGE_SECONDS,
  RequestTokenStore,
  browserCookieJar,
  parseCookies,
  type CookieJar,
} from "./token-store.ts";

/** A minimal cookie jar with document.cookie semantics (max-age=0 deletes). */
function fakeJar(initial: Record<string, string> = {}): CookieJar & { cookies: Map<string, string>; writes: string[] } {
  const cookies = new Map(Object.entries(initial));
  const writes: string[] = [];
  return {
    cookies,
    writes,
    secure: true,
    read: () => [...cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; "),
    write(assignment) {
      writes.push(assignment);
      const [pair] = assignment.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      if (/max-age=0(;|$)/.test(assignment)) cookies.delete(name);
      else cookies.set(name, decodeURIComponent(pair!.slice(eq + 1)));
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("cookie token store", () => {
  it("uses the spec's cookie names and lifetimes: stack-refresh-{projectId} 31536000 s, stack-access 86400 s", () => {
    expect(REFRESH_TOKEN_COOKIE_MAX_AGE_SECONDS).toBe(31_536_000);
    expect(ACCESS_TOKEN_COOKIE_MAX_AGE_SECONDS).toBe(86_400);
    const jar = fakeJar();
    const store = new CookieTokenStore("proj", { jar });
    store.set({ refreshToken: "rt1", accessToken: "at1" });
    expect(jar.cookies.get("stack-refresh-proj")).toBe("rt1");
    expect(JSON.parse(jar.cookies.get("stack-access")!)).toEqual(["rt1", "at1"]);
    expect(jar.writes.find((w) => w.startsWith("stack-refresh-proj=rt1"))).toContain("max-age=31536000");
    expect(jar.writes.find((w) => w.startsWith("stack-access=%5B"))).toContain("max-age=86400");
    expect(jar.writes.find((w) => w.startsWith("stack-access=%5B"))).toContain("secure");
    store.set({ refreshToken: null, accessToken: null });
    expect(jar.cookies.size).toBe(0);
    store.dispose();
  });

  it("polls the cookies every 100 ms and picks up changes made elsewhere", () => {
    expect(COOKIE_POLL_INTERVAL_MS).toBe(100);
    const jar = fakeJar();
    const store = new CookieTokenStore("proj", { jar });
    const seen = vi.fn();
    store.subscribe(seen);
    jar.cookies.set("stack-refresh-proj", "from-another-tab");
    vi.advanceTimersByTime(99);
    expect(seen).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(seen).toHaveBeenCalledWith({ refreshToken: "from-another-tab", accessToken: null });
    store.dispose();
  });

  it("ignores an access cookie written for another refresh token, and moves the legacy cookie", () => {
    const jar = fakeJar({ "stack-refresh": "legacy-rt", "stack-access": JSON.stringify(["other-rt", "at"]) });
    const store = new CookieTokenStore("proj", { jar });
    expect(store.get()).toEqual({ refreshToken: "legacy-rt", accessToken: null });
    expect(jar.cookies.has("stack-refresh")).toBe(false);
    expect(jar.cookies.get("stack-refresh-proj")).toBe("legacy-rt");
    store.dispose();
  });

  it("refuses to run outside a browser: 'Cannot use cookie token store on the server!'", () => {
    expect(COOKIE_STORE_ON_SERVER_MESSAGE).toBe("Cannot use cookie token store on the server!");
    expect(() => browserCookieJar()).toThrow("Cannot use cookie token store on the server!");
    expect(() => new CookieTokenStore("proj")).toThrow("Cannot use cookie token store on the server!");
  });
});

describe("request token store", () => {
  it("reads the x-stack-auth header first, then the cookies", () => {
    const header = new RequestTokenStore(new Request("http://x", { headers: { "x-stack-auth": JSON.stringify({ accessToken: "a", refreshToken: "r" }) } }), "p");
    expect(header.get()).toEqual({ accessToken: "a", refreshToken: "r" });
    const cookie = new RequestTokenStore(
      new Request("http://x", { headers: { cookie: `stack-refresh-p=r2; stack-access=${encodeURIComponent(JSON.stringify(["r2", "a2"]))}` } }),
      "p",
    );
    expect(cookie.get()).toEqual({ accessToken: "a2", refreshToken: "r2" });
  });

  it("rejects a malformed header with 'Invalid x-stack-auth header'", () => {
    expect(INVALID_AUTH_HEADER_MESSAGE).toBe("Invalid x-stack-auth header");
    expect(() => new RequestTokenStore(new Request("http://x", { headers: { "x-stack-auth": "{nope" } }), "p")).toThrow("Invalid x-stack-auth header");
  });
});

describe("memory token store", () => {
  it("notifies subscribers only on change", () => {
    const store = new MemoryTokenStore();
    const seen = vi.fn();
    store.subscribe(seen);
    store.set({ refreshToken: null, accessToken: null });
    store.set({ refreshToken: "r", accessToken: null });
    expect(seen).toHaveBeenCalledTimes(1);
  });

  it("parses cookie headers", () => {
    expect(parseCookies("a=1; b=%20x; a=2")).toEqual(new Map([["a", "1"], ["b", " x"]]));
  });
});
