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
import { extractCode, waitForMail as waitForMailIn } from "@vestibule/shared/testing";

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
  /** Only messages whose delivery is recorded (default true); see @vestibule/shared/testing. */
  readonly delivered?: boolean;
}

/**
 * Polls the mailbox until a delivered message to `to` (matching `predicate`, if given) is there and returns the newest
 * such message (see @vestibule/shared/testing's waitForMail).
 */
export function waitForMail(opts: WaitForMailOptions): Promise<MailboxMessage> {
  const client = createServiceClient(MailboxService, { baseUrl: opts.baseUrl, caller: "deploy", secret: opts.secret });
  return waitForMailIn(client, { ...opts, intervalMs: opts.intervalMs ?? 100 });
}

export { extractCode };
