import type { MasterKey } from "@vestibule/shared/config";
import type { PoolClient } from "@vestibule/shared/db";
import { defineSealedFields, sealFields, type Outbox } from "@vestibule/shared/events";
import { PayloadSealer } from "@vestibule/shared/secrets";
import { EmailRequestedSchema } from "@vestibule/proto/auth/v1/events";
import type { EmailContent } from "./domain/emails.ts";
import { AuthEvents } from "./events.ts";

/**
 * What of an e-mail request travels sealed (EmailRequested.sealed_content): everything that can carry a one-time code
 * or link. The recipient and project stay readable (and are bound to the sealed bytes); so do the template name,
 * category and user id.
 */
export const SEALED_EMAIL_FIELDS = defineSealedFields(EmailRequestedSchema, {
  fields: ["subject", "html", "text", "variablesJson"],
  into: "sealedContent",
  boundTo: ["projectId", "to"],
});

/**
 * Asks for an e-mail through the outbox (auth.email.requested.v1), in the caller's transaction: the e-mail exists if
 * and only if the code it carries was committed. The e-mail service records and delivers it. The subject and bodies
 * carry codes (password reset, e-mail verification, magic link), so they are sealed under the deployment's master
 * keys before they reach the outbox table and the bus (see SEALED_EMAIL_FIELDS).
 */
export class Mailer {
  private readonly sealer: PayloadSealer;

  constructor(
    private readonly outbox: Outbox,
    masterKeys: readonly MasterKey[],
  ) {
    this.sealer = new PayloadSealer(masterKeys);
  }

  async request(tx: PoolClient, mail: { projectId: string; to: string; userId: string; content: EmailContent }): Promise<void> {
    const payload = sealFields(this.sealer, SEALED_EMAIL_FIELDS, AuthEvents.emailRequested.type, {
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
    await this.outbox.enqueue(tx, AuthEvents.emailRequested, payload, { projectId: mail.projectId });
  }
}
