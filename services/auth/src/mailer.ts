import type { MasterKey } from "@vestibule/shared/config";
import type { PoolClient } from "@vestibule/shared/db";
import { EmailRequester } from "@vestibule/shared/emails";
import type { Outbox } from "@vestibule/shared/events";
import type { EmailContent } from "./domain/emails.ts";
import { AuthEvents } from "./events.ts";

/**
 * Asks for one of auth's e-mails (auth.email.requested.v1) through the shared sealed requester, in the caller's
 * transaction: the e-mail exists if and only if the code it carries was committed. The subject and bodies carry codes
 * (password reset, e-mail verification, magic link), so the requester seals them before they reach the outbox.
 */
export class Mailer {
  private readonly requester: EmailRequester;

  constructor(outbox: Outbox, masterKeys: readonly MasterKey[]) {
    this.requester = new EmailRequester(outbox, masterKeys, AuthEvents.emailRequested);
  }

  async request(tx: PoolClient, mail: { projectId: string; to: string; userId: string; content: EmailContent }): Promise<void> {
    await this.requester.request(tx, {
      projectId: mail.projectId,
      to: mail.to,
      subject: mail.content.subject,
      html: mail.content.html,
      text: mail.content.text,
      notificationCategory: "Transactional",
      template: mail.content.template,
      userId: mail.userId,
      variablesJson: mail.content.variables ? JSON.stringify(mail.content.variables) : "",
    });
  }
}
