import { describe, expect, it } from "vitest";
import { invitationCallbackUrl } from "./invitation-url.ts";

describe("invitationCallbackUrl", () => {
  it("uses the first trusted domain and its handler path", () => {
    expect(invitationCallbackUrl([{ domain: "https://shop.example.com/", handlerPath: "/auth/" }, { domain: "https://b.example.com", handlerPath: "/handler" }])).toBe(
      "https://shop.example.com/auth/team-invitation",
    );
    expect(invitationCallbackUrl([{ domain: "http://localhost:3000", handlerPath: "/handler" }])).toBe("http://localhost:3000/handler/team-invitation");
  });

  it("is null without a trusted domain", () => {
    expect(invitationCallbackUrl([])).toBeNull();
  });
});
