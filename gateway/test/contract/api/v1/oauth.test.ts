import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, type ProjectKeys } from "../../../support.ts";
import { ERROR_URL, REDIRECT_URI, exchange, oauthSignIn, runFlow, standardProvider, startOAuthStack, type OAuthStack } from "../../../oauth-support.ts";

let o: OAuthStack;
let keys: ProjectKeys;
beforeAll(async () => {
  o = await startOAuthStack();
  keys = await o.newProject({ oauth_providers: [standardProvider(o.idp, "github"), { id: "google", type: "shared" }] });
}, 60_000);
afterAll(async () => {
  await o?.stop();
});

const email = () => `oauth-${randomBytes(5).toString("hex")}@example.com`;

describe("OAuth sign-in through the development identity provider", () => {
  it("signs up a new user, then signs the same account in again", async () => {
    const who = { email: email(), name: "Ada Lovelace" };
    const up = await oauthSignIn(o.stack, keys, "github", who, { afterCallbackRedirectUrl: "http://localhost:3000/after" });
    expect(up.status, up.text).toBe(200);
    expect(up.json).toMatchObject({ token_type: "Bearer", scope: "legacy", is_new_user: true, newUser: true, after_callback_redirect_url: "http://localhost:3000/after" });
    const me = await call(o.stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(keys, "client"), "x-stack-access-token": up.json.access_token } });
    expect(me.json).toMatchObject({
      primary_email: who.email,
      primary_email_verified: true,
      display_name: "Ada Lovelace",
      oauth_providers: [{ id: "github", account_id: o.idp.accountIdOf(who.email), email: who.email }],
      has_password: false,
    });
    const again = await oauthSignIn(o.stack, keys, "github", who);
    expect(again.status).toBe(200);
    expect(again.json.is_new_user).toBe(false);
    expect(again.json.user_id).toBe(up.json.user_id);
  });
});
