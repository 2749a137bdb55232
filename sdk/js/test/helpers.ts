/**
 * Helpers for the @vestibule/js integration tests against the real gateway (gateway/test/support.ts startStack):
 * apps of each kind for the demo project, the dev mailbox, and TOTP codes.
 */
import { expect } from "vitest";
import { generate } from "otplib";
import { StackAdminApp, StackClientApp, StackServerApp } from "@vestibule/js";
import { extractCode, waitForMail, type MailboxMessage } from "../../../deploy/src/dev-mailbox.ts";
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

/** The e-mails of the dev mailbox the test has already read (so each wait returns a new one). */
const seen = new Set<string>();

/** The newest unread e-mail to `to` from the given system template (magic_link, team_invitation, ...). */
export async function nextMail(stack: Stack, to: string, template: string): Promise<MailboxMessage> {
  const mail = await waitForMail({
    baseUrl: `http://127.0.0.1:${stack.email!.port}`,
    secret: stack.env.VESTIBULE_SERVICE_SECRET!,
    to,
    timeoutMs: 15_000,
    predicate: (m) => m.template === template && !seen.has(m.id),
  });
  seen.add(mail.id);
  return mail;
}

export { extractCode };

/** A TOTP of the current 30 s step, taken early enough in the step that it is still current when the server checks. */
export async function currentTotp(secret: Uint8Array): Promise<string> {
  const into = Date.now() % 30_000;
  if (into > 27_000) await new Promise((r) => setTimeout(r, 30_000 - into + 50));
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) });
}

/** A 6-digit code that is not the current one (for the wrong-code case). */
export async function wrongTotp(secret: Uint8Array): Promise<string> {
  return (await currentTotp(secret)) === "000000" ? "111111" : "000000";
}
