import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmailService } from "@vestibule/proto/email/v1/email_service";
import { MailboxService } from "@vestibule/proto/email/v1/mailbox_service";
import { NotificationPreferenceService } from "@vestibule/proto/email/v1/notification_preference_service";
import { EmailTemplateService } from "@vestibule/proto/email/v1/template_service";
import { WebhookService } from "@vestibule/proto/email/v1/webhook_service";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { DeliveryQueue, type SharedSender } from "./delivery.ts";
import { startDevMailbox } from "./dev-mailbox.ts";
import { startEventConsumers } from "./email-requested.ts";
import { createEmailService } from "./email-service.ts";
import { createMailboxService } from "./mailbox-service.ts";
import { createNotificationService } from "./notification-service.ts";
import { emailRuntime } from "./runtime.ts";
import { targetFromUrl } from "./smtp.ts";
import { createTemplateService } from "./template-service.ts";
import { startWebhooks } from "./webhooks/capability.ts";
import { webhookRuntime } from "./webhooks/runtime.ts";
import { createWebhookService } from "./webhooks/service.ts";

/**
 * The e-mail service: every e-mail of the platform is requested here (auth.email.requested.v1,
 * teams_permissions.email.requested.v1, or RPC), rendered with the project's TSX template and theme in a sandbox,
 * recorded, and delivered over SMTP by a durable queue in Postgres with retries. Also themes, templates, drafts,
 * notification preferences and, in development mode, the dev mailbox: a local SMTP server that is the platform's
 * shared sender and keeps what it receives. Also outgoing webhooks (src/webhooks/). See services/email/README.md.
 */
export const emailService: ServiceDefinition = {
  name: "email",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [EmailService.typeName, EmailTemplateService.typeName, NotificationPreferenceService.typeName, MailboxService.typeName, WebhookService.typeName],
  routes(router, ctx) {
    const rt = emailRuntime(ctx);
    router.service(EmailService, createEmailService(rt));
    router.service(EmailTemplateService, createTemplateService(rt));
    router.service(NotificationPreferenceService, createNotificationService(rt));
    router.service(MailboxService, createMailboxService(ctx));
    router.service(WebhookService, createWebhookService(rt, webhookRuntime(rt)));
  },
  async start(ctx) {
    const rt = emailRuntime(ctx);
    const { config, log } = ctx;
    const stops: (() => Promise<void>)[] = [() => rt.renderer.close()];
    try {
      let shared: SharedSender | undefined;
      if (rt.config.sharedSmtpUrl) {
        const { from: _from, senderConfig: _sc, ...target } = targetFromUrl(rt.config.sharedSmtpUrl, rt.config.sharedSender);
        shared = { target, address: rt.config.sharedSender };
      } else if (config.mode === "development") {
        const mailbox = await startDevMailbox({ pool: ctx.pool, log, port: rt.config.devSmtpPort });
        stops.push(() => mailbox.close());
        shared = { target: { host: mailbox.host, port: mailbox.port, secure: false, ignoreTls: true }, address: rt.config.sharedSender };
        log.info({ smtp_port: mailbox.port }, "dev mailbox listening: the shared sender delivers here (development mode)");
      } else {
        log.warn("no shared e-mail server (VESTIBULE_EMAIL_SHARED_SMTP_URL): projects on the shared sender cannot send e-mail");
      }
      rt.shared = shared;
      const projectEvents = await rt.settings.subscribe(ctx.bus);
      stops.push(() => projectEvents.stop());
      stops.push(await startEventConsumers(rt));
      const delivery = new DeliveryQueue({
        pool: ctx.pool,
        connectionString: config.databaseUrl,
        log,
        secrets: ctx.secrets,
        settings: rt.settings,
        config: rt.config,
        shared,
      });
      await delivery.start();
      rt.delivery = delivery;
      stops.push(() => delivery.stop());
      stops.push(await startWebhooks(rt));
    } catch (err) {
      for (const stop of stops.reverse()) await stop().catch(() => {});
      throw err;
    }
    return async () => {
      for (const stop of [...stops].reverse()) await stop().catch((err) => log.warn({ err }, "email stop step failed"));
    };
  },
};
