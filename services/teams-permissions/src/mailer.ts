import type { MessageInitShape } from "@bufbuild/protobuf";
import type { MasterKey } from "@vestibule/shared/config";
import type { PoolClient } from "@vestibule/shared/db";
import { defineSealedFields, sealFields, type Outbox } from "@vestibule/shared/events";
import { PayloadSealer } from "@vestibule/shared/secrets";
import { EmailRequestedSchema } from "@vestibule/proto/teams_permissions/v1/events";
import { TeamsEvents } from "./events.ts";

/**
 * What of an e-mail request travels sealed (EmailRequested.sealed_content): the subject, bodies and template
 * variables, which carry the invitation link and its code. The recipient and project stay readable (and are bound to
 * the sealed bytes).
 */
export const SEALED_EMAIL_FIELDS = defineSealedFields(EmailRequestedSchema, {
  fields: ["subject", "html", "text", "variablesJson"],
  into: "sealedContent",
  boundTo: ["projectId", "to"],
});

/**
 * Asks for an e-mail through the outbox (teams_permissions.email.requested.v1) in the caller's transaction, so the
 * e-mail exists if and only if the invitation code it carries was committed; its sensitive fields are sealed under the
 * deployment's master keys before they reach the outbox table and the bus.
 */
export class Mailer {
  private readonly sealer: PayloadSealer;

  constructor(
    private readonly outbox: Outbox,
    masterKeys: readonly MasterKey[],
  ) {
    this.sealer = new PayloadSealer(masterKeys);
  }

  async request(tx: PoolClient, mail: MessageInitShape<typeof EmailRequestedSchema> & { projectId: string }): Promise<void> {
    const payload = sealFields(this.sealer, SEALED_EMAIL_FIELDS, TeamsEvents.emailRequested.type, mail);
    await this.outbox.enqueue(tx, TeamsEvents.emailRequested, payload, { projectId: mail.projectId });
  }
}
