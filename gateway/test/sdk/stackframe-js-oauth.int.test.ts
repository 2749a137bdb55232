/**
 * The published SDKs' OAuth sign-in (2.8.41: the browser navigates to authorize; the latest: JSON authorize mode)
 * against Vestibule and the development identity provider, in Node: the browser globals the SDK touches (location,
 * history, document.cookie) are small fakes, and the redirects are driven with fetch.
 */
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import { Browser, atProvider, standardProvider, startOAuthStack, type OAuthStack } from "../oauth-support.ts";
import type { ProjectKeys } from "../support.ts";

let o: OAuthStack;
let keys: ProjectKeys;
beforeAll(async () => {
  o = await startOAuthStack();
  keys = await o.newProject({ oauth_providers: [standardProvider(o.idp, "github")] });
}, 60_000);
afterAll(async () => {
  await o?.stop();
});

type Sdk = typeof latest;
const sdks: [string, Sdk][] = [
  ["@stackframe/js 2.8.41", v2841 as unknown as Sdk],
  ["@stackframe/js latest", latest],
];
const email = () => `sdk-oauth-${randomBytes(5).toString("hex")}@example.com`;

/** A page at `href` as far as the SDK looks: location (with assign), history, document.cookie. */
class FakePage {
  location: URL & { assign(url: string): void; replace(url: string): void };
  readonly cookies = new Map<string, string>();
  private navigated: ((url: string) => void) | undefined;

  constructor(href: string) {
    this.location = this.makeLocation(href);
  }

  private makeLocation(href: string) {
    const u = new URL(href) as URL & { assign(url: string): void; replace(url: string): void };
    u.assign = (url: string) => this.navigated?.(new URL(url, u.href).href);
    u.replace = u.assign;
    return u;
  }

  nextNavigation(): Promise<string> {
    return new Promise((resolve) => (this.navigated = resolve));
  }

  goto(href: string): void {
    this.location = this.makeLocation(href);
  }

  install(): void {
    const page = this;
    const g = globalThis as Record<string, unknown>;
    g.window = {
      get location() {
        return page.location;
      },
      history: { replaceState: (_s: unknown, _t: string, url: string) => (page.location = page.makeLocation(new URL(url, page.location.href).href)) },
      addEventListener() {},
      removeEventListener() {},
    };
    g.document = {
      get cookie() {
        return [...page.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      },
      set cookie(assignment: string) {
        const [pair, ...attrs] = assignment.split(";");
        const i = pair!.indexOf("=");
        const name = pair!.slice(0, i).trim();
        const expired = attrs.some((a) => /^\s*max-age=0/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split("=")[1]!) < Date.now()));
        if (expired) page.cookies.delete(name);
        else page.cookies.set(name, pair!.slice(i + 1).trim());
      },
      createElement: () => ({}),
      addEventListener() {},
      removeEventListener() {},
    };
  }

  static uninstall(): void {
    const g = globalThis as Record<string, unknown>;
    delete g.window;
    delete g.document;
  }
}

afterEach(() => FakePage.uninstall());

describe.each(sdks)("%s: signInWithOAuth → callback → getUser", (_name, sdk) => {
  const clientApp = () =>
    new sdk.StackClientApp({
      baseUrl: o.stack.url,
      projectId: keys.projectId,
      publishableClientKey: keys.publishableClientKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
      urls: { oauthCallback: "/handler/oauth-callback", error: "/handler/error" },
      redirectMethod: "window",
      oauthScopesOnSignIn: { github: ["repo"] },
    } as never);

  it("signs up with the provider, reads the user and its connected account", async () => {
    const page = new FakePage("http://localhost:3000/handler/sign-in");
    page.install();
    const app = clientApp();
    const navigation = page.nextNavigation();
    const failed = app.signInWithOAuth("github").then(
      () => Promise.reject(new Error("signInWithOAuth returned without navigating")),
      (err: unknown) => Promise.reject(err),
    );
    const target = await Promise.race([navigation, failed]);

    // 2.8.41 navigates to the gateway's authorize endpoint; the latest asks for it as JSON and goes to the provider.
    const browser = new Browser();
    let providerUrl = target;
    if (target.startsWith(o.stack.url)) {
      const res = await browser.fetch(target);
      expect(res.status).toBe(307);
      providerUrl = res.headers.get("location")!;
    }
    expect(providerUrl.startsWith(o.idp.issuer)).toBe(true);
    const who = { email: email(), name: "Sdk User" };
    const callbackUrl = await atProvider(browser, o.stack, providerUrl, who);
    const cb = await browser.fetch(callbackUrl);
    expect(cb.status, await cb.clone().text()).toBe(307);
    const back = cb.headers.get("location")!;
    expect(back.startsWith("http://localhost:3000/handler/oauth-callback?")).toBe(true);

    page.goto(back);
    await app.callOAuthCallback();
    expect(page.location.searchParams.has("code")).toBe(false);
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(who.email);
    expect(user.displayName).toBe("Sdk User");
    expect(user.primaryEmailVerified).toBe(true);

    const providers = await (user as unknown as { listOAuthProviders?: () => Promise<{ type: string }[]> }).listOAuthProviders?.();
    if (providers) expect(providers.map((p) => p.type)).toEqual(["github"]);
    const connection = await user.getConnectedAccount("github", { scopes: ["repo"], or: "return-null" } as never);
    expect(connection).not.toBeNull();
    const token = await (connection as unknown as { getAccessToken(): Promise<{ accessToken: string }> }).getAccessToken();
    expect(token.accessToken).toBeTypeOf("string");
    const without = await user.getConnectedAccount("github", { scopes: ["calendar"], or: "return-null" } as never);
    expect(without).toBeNull();
    // The latest SDK also lists connected accounts and gets tokens per provider account.
    const list = (user as unknown as { listConnectedAccounts?: () => Promise<{ provider: string; providerAccountId: string; getAccessToken(o?: { scopes?: string[] }): Promise<unknown> }[]> }).listConnectedAccounts;
    if (list) {
      const accounts = await list.call(user);
      expect(accounts.map((a) => [a.provider, a.providerAccountId])).toEqual([["github", o.idp.accountIdOf(who.email)]]);
      expect(await accounts[0]!.getAccessToken({ scopes: ["repo"] })).toBeTruthy();
    }
  });
});
