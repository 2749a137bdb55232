/**
 * The same app (compat-suite.ts) against the real gateway (identity, auth, e-mail, teams-permissions and vault services
 * in this process, real PostgreSQL), once with the published @stackframe/js (2.8.41, the contract's version, and the latest) and once with
 * @vestibule/js: only the import differs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import * as v28102 from "stackframe-js-28102";
import * as vestibule from "@vestibule/js";
import { call, headersFor, startStack, type Stack } from "../../../gateway/test/support.ts";
import { currentSdkSuite } from "./compat-suite-current.ts";
import { VAULT_STORE_ID, callbackUrl, clientAppFor, compatSuite, expiryScenario, randomEmail, type SdkFeatures, type SdkModule } from "./compat-suite.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true, vault: true });
  const admin = headersFor(stack.demo, "admin");
  const project = await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin, body: { config: { allow_user_api_keys: true, allow_team_api_keys: true } } });
  expect(project.status).toBe(200);
  const override = { [`dataVault.stores.${VAULT_STORE_ID}`]: { displayName: "Compat store" } };
  expect((await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify(override) } })).status).toBe(200);
});
afterAll(async () => {
  await stack?.stop();
});

/**
 * The seed-era SDK, the last x-stack- one, the current one (x-hexclave-, 2.8.108) and ours (issue 13), each with what
 * its generation can do. Every admin app's `updateConfig` lands on the environment level (2.8.102+ through PATCH
 * /internal/config/override/environment, 2.8.41 and ours through the unlevelled PATCH); "config levels" is the rest.
 *
 * | SDK           | no-callback sign-up | restricted users     | teams paging | invitations by user | config levels | analytics batch | scheduled e-mail  |
 * |---------------|---------------------|----------------------|--------------|---------------------|---------------|-----------------|-------------------|
 * | 2.8.41        | –                   | – (sees the user)    | – (list all) | – (by code)         | – (lacks it)  | – (lacks it)    | – (sends at once) |
 * | 2.8.102       | ✓                   | ✓                    | ✓            | ✓                   | ✓             | ✓               | ✓                 |
 * | 2.8.108       | ✓                   | ✓                    | ✓            | ✓                   | ✓             | ✓               | ✓                 |
 * | @vestibule/js | –                   | – (sees the user)    | – (list all) | – (by code)         | – (lacks it)  | – (lacks it)    | – (sends at once) |
 */
const current: SdkFeatures = { noVerificationCallback: true, restrictedUsers: true, teamsPaging: true, invitationsByUser: true, configLevels: true, analytics: true, scheduledEmail: true };
const sdks: [string, SdkModule, SdkFeatures][] = [
  ["@stackframe/js 2.8.41", v2841 as unknown as SdkModule, {}],
  ["@stackframe/js 2.8.102", v28102 as unknown as SdkModule, current],
  ["@stackframe/js latest", latest as unknown as SdkModule, current],
  ["@vestibule/js", vestibule as unknown as SdkModule, {}],
];

describe.each(sdks)("an app on %s", (_name, sdk, features) => {
  compatSuite(sdk, () => stack, features);
  currentSdkSuite(sdk, () => stack, features);
});

function lifetime(token: string): number {
  const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { iat: number; exp: number };
  return claims.exp - claims.iat;
}

async function setAccessTokenLifetime(seconds: number) {
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", {
    headers: headersFor(stack.demo, "admin"),
    body: { config_override_string: JSON.stringify({ "auth.accessTokenLifetimeSeconds": seconds }) },
  });
  expect(res.status).toBe(200);
}

describe("refresh after expiry", () => {
  it("every SDK refreshes an expired access token with the refresh token", async () => {
    // The shortest lifetime Vestibule allows (the current SDK wants 45 s left on a fresh token).
    await setAccessTokenLifetime(60);
    try {
      // One signed-up session per SDK, through the SDK itself, once the auth service has picked up the lifetime.
      const sessions: { sdk: SdkModule; email: string; tokens: { accessToken: string; refreshToken: string } }[] = [];
      for (const [, sdk] of sdks) {
        for (let i = 0; ; i++) {
          const app = clientAppFor(sdk, stack);
          const email = randomEmail("expiry");
          expect((await app.signUpWithCredential({ email, password: "expiry test 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
          const tokens = await (await app.getUser({ or: "throw" })).getAuthJson();
          if (lifetime(tokens.accessToken) === 60) {
            sessions.push({ sdk, email, tokens });
            break;
          }
          if (i > 50) throw new Error("the auth service did not pick up the new token lifetime");
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await new Promise((r) => setTimeout(r, 61_500));
      for (const s of sessions) {
        const exp = JSON.parse(Buffer.from(s.tokens.accessToken.split(".")[1]!, "base64url").toString()).exp as number;
        expect(exp * 1000).toBeLessThan(Date.now());
        await expiryScenario(s.sdk, stack, s.tokens, s.email);
      }
    } finally {
      await setAccessTokenLifetime(600);
    }
  }, 150_000);
});
