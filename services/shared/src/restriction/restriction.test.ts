import { describe, expect, it } from "vitest";
import { requiresEmailVerification, restrictionOf } from "./index.ts";

const user = { isAnonymous: false, primaryEmailVerified: false, restrictedByAdmin: false };

describe("restrictionOf (issue 13)", () => {
  it("restricts anonymous users first, whatever else holds", () => {
    expect(restrictionOf({ ...user, isAnonymous: true, restrictedByAdmin: true }, { requireEmailVerification: true })).toEqual({
      isRestricted: true,
      reason: { type: "anonymous" },
    });
  });

  it("restricts an unverified e-mail only where the project requires verification, before an admin restriction", () => {
    expect(restrictionOf(user, { requireEmailVerification: false })).toEqual({ isRestricted: false, reason: null });
    expect(restrictionOf({ ...user, restrictedByAdmin: true }, { requireEmailVerification: true }).reason).toEqual({ type: "email_not_verified" });
    expect(restrictionOf({ ...user, primaryEmailVerified: true }, { requireEmailVerification: true }).isRestricted).toBe(false);
  });

  it("restricts users an administrator restricted", () => {
    expect(restrictionOf({ ...user, restrictedByAdmin: true }, { requireEmailVerification: false }).reason).toEqual({
      type: "restricted_by_administrator",
    });
  });

  it("reads the project setting from a rendered config", () => {
    expect(requiresEmailVerification({ onboarding: { requireEmailVerification: true } })).toBe(true);
    expect(requiresEmailVerification({ onboarding: {} })).toBe(false);
    expect(requiresEmailVerification(null)).toBe(false);
  });
});
