import { describe, expect, it } from "vitest";
import { isStatusError } from "@vestibule/shared/errors";
import { ProviderClients } from "./client.ts";
import { readOAuthPlatformConfig } from "./config.ts";

const github = { configId: "github", type: "github" as const, allowSignIn: true, allowConnectedAccounts: true };

describe("provider clients", () => {
  it("builds plain OAuth 2 authorization URLs with PKCE S256 and state, without a nonce", async () => {
    const clients = new ProviderClients(readOAuthPlatformConfig({}, "production"));
    const client = await clients.get({ ...github, isShared: false, clientId: "cid", clientSecret: "secret" });
    expect(client.oidc).toBe(false);
    const url = new URL(clients.authorizationUrl(client, { redirectUri: "https://api.example.com/cb", state: "st", nonce: "n", codeVerifierChallenge: "c".repeat(43), extraScopes: ["repo"] }));
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: "cid",
      redirect_uri: "https://api.example.com/cb",
      scope: "user:email repo",
      response_type: "code",
      state: "st",
      code_challenge: "c".repeat(43),
      code_challenge_method: "S256",
    });
    expect(url.href).not.toContain("secret");
  });

  it("shared keys that do not exist, standard keys without a secret, and an unreachable issuer are known failures", async () => {
    const clients = new ProviderClients(readOAuthPlatformConfig({ VESTIBULE_OAUTH_ISSUERS: JSON.stringify({ gitlab: "http://127.0.0.1:1" }) }, "development"));
    await expect(clients.get({ ...github, isShared: true })).rejects.toMatchObject({ code: "INVALID_SHARED_OAUTH_PROVIDER_ID" });
    await expect(clients.get({ ...github, isShared: false, clientId: "cid" })).rejects.toMatchObject({ code: "INVALID_STANDARD_OAUTH_PROVIDER_ID" });
    const err = await clients.get({ configId: "gitlab", type: "gitlab", isShared: false, allowSignIn: true, allowConnectedAccounts: true, clientId: "a", clientSecret: "b" }).catch((e: unknown) => e);
    expect(isStatusError(err) && err.httpStatus).toBe(503);
  });
});
