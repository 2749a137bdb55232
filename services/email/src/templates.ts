import { withTransaction, type Pool, type Queryable } from "@vestibule/shared/db";
import { isUuid } from "@vestibule/shared/ids";
import { DEFAULT_LIGHT_THEME_ID, DEFAULT_TEMPLATES, DEFAULT_THEMES, PUBLISHED_TEMPLATE_IDS } from "./defaults/index.ts";
import type { ProjectEmailSettings } from "./domain/settings.ts";
import { templateStore, type TemplateRow, type ThemeChoice, type ThemeRow } from "./store/template-store.ts";

/**
 * A project's themes and templates as the renderer needs them: the defaults are seeded on first use (so projects that
 * existed before, and projects created while this service was down, get them too), and theme choices resolve to a
 * theme source.
 */
export class ProjectTemplates {
  /** Projects known to be seeded (seeding is idempotent; this only saves the query). */
  private readonly seeded = new Set<string>();

  constructor(private readonly pool: Pool) {}

  async ensureSeeded(projectId: string): Promise<void> {
    if (this.seeded.has(projectId)) return;
    if (!(await templateStore.isSeeded(this.pool, projectId))) {
      await withTransaction(this.pool, (tx) => templateStore.seed(tx, projectId, DEFAULT_THEMES, DEFAULT_TEMPLATES));
    }
    this.seeded.add(projectId);
    if (this.seeded.size > 10_000) this.seeded.clear();
  }

  /**
   * A template of the project by id: its own id, or one of the current SDK's fixed default template ids
   * (PUBLISHED_TEMPLATE_IDS), which name the project's template of that system type.
   */
  async getTemplate(db: Queryable, projectId: string, id: string): Promise<TemplateRow | undefined> {
    if (!isUuid(id)) return undefined;
    const own = await templateStore.getTemplate(db, projectId, id);
    if (own) return own;
    const type = PUBLISHED_TEMPLATE_IDS[id.toLowerCase()];
    return type ? templateStore.templateOfType(db, projectId, type) : undefined;
  }

  forget(projectId: string): void {
    this.seeded.delete(projectId);
  }

  /**
   * The theme a choice stands for: none, a theme of the project, or the project's selected theme. A theme that no
   * longer exists falls back to the selected theme, and that to "Default Light".
   */
  async resolveTheme(db: Queryable, settings: ProjectEmailSettings, choice: ThemeChoice): Promise<ThemeRow | null> {
    if (choice.mode === "none") return null;
    await this.ensureSeeded(settings.projectId);
    if (choice.mode === "theme" && choice.themeId) {
      const theme = await templateStore.getTheme(db, settings.projectId, choice.themeId);
      if (theme) return theme;
    }
    return (
      (await templateStore.getTheme(db, settings.projectId, settings.selectedThemeId)) ??
      (await templateStore.getTheme(db, settings.projectId, DEFAULT_LIGHT_THEME_ID)) ??
      null
    );
  }
}
