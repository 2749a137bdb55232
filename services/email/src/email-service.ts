import type { ServiceImpl } from "@connectrpc/connect";
import { EmailService, type SendEmailResult } from "@vestibule/proto/email/v1/email_service";
import type { User } from "@vestibule/proto/identity/v1/user";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import { isRedirectUrlTrusted } from "@vestibule/shared/urls";
import { sealBody } from "./bodies.ts";
import { categoryByName, TRANSACTIONAL, type NotificationCategory } from "./domain/categories.ts";
import { normalizeAddress } from "./domain/email-request.ts";
import { targetOf } from "./delivery.ts";
import type { EmailRuntime } from "./runtime.ts";
import { classifySmtpError, egressAllowList, fromHeader, sendSmtp } from "./smtp.ts";
import { assertInvitationQuota } from "./invitation-quota.ts";
import { createOutboxRpcs, sentEmail } from "./outbox-service.ts";
import { emailStore } from "./store/email-store.ts";
import { templateStore, type ThemeChoice } from "./store/template-store.ts";
import { PREVIEW_USER } from "./template-service.ts";
import { choiceOf, PROJECT_THEME } from "./theme-choice.ts";

export const DEFAULT_SENT_LIMIT = 100;
export const MAX_SENT_LIMIT = 1000;
/** Time a test e-mail may take at most. */
const TEST_EMAIL_TIMEOUT_MS = 10_000;
const USERS_PAGE = 500;

function parseVariables(json: string): Record<string, unknown> {
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw statusError(400, "variables must be a JSON object.");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw statusError(400, "variables must be a JSON object.");
  return parsed as Record<string, unknown>;
}

/**
 * Sending e-mail: requests from other services (RPC form of the events), the admin send API, test e-mails, sign-in
 * invitations, the e-mail log and previews.
 */
export function createEmailService(rt: EmailRuntime): ServiceImpl<typeof EmailService> {
  const { pool } = rt.ctx;

  /** The users an admin send goes to: the given ids (each must exist) or every non-anonymous user. */
  async function recipients(projectId: string, userIds: readonly string[], allUsers: boolean): Promise<User[]> {
    const users = rt.identity.users;
    if (!allUsers) {
      const out: User[] = [];
      for (const userId of [...new Set(userIds)]) {
        if (!isUuid(userId)) throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: userId });
        const { user } = await users.getUser({ projectId, userId, idFromBody: true });
        out.push(user!);
      }
      return out;
    }
    const out: User[] = [];
    let cursor = "";
    do {
      // Every registered user, restricted ones included (as before restrictions existed).
      const page = await users.listUsers({ projectId, limit: USERS_PAGE, cursor, includeAnonymous: false, includeRestricted: true });
      out.push(...page.users);
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  }

  return {
    ...createOutboxRpcs(rt),

    async requestEmail(req) {
      const outcome = await rt.requests.record(pool, req);
      return { emailId: "row" in outcome ? (outcome.row?.id ?? "") : "" };
    },

    async listSentEmails(req) {
      if (req.limit < 0) throw statusError(400, "limit must not be negative.");
      const rows = await emailStore.list(pool, { projectId: req.projectId, limit: Math.min(req.limit || DEFAULT_SENT_LIMIT, MAX_SENT_LIMIT) });
      return { emails: rows.map(sentEmail) };
    },

    async sendEmail(req) {
      const settings = await rt.settings.get(req.projectId);
      if (settings.server.isShared) throw knownError("REQUIRES_CUSTOM_EMAIL_SERVER");
      if (req.allUsers && req.userIds.length > 0) throw statusError(400, "Exactly one of user_ids or all_users must be given.");
      // `user_ids: []` (the gateway told it from a missing user_ids): nobody to send to, as the published backend answers.
      if (!req.allUsers && req.userIds.length === 0) return { results: [] };
      const scheduledAt = req.scheduledAtMillis !== undefined && req.scheduledAtMillis > BigInt(Date.now()) ? new Date(Number(req.scheduledAtMillis)) : undefined;
      await rt.templates.ensureSeeded(req.projectId);

      let templateSource: string | undefined;
      let bodyHtml: string | undefined;
      let choice: ThemeChoice = PROJECT_THEME;
      let variables: Record<string, unknown> = {};
      let draftId: string | undefined;
      const content = req.content;
      if (content.case === "html") {
        bodyHtml = content.value;
      } else if (content.case === "template") {
        const t = await rt.templates.getTemplate(pool, req.projectId, content.value.templateId);
        if (!t) throw statusError(400, "No template found with the given template_id.");
        templateSource = t.tsx_source;
        choice = { mode: t.theme_mode, themeId: t.theme_id };
        variables = parseVariables(content.value.variablesJson);
      } else if (content.case === "draftId") {
        const d = isUuid(content.value) ? await templateStore.getDraft(pool, req.projectId, content.value) : undefined;
        if (!d) throw statusError(400, "No draft found with the given draft_id.");
        templateSource = d.tsx_source;
        choice = { mode: d.theme_mode, themeId: d.theme_id };
        draftId = d.id;
      } else {
        throw statusError(400, "One of html, template_id or draft_id must be given.");
      }
      if (req.theme?.selection.case !== undefined) choice = await choiceOf(pool, req.projectId, req.theme);
      let explicit: NotificationCategory | undefined;
      if (req.notificationCategoryName !== undefined) {
        explicit = categoryByName(req.notificationCategoryName);
        if (!explicit) throw statusError(400, `Notification category "${req.notificationCategoryName}" does not exist.`);
      }
      const theme = await rt.templates.resolveTheme(pool, settings, choice);
      const users = await recipients(req.projectId, req.userIds, req.allUsers);
      const project = { displayName: settings.displayName };
      const render = (user: User, unsubscribeLink: string | undefined) =>
        rt.renderer.render({
          templateSource,
          bodyHtml,
          themeSource: theme?.tsx_source,
          user: { displayName: user.displayName ?? null },
          project,
          variables,
          unsubscribeLink,
        });

      const results: SendEmailResult[] = [];
      await withTransaction(pool, async (tx) => {
        // The category decides the unsubscribe link: the one given, else the one the template declares.
        let category = explicit;
        for (const user of users) {
          const address = user.primaryEmail ? normalizeAddress(user.primaryEmail) : undefined;
          results.push({ $typeName: "vestibule.email.v1.SendEmailResult", userId: user.id, userEmail: address });
          if (!address) continue;
          if (!category) {
            const declared = (await render(user, undefined)).notificationCategory;
            category = declared === undefined ? TRANSACTIONAL : categoryByName(declared);
            if (!category) throw knownError("EMAIL_RENDERING_ERROR", { error: `The template declares an unknown notification category "${declared}".` });
          }
          if (await rt.requests.isOptedOut(tx, req.projectId, user.id, category)) continue;
          const link = category.canDisable ? await rt.requests.unsubscribeLink(tx, req.projectId, user.id, category) : undefined;
          const rendered = await render(user, link);
          const subject = req.subject ?? rendered.subject;
          if (subject === undefined) throw statusError(400, "The e-mail has no subject: give one, or declare it with <Subject> in the template.");
          const id = newId();
          const sealed = await sealBody(rt.ctx.secrets, id, { html: rendered.html, text: rendered.text });
          await emailStore.insert(tx, {
            id,
            eventId: null,
            projectId: req.projectId,
            recipients: [address],
            subject,
            html: sealed.html,
            text: sealed.text,
            template: null,
            notificationCategory: category.name,
            userId: user.id,
            status: "queued",
            error: null,
            scheduledAt,
          });
        }
        if (draftId) await templateStore.markDraftSent(tx, req.projectId, draftId);
      });
      rt.delivery?.kick();
      return { results };
    },

    async sendTestEmail(req) {
      const c = req.config;
      if (!c) throw statusError(400, "email_config is required.");
      const settings = await rt.settings.get(req.projectId);
      const target = targetOf(
        {
          ...settings,
          server: { isShared: false, host: c.host, port: c.port, username: c.username, password: c.password, senderName: c.senderName, senderEmail: c.senderEmail },
        },
        undefined,
      );
      if ("problem" in target) return { success: false, errorMessage: target.problem };
      const text = `This is a test e-mail from ${settings.displayName}. The e-mail server settings work.`;
      try {
        await sendSmtp(
          { ...target, from: fromHeader(c.senderName, c.senderEmail) },
          { to: [req.recipientEmail], subject: `Test e-mail from ${settings.displayName}`, html: `<p>${text.replace(/[<>&]/g, "")}</p>`, text },
          Math.min(rt.config.smtpTimeoutMs, TEST_EMAIL_TIMEOUT_MS),
          egressAllowList(rt.config.egressAllow),
        );
        return { success: true, errorMessage: "" };
      } catch (err) {
        return { success: false, errorMessage: classifySmtpError(err).message };
      }
    },

    async sendSignInInvitation(req) {
      const settings = await rt.settings.get(req.projectId);
      const trust = { allowLocalhost: settings.allowLocalhost, trustedDomains: settings.trustedDomains.map((baseUrl) => ({ baseUrl })) };
      if (!isRedirectUrlTrusted(req.callbackUrl, trust)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
      const subject = `You have been invited to sign in to ${settings.displayName}`;
      const outcome = await withTransaction(pool, async (tx) => {
        await assertInvitationQuota(tx, req.projectId, normalizeAddress(req.email));
        return rt.requests.record(tx, {
          projectId: req.projectId,
          to: req.email,
          subject,
          html: "",
          text: `${subject}\n\nOpen this link to get started: ${req.callbackUrl}\n`,
          notificationCategory: "Transactional",
          template: "sign_in_invitation",
          userId: "",
          variablesJson: JSON.stringify({ link: req.callbackUrl }),
        });
      });
      if ("row" in outcome && outcome.row?.status === "failed") throw statusError(400, outcome.row.error ?? "The invitation cannot be sent.");
      return {};
    },

    async renderEmail(req) {
      const settings = await rt.settings.get(req.projectId);
      await rt.templates.ensureSeeded(req.projectId);
      let templateSource: string;
      let choice: ThemeChoice = PROJECT_THEME;
      if (req.template.case === "templateId") {
        const t = await rt.templates.getTemplate(pool, req.projectId, req.template.value);
        // Stack's render-email answer (its e2e snapshot; issue 13): 400, not the template routes' 404.
        if (!t) throw statusError(400, "No template found with given id");
        templateSource = t.tsx_source;
        choice = { mode: t.theme_mode, themeId: t.theme_id };
      } else if (req.template.case === "templateTsxSource") {
        templateSource = req.template.value;
      } else {
        throw statusError(400, "One of template_id or template_tsx_source must be given.");
      }
      let themeSource: string | null | undefined;
      if (req.theme.case === "themeTsxSource") {
        themeSource = req.theme.value;
      } else {
        if (req.theme.case === "themeId") choice = await choiceOf(pool, req.projectId, { $typeName: "vestibule.email.v1.ThemeSelection", selection: { case: "themeId", value: req.theme.value } });
        if (req.theme.case === "noTheme" && req.theme.value) choice = { mode: "none", themeId: null };
        themeSource = (await rt.templates.resolveTheme(pool, settings, choice))?.tsx_source;
      }
      const rendered = await rt.renderer.render({
        templateSource,
        themeSource,
        user: PREVIEW_USER,
        project: { displayName: settings.displayName },
        previewVariables: true,
        unsubscribeLink: undefined,
      });
      return { html: rendered.html, subject: rendered.subject, notificationCategory: rendered.notificationCategory };
    },
  };
}
