import { Type } from "typebox";
import { Obj, OneOf, Optional, Uuid } from "../../validation/index.ts";
import { schemaError, themeSelection, type ThemeIdInput } from "../../views/email.ts";
import { defineRoute } from "../route.ts";

/** `theme_id`: a theme's UUID, false (no theme) or null (the project's theme); checked by themeSelection. */
export const ThemeId = Type.Unsafe<ThemeIdInput>({ type: ["string", "boolean", "null"], description: "A theme's UUID, false for no theme, null for the project's theme." });

export const sendEmailRoute = defineRoute({
  method: "POST",
  path: "/emails/send-email",
  summary: "Send an e-mail (HTML, a template or a draft) to users; needs the project's own SMTP server",
  tags: ["Emails"],
  access: ["server", "admin"],
  schemas: {
    body: Obj({
      user_ids: Optional(Type.Array(Uuid())),
      all_users: Optional(Type.Boolean()),
      subject: Optional(Type.String()),
      notification_category_name: Optional(Type.String()),
      theme_id: Optional(ThemeId),
      html: Optional(Type.String()),
      template_id: Optional(Uuid()),
      variables: Optional(Type.Record(Type.String(), Type.Unknown())),
      draft_id: Optional(Uuid()),
      scheduled_at_millis: Optional(Type.Integer({ minimum: 0, description: "Deliver at this time (ms since the epoch) instead of now." })),
    }),
  },
  async handler({ auth, body, clients, req }) {
    const byIds = body.user_ids !== undefined;
    const toAll = body.all_users === true;
    if (byIds === toAll || (body.all_users === false && !byIds)) schemaError(req, "Exactly one of user_ids or all_users must be provided");
    const kinds = [body.html !== undefined, body.template_id !== undefined, body.draft_id !== undefined].filter(Boolean).length;
    if (kinds !== 1) schemaError(req, "Exactly one of html, template_id or draft_id must be provided");
    if (body.variables !== undefined && body.template_id === undefined) schemaError(req, "body.variables can only be given with template_id");
    const content =
      body.html !== undefined
        ? { case: "html" as const, value: body.html }
        : body.template_id !== undefined
          ? { case: "template" as const, value: { templateId: body.template_id, variablesJson: JSON.stringify(body.variables ?? {}) } }
          : { case: "draftId" as const, value: body.draft_id! };
    const { results } = await clients.emails.sendEmail({
      projectId: auth.projectId,
      userIds: body.user_ids ?? [],
      allUsers: toAll,
      subject: body.subject,
      notificationCategoryName: body.notification_category_name,
      theme: themeSelection(req, body.theme_id),
      content: content as never,
      scheduledAtMillis: body.scheduled_at_millis === undefined ? undefined : BigInt(body.scheduled_at_millis),
    });
    return { json: { results: results.map((r) => (r.userEmail !== undefined ? { user_id: r.userId, user_email: r.userEmail } : { user_id: r.userId })) } };
  },
});

export const renderEmailRoute = defineRoute({
  method: "POST",
  path: "/emails/render-email",
  summary: "Render a template (stored or given as TSX) in a theme (stored, given as TSX, or none)",
  tags: ["Emails"],
  access: ["admin"],
  schemas: {
    body: Obj({
      template_id: Optional(Uuid()),
      template_tsx_source: Optional(Type.String()),
      theme_id: Optional(ThemeId),
      theme_tsx_source: Optional(Type.String()),
      editable_markers: Optional(Type.Boolean()),
      editable_source: Optional(OneOf(["template", "theme", "both"])),
    }),
  },
  async handler({ auth, body, clients, req }) {
    if ((body.template_id === undefined) === (body.template_tsx_source === undefined)) {
      schemaError(req, "Exactly one of template_id or template_tsx_source must be provided");
    }
    if (body.theme_tsx_source !== undefined && body.theme_id !== undefined && body.theme_id !== null) {
      schemaError(req, "At most one of theme_id or theme_tsx_source may be provided");
    }
    const selection = themeSelection(req, body.theme_id);
    const theme =
      body.theme_tsx_source !== undefined
        ? { case: "themeTsxSource" as const, value: body.theme_tsx_source }
        : selection?.selection.case === "themeId"
          ? { case: "themeId" as const, value: selection.selection.value }
          : selection?.selection.case === "noTheme"
            ? { case: "noTheme" as const, value: true }
            : { case: undefined };
    const template =
      body.template_id !== undefined
        ? { case: "templateId" as const, value: body.template_id }
        : { case: "templateTsxSource" as const, value: body.template_tsx_source! };
    const r = await clients.emails.renderEmail({
      projectId: auth.projectId,
      template,
      theme,
      editableMarkers: body.editable_markers ?? false,
      editableSource: body.editable_source ?? "",
    });
    return {
      json: {
        html: r.html,
        ...(r.subject !== undefined ? { subject: r.subject } : {}),
        ...(r.notificationCategory !== undefined ? { notification_category: r.notificationCategory } : {}),
      },
    };
  },
});

export const unsubscribeLinkRoute = defineRoute({
  method: "GET",
  path: "/emails/unsubscribe-link",
  summary: "The unsubscribe link of category e-mails: turns the category off for the user it was sent to",
  tags: ["Emails"],
  access: "none",
  schemas: { query: Obj({ code: Type.String() }) },
  async handler({ query, clients }) {
    const r = await clients.notificationPreferences.unsubscribe({ token: query.code });
    return { text: `You are unsubscribed: you will no longer receive ${r.notificationCategoryName} e-mails from this project.` };
  },
});
