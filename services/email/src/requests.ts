import { isKnownError, fromConnectError } from "@vestibule/shared/errors";
import type { Queryable } from "@vestibule/shared/db";
import { isUuid, newId } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import { categoryByName, type NotificationCategory } from "./domain/categories.ts";
import { sealBody } from "./bodies.ts";
import { checkRequest, isSystemTemplateType, newEmail, type EmailRequest } from "./domain/email-request.ts";
import type { ProjectEmailSettings } from "./domain/settings.ts";
import type { ServiceContext } from "@vestibule/shared/service";
import type { DeliveryQueue } from "./delivery.ts";
import type { IdentityClients } from "./peers.ts";
import type { ProjectSettingsCache } from "./project-settings.ts";
import type { EmailRenderer } from "./render/renderer.ts";
import type { ProjectTemplates } from "./templates.ts";
import { emailStore, type EmailRow } from "./store/email-store.ts";
import { preferenceStore } from "./store/preference-store.ts";
import { templateStore } from "./store/template-store.ts";

/** What recording a request needs of the e-mail runtime (which builds this class, so it is named here, not imported). */
export interface EmailRequestDeps {
  readonly ctx: ServiceContext;
  readonly identity: IdentityClients;
  readonly settings: ProjectSettingsCache;
  readonly templates: ProjectTemplates;
  readonly renderer: EmailRenderer;
  /** Set once the service started; read at each request. */
  readonly delivery: DeliveryQueue | undefined;
}

export type RecordOutcome = { readonly row: EmailRow | undefined } | { readonly skipped: "category_disabled" };

/**
 * Turns requested e-mails into queued rows: checks them, applies the recipient's notification preferences (nothing
 * is recorded for a category the user turned off), renders the project's template for system e-mails (falling back
 * to the producer's pre-rendered body when the template is missing or fails), adds an unsubscribe link to mail in a
 * category that can be turned off, and inserts the row (which wakes the senders).
 */
export class EmailRequests {
  constructor(private readonly rt: EmailRequestDeps) {}

  /** True when the user turned this category off (Transactional cannot be). */
  async isOptedOut(db: Queryable, projectId: string, userId: string | null, category: NotificationCategory): Promise<boolean> {
    if (!userId || !isUuid(userId) || !category.canDisable) return false;
    return (await preferenceStore.forUser(db, projectId, userId)).get(category.id) === false;
  }

  /** A new unsubscribe link for the user and category (in the caller's transaction). */
  async unsubscribeLink(db: Queryable, projectId: string, userId: string, category: NotificationCategory): Promise<string> {
    const token = randomCode(45);
    await preferenceStore.insertToken(db, { tokenHash: hashSecret(token), projectId, userId, categoryId: category.id });
    return `${this.rt.ctx.config.publicUrl}/api/v1/emails/unsubscribe-link?code=${token}`;
  }

  /** The user's display name for templates; null when unknown or gone. */
  async displayNameOf(projectId: string, userId: string | null): Promise<string | null> {
    if (!userId || !isUuid(userId)) return null;
    try {
      const { user } = await this.rt.identity.users.getUser({ projectId, userId });
      return user?.displayName ?? null;
    } catch (err) {
      if (isKnownError(fromConnectError(err), "USER_NOT_FOUND")) return null;
      throw err;
    }
  }

  /** `problems`: reasons found before, which make the e-mail `failed` (e.g. its sealed content did not open). */
  async record(db: Queryable, req: EmailRequest, opts: { eventId?: string | null; envelopeProjectId?: string; problems?: readonly string[] } = {}): Promise<RecordOutcome> {
    const { log } = this.rt.ctx;
    const checked = checkRequest(req, opts.envelopeProjectId);
    const category = categoryByName(checked.notificationCategory);
    const userId = req.userId && isUuid(req.userId) ? req.userId : null;
    if (checked.problems.length === 0 && category && (await this.isOptedOut(db, checked.projectId, userId, category))) {
      log.info({ project_id: checked.projectId, user_id: userId, category: category.name, template: req.template }, "e-mail not sent: category turned off");
      return { skipped: "category_disabled" };
    }
    let body = { subject: req.subject, html: req.html || null, text: req.text || null };
    const problems: string[] = [...(opts.problems ?? [])];
    if (checked.problems.length === 0 && problems.length === 0 && isSystemTemplateType(req.template)) {
      let settings: ProjectEmailSettings | undefined;
      try {
        settings = await this.rt.settings.get(checked.projectId);
      } catch (err) {
        // Anything else (identity down) is thrown: the event is delivered again later.
        if (!isKnownError(fromConnectError(err), "PROJECT_NOT_FOUND")) throw err;
        problems.push("the project does not exist");
      }
      if (settings) {
        await this.rt.templates.ensureSeeded(settings.projectId);
        const template = await templateStore.templateOfType(db, settings.projectId, req.template);
        if (template) {
          const theme = await this.rt.templates.resolveTheme(db, settings, { mode: template.theme_mode, themeId: template.theme_id });
          const unsubscribeLink = userId && category?.canDisable ? await this.unsubscribeLink(db, settings.projectId, userId, category) : undefined;
          try {
            const rendered = await this.rt.renderer.render({
              templateSource: template.tsx_source,
              themeSource: theme?.tsx_source,
              user: { displayName: await this.displayNameOf(settings.projectId, userId) },
              project: { displayName: settings.displayName },
              variables: checked.variables,
              unsubscribeLink,
            });
            body = { subject: rendered.subject ?? req.subject, html: rendered.html, text: rendered.text };
          } catch (err) {
            const reason = isKnownError(err, "EMAIL_RENDERING_ERROR") ? err.details.error : (err as Error).message;
            if (body.html || body.text) {
              log.warn({ project_id: settings.projectId, template: req.template, error: reason }, "the project's template failed to render; sending the default body");
            } else {
              problems.push(`the project's ${req.template} template failed to render: ${reason}`);
            }
          }
        }
      }
    }
    const email = newEmail(req, checked, body, problems);
    const id = newId();
    // A failed e-mail keeps no body; a queued one keeps it encrypted until it is sent.
    const stored = email.status === "queued" ? await sealBody(this.rt.ctx.secrets, id, email) : { html: null, text: null };
    const row = await emailStore.insert(db, { ...email, ...stored, id, eventId: opts.eventId ?? null });
    if (row) {
      const fields = { email_id: row.id, project_id: row.project_id, template: row.template, status: row.status };
      if (row.status === "failed") log.warn({ ...fields, error: row.error }, "requested e-mail cannot be sent");
      else log.info(fields, "e-mail queued");
      this.rt.delivery?.kick();
    }
    return { row };
  }
}
