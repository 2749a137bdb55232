import { describe, expect, it } from "vitest";
import { authSettingsFromRendered } from "./settings.ts";

describe("auth settings from the rendered config", () => {
  it("reads the keys the auth service uses", () => {
    const s = authSettingsFromRendered(
      "p1",
      "Demo",
      JSON.stringify({
        auth: { allowSignUp: false, password: { allowSignIn: false }, otp: { allowSignIn: true }, passkey: { allowSignIn: true }, refreshTokenRotation: true, accessTokenLifetimeSeconds: 30 },
        domains: { allowLocalhost: false, trustedDomains: { a: { baseUrl: "https://a.com", handlerPath: "/h" }, b: { handlerPath: "/h" } } },
      }),
    );
    expect(s).toEqual({
      projectId: "p1",
      displayName: "Demo",
      allowSignUp: false,
      passwordSignIn: false,
      otpSignIn: true,
      passkeySignIn: true,
      refreshTokenRotation: true,
      accessTokenLifetimeSeconds: 30,
      redirectTrust: { allowLocalhost: false, trustedDomains: ["https://a.com"] },
      requireEmailVerification: false,
    });
  });

  it("falls back to a fresh project's defaults", () => {
    const s = authSettingsFromRendered("p1", "Demo", JSON.stringify({ auth: { accessTokenLifetimeSeconds: 5 } }));
    expect(s).toMatchObject({ allowSignUp: true, passwordSignIn: true, otpSignIn: false, passkeySignIn: false, refreshTokenRotation: false, accessTokenLifetimeSeconds: 600 });
    expect(s.redirectTrust).toEqual({ allowLocalhost: true, trustedDomains: [] });
    expect(authSettingsFromRendered("p1", "Demo", "not json").accessTokenLifetimeSeconds).toBe(600);
  });

  it("caps the access-token lifetime at an hour, also for values stored before the cap (issue 18)", () => {
    expect(authSettingsFromRendered("p1", "Demo", JSON.stringify({ auth: { accessTokenLifetimeSeconds: 3600 } })).accessTokenLifetimeSeconds).toBe(3600);
    expect(authSettingsFromRendered("p1", "Demo", JSON.stringify({ auth: { accessTokenLifetimeSeconds: 86_400 } })).accessTokenLifetimeSeconds).toBe(3600);
  });
});

describe("restriction settings (issue 13)", () => {
  it("reads onboarding.requireEmailVerification", () => {
    expect(authSettingsFromRendered("p1", "Demo", JSON.stringify({ onboarding: { requireEmailVerification: true } })).requireEmailVerification).toBe(true);
    expect(authSettingsFromRendered("p1", "Demo", "{}").requireEmailVerification).toBe(false);
  });
});
