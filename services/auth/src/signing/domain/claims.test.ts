import { describe, expect, it } from "vitest";
import { audienceFor, buildAccessTokenClaims, issuerFor } from "./claims.ts";

const user = {
  id: "5f0c2b7e-8a57-4b43-9d5e-0a1d2c3b4a59",
  displayName: "Ann",
  primaryEmail: "ann@example.com",
  primaryEmailVerified: false,
  selectedTeamId: null,
  isAnonymous: false,
  requiresTotpMfa: false,
  signedUpAtMillis: 1_700_000_000_999,
};

describe("access token claims", () => {
  it("has every contract claim, newer SDK claims and the reference key order", () => {
    const claims = buildAccessTokenClaims({ publicUrl: "http://localhost:8102/", projectId: "p1", sessionId: "s1", user, nowSeconds: 1000, lifetimeSeconds: 600 });
    expect(claims).toEqual({
      sub: user.id,
      project_id: "p1",
      branch_id: "main",
      refresh_token_id: "s1",
      role: "authenticated",
      name: "Ann",
      email: "ann@example.com",
      email_verified: false,
      selected_team_id: null,
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
      signed_up_at: 1_700_000_000,
      iss: "http://localhost:8102/api/v1/projects/p1",
      iat: 1000,
      aud: "p1",
      exp: 1600,
    });
    expect(Object.keys(claims).slice(0, 10)).toEqual([
      "sub", "project_id", "branch_id", "refresh_token_id", "role", "name", "email", "email_verified", "selected_team_id", "is_anonymous",
    ]);
  });

  it("anonymous users get their own audience and issuer", () => {
    const claims = buildAccessTokenClaims({ publicUrl: "https://api.x.io", projectId: "p1", sessionId: "s1", user: { ...user, isAnonymous: true, primaryEmail: null }, nowSeconds: 0, lifetimeSeconds: 30 });
    expect(claims.aud).toBe("p1:anon");
    expect(claims.iss).toBe("https://api.x.io/api/v1/projects-anonymous-users/p1");
    expect(claims.is_anonymous).toBe(true);
    // The current SDK requires anonymous users to be restricted with that reason (issue 13).
    expect(claims.is_restricted).toBe(true);
    expect(claims.restricted_reason).toEqual({ type: "anonymous" });
    expect(audienceFor("p1", false)).toBe("p1");
    expect(issuerFor("https://api.x.io", "p1", false)).toBe("https://api.x.io/api/v1/projects/p1");
  });
});

describe("restriction claims (issue 13)", () => {
  const base = { publicUrl: "https://api.x.io", projectId: "p1", sessionId: "s1", nowSeconds: 0, lifetimeSeconds: 600 };

  it("marks anonymous users restricted with reason anonymous", () => {
    const claims = buildAccessTokenClaims({ ...base, user: { ...user, isAnonymous: true } });
    expect([claims.is_restricted, claims.restricted_reason]).toEqual([true, { type: "anonymous" }]);
  });

  it("marks unverified users restricted only where the project requires verified e-mails", () => {
    expect(buildAccessTokenClaims({ ...base, user }).is_restricted).toBe(false);
    const claims = buildAccessTokenClaims({ ...base, user, requireEmailVerification: true });
    expect([claims.is_restricted, claims.restricted_reason]).toEqual([true, { type: "email_not_verified" }]);
    expect(buildAccessTokenClaims({ ...base, user: { ...user, primaryEmailVerified: true }, requireEmailVerification: true }).is_restricted).toBe(false);
  });

  it("marks users an administrator restricted", () => {
    const claims = buildAccessTokenClaims({ ...base, user: { ...user, restrictedByAdmin: true } });
    expect([claims.is_restricted, claims.restricted_reason]).toEqual([true, { type: "restricted_by_administrator" }]);
  });
});
