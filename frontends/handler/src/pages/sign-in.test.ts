import { describe, expect, it } from "vitest";
import { continueHref } from "./sign-in.tsx";

const HERE = "https://app.example.com/handler/sign-in";
const go = (returnTo: string) => continueHref(new URLSearchParams({ after_auth_return_to: returnTo }), HERE, "/after");

describe("the signed-in page's Continue link (issue 18: no open redirect through after_auth_return_to)", () => {
  it("follows paths and URLs on the page's own origin", () => {
    expect(go("/dashboard?tab=2#top")).toBe("/dashboard?tab=2#top");
    expect(go("https://app.example.com/x")).toBe("/x");
    expect(continueHref(new URLSearchParams(), HERE, "/after")).toBe("/after");
  });

  it("never another host or a script: the after-sign-in URL instead", () => {
    for (const evil of [
      "https://evil.example.com/",
      "//evil.example.com/",
      "/\\evil.example.com",
      "\\\\evil.example.com",
      "/\t/evil.example.com",
      " //evil.example.com",
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "https://app.example.com.evil.example.com/",
      "https://app.example.com@evil.example.com/",
    ]) {
      expect(go(evil), evil).toBe("/after");
    }
    expect(continueHref(new URLSearchParams({ after_auth_return_to: "/x" }), null, "/after")).toBe("/after");
  });
});
