import { Type } from "typebox";
import { CallbackUrl, Email, Obj, Optional, Uuid } from "../../validation/index.ts";
import { sentEmailView, themeIdView, themeSelection } from "../../views/email.ts";
import { defineRoute } from "../route.ts";
import { ThemeId } from "./emails.ts";

const ADMIN = ["admin"] as const;
const tags = ["Emails"];

export const listEmailTemplatesRoute = defineRoute({
  method: "GET",
  path: "/internal/email-templates",
  summary: "The project's e-mail templates (the system e-mails' and the admins' own)",
  tags,
  access: ADMIN,
  schemas: {},
  async handler({ auth, clients }) {
    const { templates } = await clients.emailTemplates.listEmailTemplates({ projectId: auth.projectId });
    return {
      json: { templates: templates.map((t) => ({ id: t.id, display_name: t.displayName, tsx_source: t.tsxSource, theme_id: themeIdView(t.theme) })) },
    };
  },
});

export const createEmailTemplateRoute = defineRoute({
  method: "POST",
  path: "/internal/email-templates",
  summary: "Create an e-mail template (starts from a sample source)",
  tags,
  access: ADMIN,
  schemas: { body: Obj({ display_name: Type.String() }) },
  async handler({ auth, body, clients }) {
    const { id } = await clients.emailTemplates.createEmailTemplate({ projectId: auth.projectId, displayName: body.display_name });
    return { json: { id } };
  },
});

export const updateEmailTemplateRoute = defineRoute({
  method: "PATCH",
  path: "/internal/email-templates/:templateId",
  summary: "Replace a template's TSX source (and theme); refused with EMAIL_RENDERING_ERROR when it does not render",
  tags,
  access: ADMIN,
  schemas: { params: Obj({ templateId: Uuid() }), body: Obj({ tsx_source: Type.String(), theme_id: Optional(ThemeId) }) },
  async handler({ auth, params, body, clients, req }) {
    const { renderedHtml } = await clients.emailTemplates.updateEmailTemplate({
      projectId: auth.projectId,
      templateId: params.templateId,
      tsxSource: body.tsx_source,
      setTheme: body.theme_id !== undefined,
      theme: themeSelection(req, body.theme_id),
    });
    return { json: { rendered_html: renderedHtml } };
  },
});

export const listEmailThemesRoute = defineRoute({
  method: "GET",
  path: "/internal/email-themes",
  summary: "The project's e-mail themes",
  tags,
  access: ADMIN,
  schemas: {},
  async handler({ auth, clients }) {
    const { themes } = await clients.emailTemplates.listEmailThemes({ projectId: auth.projectId });
    return { json: { themes: themes.map((t) => ({ id: t.id, display_name: t.displayName })) } };
  },
});

export const createEmailThemeRoute = defineRoute({
  method: "POST",
  path: "/internal/email-themes",
  summary: "Create an e-mail theme (starts from the default theme's source)",
  tags,
  access: ADMIN,
  schemas: { body: Obj({ display_name: Type.String() }) },
  async handler({ auth, body, clients }) {
    const { id } = await clients.emailTemplates.createEmailTheme({ projectId: auth.projectId, displayName: body.display_name });
    return { json: { id } };
  },
});

export const getEmailThemeRoute = defineRoute({
  method: "GET",
  path: "/internal/email-themes/:id",
  summary: "An e-mail theme with its TSX source",
  tags,
  access: ADMIN,
  schemas: { params: Obj({ id: Uuid() }) },
  async handler({ auth, params, clients }) {
    const { theme } = await clients.emailTemplates.getEmailTheme({ projectId: auth.projectId, themeId: params.id });
    return { json: { display_name: theme!.displayName, tsx_source: theme!.tsxSource } };
  },
});

export const updateEmailThemeRoute = defineRoute({
  method: "PATCH",
  path: "/internal/email-themes/:id",
  summary: "Replace a theme's TSX source; refused with EMAIL_RENDERING_ERROR when it does not render",
  tags,
  access: ADMIN,
  schemas: { params: Obj({ id: Uuid() }), body: Obj({ tsx_source: Type.String() }) },
  async handler({ auth, params, body, clients }) {
    const { displayName } = await clients.emailTemplates.updateEmailTheme({ projectId: auth.projectId, themeId: params.id, tsxSource: body.tsx_source });
    return { json: { display_name: displayName } };
  },
});

function draftView(d: { id: string; displayName: string; tsxSource: string; theme?: Parameters<typeof themeIdView>[0]; sentAtMillis: bigint }) {
  return {
    id: d.id,
    display_name: d.displayName,
    tsx_source: d.tsxSource,
    theme_id: themeIdView(d.theme),
    sent_at_millis: d.sentAtMillis > 0n ? Number(d.sentAtMillis) : null,
  };
}

export const listEmailDraftsRoute = defineRoute({
  method: "GET",
  path: "/internal/email-drafts",
  summary: "The project's e-mail drafts",
  tags,
  access: ADMIN,
  schemas: {},
  async handler({ auth, clients }) {
    const { drafts } = await clients.emailTemplates.listEmailDrafts({ projectId: auth.projectId });
    return { json: { drafts: drafts.map(draftView) } };
  },
});

export const createEmailDraftRoute = defineRoute({
  method: "POST",
  path: "/internal/email-drafts",
  summary: "Create an e-mail draft",
  tags,
  access: ADMIN,
  schemas: { body: Obj({ display_name: Type.String(), theme_id: Optional(ThemeId), tsx_source: Optional(Type.String()) }) },
  async handler({ auth, body, clients, req }) {
    const { id } = await clients.emailTemplates.createEmailDraft({
      projectId: auth.projectId,
      displayName: body.display_name,
      tsxSource: body.tsx_source,
      theme: themeSelection(req, body.theme_id),
    });
    return { json: { id } };
  },
});

export const getEmailDraftRoute = defineRoute({
  method: "GET",
  path: "/internal/email-drafts/:id",
  summary: "An e-mail draft",
  tags,
  access: ADMIN,
  schemas: { params: Obj({ id: Uuid() }) },
  async handler({ auth, params, clients }) {
    const { draft } = await clients.emailTemplates.getEmailDraft({ projectId: auth.projectId, draftId: params.id });
    return { json: draftView(draft!) };
  },
});

export const updateEmailDraftRoute = defineRoute({
  method: "PATCH",
  path: "/internal/email-drafts/:id",
  summary: "Update an e-mail draft",
  tags,
  access: ADMIN,
  schemas: {
    params: Obj({ id: Uuid() }),
    body: Obj({ display_name: Optional(Type.String()), theme_id: Optional(ThemeId), tsx_source: Optional(Type.String()) }),
  },
  async handler({ auth, params, body, clients, req }) {
    await clients.emailTemplates.updateEmailDraft({
      projectId: auth.projectId,
      draftId: params.id,
      displayName: body.display_name,
      tsxSource: body.tsx_source,
      setTheme: body.theme_id !== undefined,
      theme: themeSelection(req, body.theme_id),
    });
    return { json: { ok: "ok" } };
  },
});

export const sendTestEmailRoute = defineRoute({
  method: "POST",
  path: "/internal/send-test-email",
  summary: "Send a test e-mail with the given SMTP settings; reports the SMTP error text",
  tags,
  access: ADMIN,
  schemas: {
    body: Obj({
      recipient_email: Email(),
      email_config: Obj({
        host: Type.String(),
        port: Type.Integer({ minimum: 0, maximum: 65535 }),
        username: Type.String(),
        password: Type.String(),
        sender_name: Type.String(),
        sender_email: Email(),
      }),
    }),
  },
  async handler({ auth, body, clients }) {
    const c = body.email_config;
    const r = await clients.emails.sendTestEmail({
      projectId: auth.projectId,
      recipientEmail: body.recipient_email,
      config: { host: c.host, port: c.port, username: c.username, password: c.password, senderName: c.sender_name, senderEmail: c.sender_email },
    });
    return { json: r.success ? { success: true } : { success: false, error_message: r.errorMessage } };
  },
});

export const listSentEmailsRoute = defineRoute({
  method: "GET",
  path: "/internal/emails",
  summary: "The project's e-mails, newest first, with their delivery outcome",
  tags,
  access: ADMIN,
  schemas: {},
  async handler({ auth, clients }) {
    const { emails } = await clients.emails.listSentEmails({ projectId: auth.projectId, limit: 0 });
    return { json: { items: emails.map(sentEmailView), is_paginated: false } };
  },
});

export const sendSignInInvitationRoute = defineRoute({
  method: "POST",
  path: "/internal/send-sign-in-invitation",
  summary: "E-mail an invitation to sign in at callback_url",
  tags,
  access: ["server", "admin"],
  schemas: { body: Obj({ email: Email(), callback_url: CallbackUrl() }) },
  async handler({ auth, body, clients }) {
    await clients.emails.sendSignInInvitation({ projectId: auth.projectId, email: body.email, callbackUrl: body.callback_url });
    return { json: { success: true } };
  },
});

export const deleteEmailTemplateRoute = defineRoute({
  method: "DELETE",
  path: "/internal/email-templates/:templateId",
  summary: "Delete an e-mail template",
  tags,
  access: ADMIN,
  schemas: { params: Obj({ templateId: Uuid() }) },
  async handler({ auth, params, clients }) {
    await clients.emailTemplates.deleteEmailTemplate({ projectId: auth.projectId, templateId: params.templateId });
    return { json: { success: true } };
  },
});

export const deleteEmailThemeRoute = defineRoute({
  method: "DELETE",
  path: "/internal/email-themes/:id",
  summary: "Delete an e-mail theme (templates and drafts that chose it use the project's theme)",
  tags,
  access: ADMIN,
  schemas: { params: Obj({ id: Uuid() }) },
  async handler({ auth, params, clients }) {
    await clients.emailTemplates.deleteEmailTheme({ projectId: auth.projectId, themeId: params.id });
    return { json: { success: true } };
  },
});

export const deleteEmailDraftRoute = defineRoute({
  method: "DELETE",
  path: "/internal/email-drafts/:id",
  summary: "Delete an e-mail draft",
  tags,
  access: ADMIN,
  schemas: { params: Obj({ id: Uuid() }) },
  async handler({ auth, params, clients }) {
    await clients.emailTemplates.deleteEmailDraft({ projectId: auth.projectId, draftId: params.id });
    return { json: { success: true } };
  },
});
