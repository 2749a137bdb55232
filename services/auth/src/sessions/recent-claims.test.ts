import { describe, expect, it } from "vitest";
import type { TokenUser } from "../signing/domain/claims.ts";
import { RecentClaims } from "./recent-claims.ts";

const user: TokenUser = {
  id: "6f1c2b4e-8f7a-4b7e-9a3e-0d2a9b1c3e4f",
  displayName: "Ada",
  primaryEmail: "ada@example.com",
  primaryEmailVerified: true,
  selectedTeamId: null,
  isAnonymous: false,
  requiresTotpMfa: false,
  signedUpAtMillis: 1_700_000_000_000,
};

describe("claims snapshots stored lately", () => {
  it("current only for the same project, claims and version, within the time to live", () => {
    const recent = new RecentClaims(60_000);
    expect(recent.isCurrent("p", user, 3, 0)).toBe(false);
    recent.stored("p", user, 3, 0);
    expect(recent.isCurrent("p", user, 3, 59_999)).toBe(true);
    expect(recent.isCurrent("p", user, 3, 60_000)).toBe(false);
    expect(recent.isCurrent("p", user, 4, 1)).toBe(false);
    expect(recent.isCurrent("q", user, 3, 1)).toBe(false);
    expect(recent.isCurrent("p", { ...user, requiresTotpMfa: true }, 3, 1)).toBe(false);
    expect(recent.isCurrent("p", { ...user, primaryEmailVerified: false }, 3, 1)).toBe(false);
  });

  it("a newer store replaces the older one", () => {
    const recent = new RecentClaims(60_000);
    recent.stored("p", user, 3, 0);
    recent.stored("p", { ...user, displayName: "Ada L." }, 4, 10);
    expect(recent.isCurrent("p", user, 3, 20)).toBe(false);
    expect(recent.isCurrent("p", { ...user, displayName: "Ada L." }, 4, 20)).toBe(true);
  });
});
