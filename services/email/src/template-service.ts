import type { ServiceImpl } from "@connectrpc/connect";
import { EmailTemplateService } from "@vestibule/proto/email/v1/template_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import { isUuid, newId } from "@vestibule/shared/ids";
import { DEFAULT_LIGHT_THEME_ID, DEFAULT_THEMES, NEW_DRAFT_SOURCE, NEW_TEMPLATE_SOURCE, THEME_PREVIEW_SOURCE } from "./defaults/index.ts";
import type { EmailRuntime } from "./runtime.ts";
import { templateStore } from "./store/template-store.ts";
import { choiceOf, selectionOf } from "./theme-choice.ts";

/** The preview user of template and theme previews. */
export const PREVIEW_USER = { displayName: "Jane Doe" } as const;

const noTemplate = () => statusError(404, "No template found with the given id.");
const noTheme = () => statusError(404, "No theme found with the given id.");
const noDraft = () => statusError(404, "No draft found with the given id.");

/**
 * Themes, templates and drafts of a project (admin only, through the gateway). A template or theme is saved only when
 * it renders (a template with its PreviewVariables in its theme; a theme around a sample template); otherwise the
 * update is refused with EMAIL_RENDERING_ERROR and the stored source stays.
 */
export function createTemplateService(rt: EmailRuntime): ServiceImpl<typeof EmailTemplateService> {
  const { pool } = rt.ctx;

  async function seeded(projectId: string): Promise<void> {
    await rt.templates.ensureSeeded(projectId);
  }

  return {
    async listEmailTemplates(req) {
      await seeded(req.projectId);
      const rows = await templateStore.listTemplates(pool, req.projectId);
      return {
        templates: rows.map((t) => ({
          id: t.id,
          displayName: t.display_name,
          tsxSource: t.tsx_source,
          theme: selectionOf(t.theme_mode, t.theme_id),
          type: t.type ?? "",
        })),
      };
    },

    async createEmailTemplate(req) {
      await seeded(req.projectId);
      const id = newId();
      await templateStore.insertTemplate(pool, req.projectId, { id, displayName: req.displayName, tsxSource: NEW_TEMPLATE_SOURCE });
      return { id };
    },

    async updateEmailTemplate(req) {
      await seeded(req.projectId);
      const template = await rt.templates.getTemplate(pool, req.projectId, req.templateId);
      if (!template) throw noTemplate();
      const settings = await rt.settings.get(req.projectId);
      const choice = req.setTheme ? await choiceOf(pool, req.projectId, req.theme) : { mode: template.theme_mode, themeId: template.theme_id };
      const theme = await rt.templates.resolveTheme(pool, settings, choice);
      const rendered = await rt.renderer.render({
        templateSource: req.tsxSource,
        themeSource: theme?.tsx_source,
        user: PREVIEW_USER,
        project: { displayName: settings.displayName },
        previewVariables: true,
      });
      if (!(await templateStore.updateTemplate(pool, req.projectId, template.id, req.tsxSource, req.setTheme ? choice : undefined))) throw noTemplate();
      return { renderedHtml: rendered.html };
    },

    async listEmailThemes(req) {
      await seeded(req.projectId);
      const rows = await templateStore.listThemes(pool, req.projectId);
      return { themes: rows.map((t) => ({ id: t.id, displayName: t.display_name, tsxSource: "" })) };
    },

    async createEmailTheme(req) {
      await seeded(req.projectId);
      const id = newId();
      const starter = DEFAULT_THEMES.find((t) => t.id === DEFAULT_LIGHT_THEME_ID)!.tsxSource;
      await templateStore.insertTheme(pool, req.projectId, { id, displayName: req.displayName, tsxSource: starter });
      return { id };
    },

    async getEmailTheme(req) {
      await seeded(req.projectId);
      const theme = isUuid(req.themeId) ? await templateStore.getTheme(pool, req.projectId, req.themeId) : undefined;
      if (!theme) throw noTheme();
      return { theme: { id: theme.id, displayName: theme.display_name, tsxSource: theme.tsx_source } };
    },

    async updateEmailTheme(req) {
      await seeded(req.projectId);
      const theme = isUuid(req.themeId) ? await templateStore.getTheme(pool, req.projectId, req.themeId) : undefined;
      if (!theme) throw noTheme();
      // An empty source would wipe the theme (it renders as "no theme"): refused like one that does not render.
      if (!req.tsxSource.trim()) throw knownError("EMAIL_RENDERING_ERROR", { error: "The theme's source is empty." });
      const settings = await rt.settings.get(req.projectId);
      await rt.renderer.render({
        templateSource: THEME_PREVIEW_SOURCE,
        themeSource: req.tsxSource,
        user: PREVIEW_USER,
        project: { displayName: settings.displayName },
        unsubscribeLink: "https://example.com/unsubscribe",
      });
      const updated = await templateStore.updateTheme(pool, req.projectId, theme.id, req.tsxSource);
      if (!updated) throw noTheme();
      return { displayName: updated.display_name };
    },

    async listEmailDrafts(req) {
      const rows = await templateStore.listDrafts(pool, req.projectId);
      return {
        drafts: rows.map((d) => ({
          id: d.id,
          displayName: d.display_name,
          tsxSource: d.tsx_source,
          theme: selectionOf(d.theme_mode, d.theme_id),
          sentAtMillis: d.sent_at ? BigInt(d.sent_at.getTime()) : 0n,
        })),
      };
    },

    async createEmailDraft(req) {
      await seeded(req.projectId);
      const id = newId();
      const theme = await choiceOf(pool, req.projectId, req.theme);
      await templateStore.insertDraft(pool, req.projectId, { id, displayName: req.displayName, tsxSource: req.tsxSource ?? NEW_DRAFT_SOURCE, theme });
      return { id };
    },

    async getEmailDraft(req) {
      const d = isUuid(req.draftId) ? await templateStore.getDraft(pool, req.projectId, req.draftId) : undefined;
      if (!d) throw noDraft();
      return {
        draft: {
          id: d.id,
          displayName: d.display_name,
          tsxSource: d.tsx_source,
          theme: selectionOf(d.theme_mode, d.theme_id),
          sentAtMillis: d.sent_at ? BigInt(d.sent_at.getTime()) : 0n,
        },
      };
    },

    async updateEmailDraft(req) {
      if (!isUuid(req.draftId)) throw noDraft();
      await seeded(req.projectId);
      const theme = req.setTheme ? await choiceOf(pool, req.projectId, req.theme) : undefined;
      const ok = await templateStore.updateDraft(pool, req.projectId, req.draftId, { displayName: req.displayName, tsxSource: req.tsxSource, theme });
      if (!ok) throw noDraft();
      return {};
    },

    async deleteEmailTemplate(req) {
      await seeded(req.projectId);
      const template = await rt.templates.getTemplate(pool, req.projectId, req.templateId);
      if (!template || !(await templateStore.deleteTemplate(pool, req.projectId, template.id))) throw noTemplate();
      return {};
    },

    async deleteEmailTheme(req) {
      await seeded(req.projectId);
      const settings = await rt.settings.get(req.projectId);
      if (req.themeId === settings.selectedThemeId) throw statusError(400, "The project's selected theme cannot be deleted; select another theme first.");
      if (!isUuid(req.themeId) || !(await templateStore.deleteTheme(pool, req.projectId, req.themeId))) throw noTheme();
      return {};
    },

    async deleteEmailDraft(req) {
      if (!isUuid(req.draftId) || !(await templateStore.deleteDraft(pool, req.projectId, req.draftId))) throw noDraft();
      return {};
    },
  };
}
