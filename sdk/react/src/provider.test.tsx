import { Suspense } from "react";
import { renderToString } from "react-dom/server";
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

  it("computes avatar initials from the first two letters of the display name or e-mail, upper case", () => {
    expect(avatarInitials({ displayName: "ada lovelace" })).toBe("AD");
    expect(avatarInitials({ displayName: null, primaryEmail: "zoe@example.com" })).toBe("ZO");
    expect(avatarInitials({ displayName: "  ", primaryEmail: null })).toBeNull();
    expect(avatarInitials(null)).toBeNull();
  });
});
