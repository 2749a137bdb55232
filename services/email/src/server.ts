import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MailboxService } from "@vestibule/proto/email/v1/mailbox_service";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { startEmailRequestedConsumer } from "./email-requested.ts";
import { createMailboxService } from "./mailbox-service.ts";

/**
 * The email service (e-mail delivery, themes, templates, drafts and notification preferences).
 * So far: records every e-mail the platform asks for (auth.email.requested.v1) in `emails`, and lists them
 * (MailboxService, the dev mailbox). In development a recorded e-mail counts as sent; in production it waits,
 * `queued`, for the SMTP sender of a later issue.
 */
export const emailService: ServiceDefinition = {
  name: "email",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [MailboxService.typeName],
  routes(router, ctx) {
    router.service(MailboxService, createMailboxService(ctx));
  },
  async start(ctx) {
    return startEmailRequestedConsumer(ctx);
  },
};
