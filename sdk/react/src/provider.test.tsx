import { Suspense } from "react";
import { renderToString } from "react-dom/server";
import { prerender } from "react-dom/static";
import { describe, expect, it, vi } from "vitest";
import { StackClientApp } from "@vestibule/js";
import { MISSING_SUSPENSE_MESSAGE, PROVIDER_MISSING_MESSAGE, StackProvider, useStackApp } from "./provider.tsx";
import { useUser } from "./hooks.ts";
import { avatarInitials } from "./avatar.tsx";

let ids = 0;
const hangingApp = () =>
  new StackClientApp({
    baseUrl: "http://127.0.0.1:1",
    projectId: "p1",
    publishableClientKey: "pck",
    tokenStore: { accessToken: null, refreshToken: "rt" },
    noAutomaticPrefetch: true,
    uniqueIdentifier: `provider-test-${++ids}`,
    fetch: () => new Promise<Response>(() => {}),
  });

function ShowUser() {
  const user = useUser();
  return <span>{user ? user.displayName : "signed out"}</span>;
}

describe("provider and hooks", () => {
  it("useStackApp outside a provider: 'useStackApp must be used within a StackProvider'", () => {
    function Bare() {
      useStackApp();
      return null;
    }
    expect(PROVIDER_MISSING_MESSAGE).toBe("useStackApp must be used within a StackProvider");
    expect(() => renderToString(<Bare />)).toThrow("useStackApp must be used within a StackProvider");
  });

  it("a hook that suspends without a Suspense boundary of the app's own gets a developer-facing error (in a browser)", () => {
    vi.stubGlobal("window", {});
    try {
      expect(() => renderToString(<StackProvider app={hangingApp()}><ShowUser /></StackProvider>)).toThrow(MISSING_SUSPENSE_MESSAGE);
    } finally {
      vi.unstubAllGlobals();
    }
    // Server renderers draw fallbacks eagerly: there it renders nothing rather than failing.
    expect(() => renderToString(<StackProvider app={hangingApp()}><ShowUser /></StackProvider>)).not.toThrow();
  });

  it("with a Suspense boundary the same tree renders its fallback while the user loads", () => {
    const html = renderToString(
      <StackProvider app={hangingApp()}>
        <Suspense fallback={<i>loading</i>}>
          <ShowUser />
        </Suspense>
      </StackProvider>,
    );
    expect(html).toContain("<i>loading</i>");
  });

  it("renders signed out without any request when there are no tokens", () => {
    const app = new StackClientApp({ baseUrl: "http://127.0.0.1:1", projectId: "p1", publishableClientKey: "pck", tokenStore: "memory", noAutomaticPrefetch: true, uniqueIdentifier: `provider-test-${++ids}`, fetch: () => Promise.reject(new Error("no request expected")) });
    // First render suspends on the (immediately resolved) cache load; the second has the value.
    const tree = (
      <StackProvider app={app}>
        <Suspense fallback="…">
          <ShowUser />
        </Suspense>
      </StackProvider>
    );
    renderToString(tree);
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        expect(renderToString(tree)).toContain("signed out");
        resolve();
      }, 10),
    );
  });

  it("useUser({ or: 'anonymous' }) signs up an anonymous user once and renders it", async () => {
    const calls: string[] = [];
    const token = (claims: Record<string, unknown>) =>
      ["x", Buffer.from(JSON.stringify(claims)).toString("base64url"), "s"].join(".");
    const access = token({ sub: "anon-1", iss: "i", aud: "p1:anon", project_id: "p1", branch_id: "main", refresh_token_id: "r", role: "authenticated", name: null, email: null, email_verified: false, selected_team_id: null, is_anonymous: true, exp: Math.floor(Date.now() / 1000) + 600 });
    const fetch = async (url: string, init: RequestInit) => {
      const path = new URL(url).pathname.replace("/api/v1", "");
      calls.push(`${init.method ?? "GET"} ${path}`);
      const body = path === "/auth/anonymous/sign-up" ? { access_token: access, refresh_token: "anon-rt", user_id: "anon-1" } : { id: "anon-1", is_anonymous: true, display_name: null, primary_email: null, signed_up_at_millis: 1 };
      return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
    };
    const app = new StackClientApp({ baseUrl: "http://127.0.0.1:1", projectId: "p1", publishableClientKey: "pck", tokenStore: "memory", noAutomaticPrefetch: true, uniqueIdentifier: `provider-test-${++ids}`, fetch });
    function Anonymous() {
      const user = useUser({ or: "anonymous" });
      return <b>{`${user.id} anonymous=${user.isAnonymous}`}</b>;
    }
    const tree = (
      <StackProvider app={app}>
        <Suspense fallback="…">
          <Anonymous />
          <Anonymous />
        </Suspense>
      </StackProvider>
    );
    const { prelude } = await prerender(tree);
    const html = await new Response(prelude).text();
    expect(html).toContain("anon-1 anonymous=true");
    expect(calls.filter((c) => c === "POST /auth/anonymous/sign-up")).toHaveLength(1);
  });

  it("computes avatar initials from the first two letters of the display name or e-mail, upper case", () => {
    expect(avatarInitials({ displayName: "ada lovelace" })).toBe("AD");
    expect(avatarInitials({ displayName: null, primaryEmail: "zoe@example.com" })).toBe("ZO");
    expect(avatarInitials({ displayName: "  ", primaryEmail: null })).toBeNull();
    expect(avatarInitials(null)).toBeNull();
  });
});
