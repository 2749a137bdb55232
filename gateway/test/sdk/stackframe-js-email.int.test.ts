/**
 * Acceptance: the published Stack Auth SDK (@stackframe/js 2.8.41 and latest) drives the e-mail flows against
 * Vestibule unchanged: magic link / OTP sign-in, forgotten password, e-mail verification and notification categories.
 * Every e-mail really goes through the e-mail service's SMTP delivery to the dev mailbox, where the test reads it.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import type { MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { call, headersFor, startStack, type Stack } from "../support.ts";
import { codeOf, waitForMail } from "../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

type Sdk = typeof latest;
const sdks: [string, Sdk][] = [
  ["@stackframe/js 2.8.41", v2841 as unknown as Sdk],
  ["@stackframe/js latest", latest],
];

const handler = "http://localhost:3000/handler";
const email = () => `sdk-mail-${randomBytes(5).toString("hex")}@example.com`;

/** The newest e-mail to `to` from the given system template that the test has not read yet. */
const seen = new Set<string>();
async function mail(to: string, template: string): Promise<MailboxMessage> {
  const m = await waitForMail(stack, to, (x) => x.template === template && !seen.has(x.id), 15_000);
  seen.add(m.id);
  return m;
}

describe.each(sdks)("%s e-mail flows against Vestibule", (_name, sdk) => {
  const clientApp = () =>
    new sdk.StackClientApp({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
    } as never);

  it("sendMagicLinkEmail + signInWithMagicLink: signs up with the link, then signs in with OTP + nonce", async () => {
    const address = email();
    const app = clientApp();
    const sent = await app.sendMagicLinkEmail(address, { callbackUrl: `${handler}/magic-link-callback` });
    expect(sent.status).toBe("ok");
    const first = await mail(address, "magic_link");
    expect(first.subject).toMatch(/^Sign in to Demo Project: Your code is [0-9A-Z]{6}$/);
    const signedUp = await app.signInWithMagicLink(codeOf(first), { noRedirect: true });
    expect(signedUp.status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmail).toBe(address);
    expect(user.primaryEmailVerified).toBe(true);
    expect(user.otpAuthEnabled).toBe(true);

    const other = clientApp();
    const again = await other.sendMagicLinkEmail(address, { callbackUrl: `${handler}/magic-link-callback` });
    expect(again.status).toBe("ok");
    const nonce = (again as { data: { nonce: string } }).data.nonce;
    const otp = /Your code is ([0-9A-Z]{6})$/.exec((await mail(address, "magic_link")).subject)![1]!;
    const signedIn = await other.signInWithMagicLink(otp.toLowerCase() + nonce, { noRedirect: true });
    expect(signedIn.status).toBe("ok");
    expect((await other.getUser({ or: "throw" })).id).toBe(user.id);
    // A used code is a result error, not a throw.
    const reused = await clientApp().signInWithMagicLink(otp.toLowerCase() + nonce, { noRedirect: true });
    expect(reused.status).toBe("error");
  });

  it("sendForgotPasswordEmail + resetPassword", async () => {
    const address = email();
    const app = clientApp();
    expect((await app.signUpWithCredential({ email: address, password: "first password 1", verificationCallbackUrl: `${handler}/email-verification`, noRedirect: true })).status).toBe("ok");
    const sent = await clientApp().sendForgotPasswordEmail(address, { callbackUrl: `${handler}/password-reset` });
    expect(sent.status).toBe("ok");
    const reset = await mail(address, "password_reset");
    expect(reset.subject).toBe("Reset your password at Demo Project");
    const code = codeOf(reset);
    expect((await clientApp().verifyPasswordResetCode(code)).status).toBe("ok");
    expect((await clientApp().resetPassword({ code, password: "second password 2" })).status).toBe("ok");
    expect((await clientApp().signInWithCredential({ email: address, password: "second password 2", noRedirect: true })).status).toBe("ok");
    expect((await clientApp().signInWithCredential({ email: address, password: "first password 1", noRedirect: true })).status).toBe("error");
  });

  it("sendVerificationEmail + verifyEmail", async () => {
    const address = email();
    const app = clientApp();
    await app.signUpWithCredential({ email: address, password: "verify me 1234", verificationCallbackUrl: `${handler}/email-verification`, noRedirect: true });
    await mail(address, "email_verification"); // the one sign-up sends
    const user = await app.getUser({ or: "throw" });
    expect(user.primaryEmailVerified).toBe(false);
    // 2.8.41 takes { callbackUrl }; the latest takes nothing and uses its handler URL.
    await (user.sendVerificationEmail as (options?: { callbackUrl: string }) => Promise<unknown>)({ callbackUrl: `${handler}/email-verification` });
    const verification = await mail(address, "email_verification");
    expect(verification.subject).toBe("Verify your email at Demo Project");
    expect((await app.verifyEmail(codeOf(verification))).status).toBe("ok");
    // The gateway learns of the change from identity's event (its user cache is eventually consistent).
    const { accessToken } = await user.getAuthJson();
    const started = Date.now();
    for (;;) {
      const res = await call(stack, "GET", "/api/v1/users/me", { headers: { ...headersFor(stack.demo, "client"), "x-stack-access-token": accessToken! } });
      if (res.json.primary_email_verified === true) break;
      if (Date.now() - started > 5_000) throw new Error("the e-mail did not become verified");
      await new Promise((r) => setTimeout(r, 100));
    }
    const serverApp = new sdk.StackServerApp({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      secretServerKey: stack.demo.secretServerKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
    } as never);
    expect((await serverApp.getUser(user.id))?.primaryEmailVerified).toBe(true);
  });

  it("notification categories: list and toggle", async () => {
    const app = clientApp();
    await app.signUpWithCredential({ email: email(), password: "categories 123", verificationCallbackUrl: `${handler}/email-verification`, noRedirect: true });
    const user = await app.getUser({ or: "throw" });
    const categories = await user.listNotificationCategories();
    expect(categories.map((c) => [c.name, c.enabled, c.canDisable])).toEqual([
      ["Transactional", true, false],
      ["Marketing", true, true],
    ]);
    await categories.find((c) => c.name === "Marketing")!.setEnabled(false);
    const after = await user.listNotificationCategories();
    expect(after.find((c) => c.name === "Marketing")!.enabled).toBe(false);
    await after.find((c) => c.name === "Marketing")!.setEnabled(true);
    expect((await user.listNotificationCategories()).find((c) => c.name === "Marketing")!.enabled).toBe(true);
  });
});
