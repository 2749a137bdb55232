import { describe, expect, it } from "vitest";
import { mapProfile, oidcProfile } from "./profiles.ts";
import { PROVIDERS } from "./providers.ts";
import { PROVIDER_TYPES, oauthSettingsFromRendered } from "./settings.ts";
import { readOAuthPlatformConfig } from "./config.ts";

describe("profile mappers", () => {
  it("reads standard OIDC claims (e-mail lower-cased, verified only with an e-mail)", () => {
    expect(oidcProfile({ claims: { sub: "s1", email: "Ada@Example.com", email_verified: true, name: "Ada", picture: "https://p/1" } })).toEqual({
      accountId: "s1",
      email: "ada@example.com",
      emailVerified: true,
      displayName: "Ada",
      profileImageUrl: "https://p/1",
    });
    expect(oidcProfile({ claims: { sub: "s2", email_verified: true } })).toMatchObject({ email: null, emailVerified: false });
    expect(() => oidcProfile({ claims: {} })).toThrow(/did not identify/);
  });

  it("GitHub: numeric id, primary e-mail and its verified flag from /user/emails", () => {
    const p = mapProfile("github", {
      user: { id: 42, login: "octo", name: null, avatar_url: "https://a/42", email: "public@x.com" },
      emails: [
        { email: "other@x.com", primary: false, verified: true },
        { email: "main@x.com", primary: true, verified: false },
      ],
    });
    expect(p).toEqual({ accountId: "42", email: "main@x.com", emailVerified: false, displayName: "octo", profileImageUrl: "https://a/42" });
  });

  it("each type maps its provider's shape", () => {
    expect(mapProfile("google", { claims: { sub: "g", email: "g@x.com", email_verified: true } })).toMatchObject({ accountId: "g", emailVerified: true });
    expect(mapProfile("microsoft", { claims: { oid: "m", sub: "pairwise", preferred_username: "m@x.com", name: "M" } })).toMatchObject({ accountId: "m", email: "m@x.com", emailVerified: false });
    expect(mapProfile("spotify", { user: { id: "sp", email: "s@x.com", display_name: "S", images: [{ url: "https://i" }] } })).toMatchObject({ accountId: "sp", profileImageUrl: "https://i" });
    expect(mapProfile("facebook", { user: { id: "fb", email: "f@x.com", name: "F", picture: { data: { url: "https://f" } } } })).toMatchObject({ accountId: "fb", profileImageUrl: "https://f" });
    expect(mapProfile("discord", { user: { id: "d", email: "d@x.com", verified: true, username: "dd", avatar: "av" } })).toEqual({
      accountId: "d",
      email: "d@x.com",
      emailVerified: true,
      displayName: "dd",
      profileImageUrl: "https://cdn.discordapp.com/avatars/d/av.png",
    });
    expect(mapProfile("bitbucket", { user: { uuid: "{b}", display_name: "B" }, emails: [{ email: "b@x.com", is_primary: true, is_confirmed: true }] })).toMatchObject({ accountId: "{b}", email: "b@x.com", emailVerified: true });
    expect(mapProfile("x", { user: { data: { id: "x1", name: "X", profile_image_url: "https://x" } } })).toMatchObject({ accountId: "x1", email: null });
    expect(mapProfile("twitch", { claims: { sub: "t", email: "t@x.com", email_verified: true, preferred_username: "tt" } })).toMatchObject({ displayName: "tt" });
    expect(mapProfile("apple", { claims: { sub: "ap", email: "a@x.com", email_verified: "true" }, user: { name: { firstName: "A", lastName: "P" } } })).toMatchObject({ displayName: "A P", emailVerified: true });
    expect(mapProfile("gitlab", { claims: { sub: "gl" } })).toMatchObject({ accountId: "gl" });
    expect(mapProfile("linkedin", { claims: { sub: "li" } })).toMatchObject({ accountId: "li" });
  });

  it("every provider type has endpoints and scopes", () => {
    for (const type of PROVIDER_TYPES) {
      const def = PROVIDERS[type];
      expect(def.issuer ?? def.endpoints, type).toBeTruthy();
      expect(def.scopes.length, type).toBeGreaterThan(0);
    }
  });
});

describe("OAuth settings and platform config", () => {
  it("reads providers and the merge strategy from the rendered config", () => {
    const s = oauthSettingsFromRendered(
      "p",
      JSON.stringify({
        auth: {
          oauth: {
            accountMergeStrategy: "raise_error",
            providers: {
              github: { type: "github", isShared: false, allowSignIn: true, allowConnectedAccounts: true, clientId: "id", clientSecret: "secret" },
              weird: { type: "myspace", allowSignIn: true },
            },
          },
        },
      }),
    );
    expect(s.mergeStrategy).toBe("raise_error");
    expect([...s.providers.keys()]).toEqual(["github"]);
    expect(s.providers.get("github")).toMatchObject({ type: "github", isShared: false, clientSecret: "secret" });
    expect(oauthSettingsFromRendered("p", "not json").mergeStrategy).toBe("link_method");
  });

  it("shared keys: any type in development, only the four platform types in production", () => {
    const env = { VESTIBULE_OAUTH_SHARED_KEYS: JSON.stringify({ "*": { client_id: "c", client_secret: "s", issuer: "http://127.0.0.1:9/" } }) };
    expect(readOAuthPlatformConfig(env, "development").sharedKeys("twitch")).toEqual({ clientId: "c", clientSecret: "s", issuer: "http://127.0.0.1:9" });
    expect(readOAuthPlatformConfig(env, "production").sharedKeys("twitch")).toBeUndefined();
    expect(readOAuthPlatformConfig(env, "production").sharedKeys("google")).toBeDefined();
    expect(readOAuthPlatformConfig({}, "development").sharedKeys("google")).toBeUndefined();
    expect(() => readOAuthPlatformConfig({ VESTIBULE_OAUTH_SHARED_KEYS: "[]" }, "development")).toThrow(/JSON object/);
    expect(() => readOAuthPlatformConfig({ VESTIBULE_OAUTH_ISSUERS: JSON.stringify({ myspace: "http://x" }) }, "development")).toThrow(/unknown provider type/);
    expect(readOAuthPlatformConfig({ VESTIBULE_OAUTH_ISSUERS: JSON.stringify({ github: "https://idp.example" }) }, "development").issuerOverride("github")).toBe("https://idp.example");
  });
});
