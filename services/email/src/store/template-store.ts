import type { Queryable } from "@vestibule/shared/db";
import type { DefaultTemplate, DefaultTheme } from "../defaults/index.ts";

export type ThemeMode = "project" | "none" | "theme";

export interface ThemeRow {
  readonly id: string;
  readonly display_name: string;
  readonly tsx_source: string;
}

export interface TemplateRow {
  readonly id: string;
  readonly display_name: string;
  readonly tsx_source: string;
  readonly theme_mode: ThemeMode;
  readonly theme_id: string | null;
  readonly type: string | null;
}

export interface DraftRow {
  readonly id: string;
  readonly display_name: string;
  readonly tsx_source: string;
  readonly theme_mode: ThemeMode;
  readonly theme_id: string | null;
  readonly sent_at: Date | null;
}

/** A theme choice as stored (`theme_mode`, `theme_id`). */
export interface ThemeChoice {
  readonly mode: ThemeMode;
  readonly themeId: string | null;
}

const TEMPLATE_COLUMNS = "id, display_name, tsx_source, theme_mode, theme_id, type";
const DRAFT_COLUMNS = "id, display_name, tsx_source, theme_mode, theme_id, sent_at";

/** The only SQL about themes, templates and drafts. */
export const templateStore = {
  /**
   * Writes the defaults once per project (true when this call did). Call it in a transaction: a concurrent caller's
   * insert of the marker row then waits until the first commits, so nobody sees the marker without the defaults.
   */
  async seed(db: Queryable, projectId: string, themes: readonly DefaultTheme[], templates: readonly DefaultTemplate[]): Promise<boolean> {
    const { rowCount } = await db.query(`INSERT INTO email_projects (project_id) VALUES ($1) ON CONFLICT DO NOTHING`, [projectId]);
    if (rowCount !== 1) return false;
    for (const t of themes) {
      await db.query(
        // clock_timestamp(): one transaction, yet the listing keeps the defaults' order.
        `INSERT INTO email_themes (project_id, id, display_name, tsx_source, created_at) VALUES ($1, $2, $3, $4, clock_timestamp()) ON CONFLICT DO NOTHING`,
        [projectId, t.id, t.displayName, t.tsxSource],
      );
    }
    for (const t of templates) {
      await db.query(
        `INSERT INTO email_templates (project_id, id, display_name, tsx_source, type, created_at) VALUES ($1, $2, $3, $4, $5, clock_timestamp())
         ON CONFLICT DO NOTHING`,
        [projectId, t.id, t.displayName, t.tsxSource, t.type],
      );
    }
    return true;
  },

  async isSeeded(db: Queryable, projectId: string): Promise<boolean> {
    const { rowCount } = await db.query(`SELECT 1 FROM email_projects WHERE project_id = $1`, [projectId]);
    return rowCount === 1;
  },

  async deleteProject(db: Queryable, projectId: string): Promise<void> {
    for (const table of ["email_templates", "email_drafts", "email_themes", "email_projects", "notification_preferences", "unsubscribe_tokens"]) {
      await db.query(`DELETE FROM ${table} WHERE project_id = $1`, [projectId]);
    }
  },

  // ---- themes
  async listThemes(db: Queryable, projectId: string): Promise<ThemeRow[]> {
    const { rows } = await db.query<ThemeRow>(
      `SELECT id, display_name, tsx_source FROM email_themes WHERE project_id = $1 ORDER BY created_at, display_name, id`,
      [projectId],
    );
    return rows;
  },
  async getTheme(db: Queryable, projectId: string, id: string): Promise<ThemeRow | undefined> {
    const { rows } = await db.query<ThemeRow>(`SELECT id, display_name, tsx_source FROM email_themes WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rows[0];
  },
  async insertTheme(db: Queryable, projectId: string, t: { id: string; displayName: string; tsxSource: string }): Promise<void> {
    await db.query(`INSERT INTO email_themes (project_id, id, display_name, tsx_source) VALUES ($1, $2, $3, $4)`, [projectId, t.id, t.displayName, t.tsxSource]);
  },
  async updateTheme(db: Queryable, projectId: string, id: string, tsxSource: string): Promise<ThemeRow | undefined> {
    const { rows } = await db.query<ThemeRow>(
      `UPDATE email_themes SET tsx_source = $3, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING id, display_name, tsx_source`,
      [projectId, id, tsxSource],
    );
    return rows[0];
  },

  // ---- templates
  async listTemplates(db: Queryable, projectId: string): Promise<TemplateRow[]> {
    const { rows } = await db.query<TemplateRow>(
      `SELECT ${TEMPLATE_COLUMNS} FROM email_templates WHERE project_id = $1 ORDER BY created_at, display_name, id`,
      [projectId],
    );
    return rows;
  },
  async getTemplate(db: Queryable, projectId: string, id: string): Promise<TemplateRow | undefined> {
    const { rows } = await db.query<TemplateRow>(`SELECT ${TEMPLATE_COLUMNS} FROM email_templates WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rows[0];
  },
  async templateOfType(db: Queryable, projectId: string, type: string): Promise<TemplateRow | undefined> {
    const { rows } = await db.query<TemplateRow>(`SELECT ${TEMPLATE_COLUMNS} FROM email_templates WHERE project_id = $1 AND type = $2`, [projectId, type]);
    return rows[0];
  },
  async insertTemplate(db: Queryable, projectId: string, t: { id: string; displayName: string; tsxSource: string }): Promise<void> {
    await db.query(`INSERT INTO email_templates (project_id, id, display_name, tsx_source) VALUES ($1, $2, $3, $4)`, [
      projectId,
      t.id,
      t.displayName,
      t.tsxSource,
    ]);
  },
  async updateTemplate(db: Queryable, projectId: string, id: string, tsxSource: string, theme: ThemeChoice | undefined): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE email_templates SET tsx_source = $3, updated_at = now(),
         theme_mode = COALESCE($4, theme_mode), theme_id = CASE WHEN $4::text IS NULL THEN theme_id ELSE $5::uuid END
       WHERE project_id = $1 AND id = $2`,
      [projectId, id, tsxSource, theme?.mode ?? null, theme?.themeId ?? null],
    );
    return rowCount === 1;
  },

  // ---- drafts
  async listDrafts(db: Queryable, projectId: string): Promise<DraftRow[]> {
    const { rows } = await db.query<DraftRow>(`SELECT ${DRAFT_COLUMNS} FROM email_drafts WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
    return rows;
  },
  async getDraft(db: Queryable, projectId: string, id: string): Promise<DraftRow | undefined> {
    const { rows } = await db.query<DraftRow>(`SELECT ${DRAFT_COLUMNS} FROM email_drafts WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return rows[0];
  },
  async insertDraft(db: Queryable, projectId: string, d: { id: string; displayName: string; tsxSource: string; theme: ThemeChoice }): Promise<void> {
    await db.query(
      `INSERT INTO email_drafts (project_id, id, display_name, tsx_source, theme_mode, theme_id) VALUES ($1, $2, $3, $4, $5, $6)`,
      [projectId, d.id, d.displayName, d.tsxSource, d.theme.mode, d.theme.themeId],
    );
  },
  async updateDraft(
    db: Queryable,
    projectId: string,
    id: string,
    u: { displayName?: string; tsxSource?: string; theme?: ThemeChoice },
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE email_drafts SET display_name = COALESCE($3, display_name), tsx_source = COALESCE($4, tsx_source),
         theme_mode = COALESCE($5, theme_mode), theme_id = CASE WHEN $5::text IS NULL THEN theme_id ELSE $6::uuid END, updated_at = now()
       WHERE project_id = $1 AND id = $2`,
      [projectId, id, u.displayName ?? null, u.tsxSource ?? null, u.theme?.mode ?? null, u.theme?.themeId ?? null],
    );
    return rowCount === 1;
  },
  async markDraftSent(db: Queryable, projectId: string, id: string): Promise<void> {
    await db.query(`UPDATE email_drafts SET sent_at = now() WHERE project_id = $1 AND id = $2`, [projectId, id]);
  },

  // ---- deletes (admin); each returns false when nothing was deleted
  async deleteTemplate(db: Queryable, projectId: string, id: string): Promise<boolean> {
    return (await db.query(`DELETE FROM email_templates WHERE project_id = $1 AND id = $2`, [projectId, id])).rowCount === 1;
  },
  async deleteTheme(db: Queryable, projectId: string, id: string): Promise<boolean> {
    return (await db.query(`DELETE FROM email_themes WHERE project_id = $1 AND id = $2`, [projectId, id])).rowCount === 1;
  },
  async deleteDraft(db: Queryable, projectId: string, id: string): Promise<boolean> {
    return (await db.query(`DELETE FROM email_drafts WHERE project_id = $1 AND id = $2`, [projectId, id])).rowCount === 1;
  },
};
