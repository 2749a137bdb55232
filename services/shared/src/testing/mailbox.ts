import type { MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";

/** What the dev mailbox helpers need of a MailboxService client (an RPC client, or a wrapper of one). */
export interface MailboxLister {
  listMailboxMessages(req: { to: string; projectId?: string; limit?: number }): Promise<{ messages: MailboxMessage[] }>;
}

export interface WaitForMailOptions {
  /** Only messages to this address (compared lower-cased). */
  readonly to: string;
  readonly projectId?: string;
  /** Only messages for which this is true (e.g. a template, or created after some moment). */
  readonly predicate?: (message: MailboxMessage) => boolean;
  /**
   * Only messages the e-mail service has finished with (status "sent", or "failed"): a message can be listed while
   * it is still queued, before its delivery is recorded. Default true.
   */
  readonly delivered?: boolean;
  /** Default 10 s. */
  readonly timeoutMs?: number;
  /** Poll interval; default 50 ms. */
  readonly intervalMs?: number;
}

/**
 * Polls the dev mailbox (the e-mail service's record of what its development SMTP server received) until a message
 * to `to` that matches is there, and returns the newest such message. Errors while polling (e.g. the service still
 * starting) are retried; on timeout it throws, naming the last error if there was one.
 */
export async function waitForMail(mailbox: MailboxLister, opts: WaitForMailOptions): Promise<MailboxMessage> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  const delivered = opts.delivered ?? true;
  let lastError: unknown;
  for (;;) {
    try {
      const { messages } = await mailbox.listMailboxMessages({ to: opts.to.toLowerCase(), projectId: opts.projectId ?? "", limit: 50 });
      const found = messages.find((m) => (!delivered || m.status === "sent" || m.status === "failed") && (!opts.predicate || opts.predicate(m)));
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
 * The 45-character one-time code of the `?code=` link in a message (verification, password reset, magic link,
 * invitation), from its text part, else its HTML. Throws when there is none.
 */
export function extractCode(message: Pick<MailboxMessage, "text" | "html"> & Partial<Pick<MailboxMessage, "subject">>): string {
  const match = CODE_IN_LINK.exec(message.text) ?? CODE_IN_LINK.exec(message.html);
  if (!match) throw new Error(`no ?code= link with a 45-character code in the e-mail${message.subject ? ` "${message.subject}"` : ""}`);
  return match[1]!;
}
