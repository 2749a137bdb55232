import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { MailboxMessageSchema, MailboxService, type MailboxMessage } from "@vestibule/proto/email/v1/mailbox_service";
import { statusError } from "@vestibule/shared/errors";
import type { ServiceContext } from "@vestibule/shared/service";
import { normalizeAddress } from "./domain/email-request.ts";
import { mailboxStore, type MailboxRow } from "./store/mailbox-store.ts";

export const DEFAULT_MAILBOX_LIMIT = 50;
export const MAX_MAILBOX_LIMIT = 500;

function toMessage(row: MailboxRow): MailboxMessage {
  return create(MailboxMessageSchema, {
    id: row.id,
    projectId: row.project_id ?? "",
    to: row.recipients,
    subject: row.subject,
    html: row.html ?? "",
    text: row.text ?? "",
    createdAtMillis: BigInt(row.received_at.getTime()),
    template: row.template ?? "",
    status: row.status ?? "",
    error: row.error ?? "",
    userId: row.user_id ?? "",
    emailId: row.email_id ?? "",
    from: row.from_header,
  });
}

/** The dev mailbox: what the development SMTP server received. Refused in production mode. */
export function createMailboxService(ctx: ServiceContext): ServiceImpl<typeof MailboxService> {
  const { pool, config } = ctx;
  return {
    async listMailboxMessages(req) {
      if (config.mode !== "development") throw statusError(412, "The dev mailbox exists only in development mode.");
      if (req.limit < 0) throw statusError(400, "limit must not be negative.");
      const limit = Math.min(req.limit || DEFAULT_MAILBOX_LIMIT, MAX_MAILBOX_LIMIT);
      const to = normalizeAddress(req.to);
      const rows = await mailboxStore.list(pool, { projectId: req.projectId || undefined, to: to || undefined, limit });
      return { messages: rows.map(toMessage) };
    },
  };
}
