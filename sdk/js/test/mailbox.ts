/**
 * The dev mailbox and TOTP codes for integration tests (no SDK here: the compat suite uses these with every SDK).
 */
import { generate } from "otplib";
import { extractCode, waitForMail, type MailboxMessage } from "../../../deploy/src/dev-mailbox.ts";
import type { Stack } from "../../../gateway/test/support.ts";

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
