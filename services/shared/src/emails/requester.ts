import type { MessageInitShape } from "@bufbuild/protobuf";
import { EmailRequestedSchema } from "@vestibule/proto/email/v1/email_requested";
import type { MasterKey } from "../config/index.ts";
import type { PoolClient } from "../db/index.ts";
import { defineSealedFields, sealFields, type EventDefinition, type Outbox } from "../events/index.ts";
import { PayloadSealer } from "../secrets/payload-sealer.ts";

/**
 * What of an e-mail request travels sealed (EmailRequested.sealed_content): the subject, bodies and template variables,
 * which carry one-time codes and links. The recipient and project stay readable (and are bound to the sealed bytes);
 * so do the template name, category and user id. Producers seal and the e-mail service opens with this one spec.
 */
export const SEALED_EMAIL_FIELDS = defineSealedFields(EmailRequestedSchema, {
  fields: ["subject", "html", "text", "variablesJson"],
  into: "sealedContent",
  boundTo: ["projectId", "to"],
});

/** One e-mail request (vestibule.email.v1.EmailRequested), in clear; the requester seals it. */
export type EmailRequest = MessageInitShape<typeof EmailRequestedSchema> & { readonly projectId: string };

/**
 * Asks for an e-mail through the outbox, in the caller's transaction: the e-mail exists if and only if the code or link
 * it carries was committed. The subject, bodies and variables are sealed under the deployment's master keys before
 * they reach the outbox table and the bus (see SEALED_EMAIL_FIELDS). Each producer passes its own event
 * (`<producer>.email.requested.v1`).
 */
export class EmailRequester {
  private readonly sealer: PayloadSealer;

  constructor(
    private readonly outbox: Outbox,
    masterKeys: readonly MasterKey[],
    private readonly event: EventDefinition<typeof EmailRequestedSchema>,
  ) {
    this.sealer = new PayloadSealer(masterKeys);
  }

  async request(tx: PoolClient, mail: EmailRequest): Promise<void> {
    const payload = sealFields(this.sealer, SEALED_EMAIL_FIELDS, this.event.type, mail);
    await this.outbox.enqueue(tx, this.event, payload, { projectId: mail.projectId });
  }
}
