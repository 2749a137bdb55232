import { create } from "@bufbuild/protobuf";
import { ThemeSelectionSchema, type ThemeSelection } from "@vestibule/proto/email/v1/email";
import type { Queryable } from "@vestibule/shared/db";
import { statusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { templateStore, type ThemeChoice } from "./store/template-store.ts";

export const PROJECT_THEME: ThemeChoice = { mode: "project", themeId: null };

/** The wire form of a stored choice: unset = the project's theme. */
export function selectionOf(mode: string, themeId: string | null): ThemeSelection | undefined {
  if (mode === "none") return create(ThemeSelectionSchema, { selection: { case: "noTheme", value: true } });
  if (mode === "theme" && themeId) return create(ThemeSelectionSchema, { selection: { case: "themeId", value: themeId } });
  return undefined;
}

/** A requested choice, checked: a theme id must name one of the project's themes (400 otherwise). */
export async function choiceOf(db: Queryable, projectId: string, selection: ThemeSelection | undefined): Promise<ThemeChoice> {
  const s = selection?.selection;
  if (!s || s.case === undefined) return PROJECT_THEME;
  if (s.case === "noTheme") return s.value ? { mode: "none", themeId: null } : PROJECT_THEME;
  if (!isUuid(s.value) || !(await templateStore.getTheme(db, projectId, s.value))) throw statusError(400, "No theme found with the given theme_id.");
  return { mode: "theme", themeId: s.value };
}
