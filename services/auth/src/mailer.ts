import type { PoolClient } from "@vestibule/shared/db";
import type { Outbox } from "@vestibule/shared/events";
import type { EmailContent } from "./domain/emails.ts";
import { AuthEvents } from "./events.ts";

/**
 * Asks for an e-mail through the outbox (auth.email.requested.v1), in the caller's transaction: the e-mail exists if
 * and only if the code it carries was committed. The e-mail service records and delivers it.
 */
export class Mailer {
  constructor(private readonly outbox: Outbox) {}

  async request(tx: PoolClient, mail: { projectId: string; to: string; userId: string; content: EmailContent }): Promise<void> {
    await this.outbox.enqueue(
      tx,
      AuthEvents.emailRequested,
      {
        projectId: mail.projectId,
        to: mail.to,
        subject: mail.content.subject,
        html: mail.content.html,
        text: mail.content.text,
        notificationCategory: "Transactional",
        template: mail.content.template,
        userId: mail.userId,
        variablesJson: mail.content.variables ? JSON.stringify(mail.content.variables) : "",
      },
      { projectId: mail.projectId },
    );
  }
}
