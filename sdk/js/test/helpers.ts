/**
 * Helpers for the @vestibule/js integration tests against the real gateway (gateway/test/support.ts startStack):
 * apps of each kind for the demo project; the dev mailbox and TOTP codes (mailbox.ts).
 */
import { expect } from "vitest";
import { StackAdminApp, StackClientApp, StackServerApp } from "@vestibule/js";
import type { Stack } from "../../../gateway/test/support.ts";
import { callbackUrl, randomEmail } from "./compat-suite.ts";

type TokenStoreOption = ConstructorParameters<typeof StackClientApp>[0]["tokenStore"];

export function vestibuleApps(getStack: () => Stack) {
  const keys = () => getStack().demo;
  const client = (tokenStore: TokenStoreOption = "memory") =>
    new StackClientApp({ baseUrl: getStack().url, projectId: keys().projectId, publishableClientKey: keys().publishableClientKey, tokenStore, noAutomaticPrefetch: true });
  const server = (tokenStore: TokenStoreOption = null) =>
    new StackServerApp({
      baseUrl: getStack().url,
      projectId: keys().projectId,
      publishableClientKey: keys().publishableClientKey,
      secretServerKey: keys().secretServerKey,
      tokenStore,
      noAutomaticPrefetch: true,
    });
  const admin = () =>
    new StackAdminApp({ baseUrl: getStack().url, projectId: keys().projectId, superSecretAdminKey: keys().superSecretAdminKey, tokenStore: null, noAutomaticPrefetch: true });

  /** A new user signed up with a password through a fresh client app. */
  async function signedUp(prefix = "ves") {
    const app = client();
    const email = randomEmail(prefix);
    const r = await app.signUpWithCredential({ email, password: "vestibule pw 1", verificationCallbackUrl: callbackUrl, noRedirect: true });
    expect(r.status).toBe("ok");
    return { app, email, user: await app.getUser({ or: "throw" }) };
  }

  return { client, server, admin, signedUp };
}

export { currentTotp, extractCode, nextMail, wrongTotp } from "./mailbox.ts";
