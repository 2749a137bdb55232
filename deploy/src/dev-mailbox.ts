/**
 * The dev mailbox from outside the email service, for tests and dev tooling: list the e-mails the development SMTP
 * server of the e-mail service received (every e-mail sent through the shared sender in development mode), wait for
 * one to arrive, and pull the one-time code out of its link. Over HTTP: dev-mailbox-http.ts.
 *
 * ```ts
 * const mail = await waitForMail({ baseUrl: tp.platform.serviceUrls.email, secret: tp.serviceSecret, to: "a@example.com", timeoutMs: 10_000 });
 * const code = extractCode(mail);
 * ```
 */
import { MailboxService, type MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { createServiceClient } from "@vestibule/shared/rpc";

export type { MailboxMessage };

export interface MailboxOptions {
  /** Base URL (h2c) of the email service, e.g. http://127.0.0.1:8114. */
  readonly baseUrl: string;
  /** VESTIBULE_SERVICE_SECRET of the deployment. */
  readonly secret: string;
  /** Only messages to this address (compared lower-cased). */
  readonly to?: string;
  readonly projectId?: string;
  /** Default 50, at most 500. */
  readonly limit?: number;
}

/** The recorded messages, newest first. */
export async function listMailbox(opts: MailboxOptions): Promise<MailboxMessage[]> {
  const client = createServiceClient(MailboxService, { baseUrl: opts.baseUrl, caller: "deploy", secret: opts.secret });
  const { messages } = await client.listMailboxMessages({ to: opts.to ?? "", projectId: opts.projectId ?? "", limit: opts.limit ?? 0 });
  return messages;
}

export interface WaitForMailOptions extends MailboxOptions {
  readonly to: string;
  /** Default 10 s. */
  readonly timeoutMs?: number;
  /** Poll interval; default 100 ms. */
  readonly intervalMs?: number;
  /** Only messages for which this is true (e.g. a template, or created after some moment). */
  readonly predicate?: (message: MailboxMessage) => boolean;
}

/**
 * Polls the mailbox until a message to `to` (matching `predicate`, if given) is there and returns the newest such
 * message. Errors while polling (e.g. the email service still starting) are retried; on timeout it throws, naming the
 * last error if there was one.
 */
export async function waitForMail(opts: WaitForMailOptions): Promise<MailboxMessage> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const found = (await listMailbox(opts)).find((m) => !opts.predicate || opts.predicate(m));
      if (found) return found;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError ? ` (last error: ${(lastError as Error).message ?? String(lastError)})` : "";
      throw new Error(`no e-mail to ${opts.to}${opts.predicate ? " matching the predicate" : ""} arrived within ${timeoutMs} ms${why}`);
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}

/** `?code=` (or `&code=`, `&amp;code=` in HTML) followed by exactly 45 code characters. */
const CODE_IN_LINK = /[?&](?:amp;)?code=([0-9A-Za-z]{45})(?![0-9A-Za-z])/;

/**
 * The 45-character one-time code of the `?code=` link in a message (verification, password reset, magic link),
 * from its text part, else its HTML. Throws when there is none.
 */
export function extractCode(message: Pick<MailboxMessage, "text" | "html"> & Partial<Pick<MailboxMessage, "subject">>): string {
  const match = CODE_IN_LINK.exec(message.text) ?? CODE_IN_LINK.exec(message.html);
  if (!match) throw new Error(`no ?code= link with a 45-character code in the e-mail${message.subject ? ` "${message.subject}"` : ""}`);
  return match[1]!;
}
