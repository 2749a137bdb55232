import { describe, expect, it } from "vitest";
import { restrictionText } from "./restriction.tsx";

describe("restrictionText (issue 13)", () => {
  it("names each restriction reason", () => {
    expect(restrictionText({ isRestricted: false, restrictedReason: null })).toBe("Not restricted");
    expect(restrictionText({ isRestricted: true, restrictedReason: { type: "anonymous" } })).toBe("Restricted: anonymous user");
    expect(restrictionText({ isRestricted: true, restrictedReason: { type: "email_not_verified" } })).toMatch(/e-mail not verified/);
    expect(restrictionText({ isRestricted: true, restrictedReason: { type: "restricted_by_administrator" } })).toBe("Restricted by an administrator");
  });
});
