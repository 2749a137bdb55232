import { readFileSync } from "node:fs";
import type { SystemTemplateType } from "../domain/email-request.ts";

/**
 * The default theme and system templates every project starts with (seeded once per project, then the admins'),
 * read from the .tsx files beside this module: they are what an admin sees and edits, so they are kept as TSX.
 */
const source = (file: string): string => readFileSync(new URL(`./${file}`, import.meta.url), "utf8");

/** The "Default Light" theme; also identity's default `email_theme` (emails.selectedThemeId). */
export const DEFAULT_LIGHT_THEME_ID = "1df07ae6-abf3-4a40-83a5-a1a2cbe336ac";
export const DEFAULT_DARK_THEME_ID = "a0172b5d-cff0-463b-83bb-85124697373a";

export interface DefaultTheme {
  readonly id: string;
  readonly displayName: string;
  readonly tsxSource: string;
}

/**
 * Both default themes are one source (theme.tsx, light palette); the dark one differs only in its palette line, so an
 * admin still gets a plain, self-contained TSX file to edit.
 */
const LIGHT_PALETTE = 'const palette = { page: "#f5f5f7", card: "#ffffff", text: "#1d1d1f", muted: "#6e6e73" };';
const DARK_PALETTE = 'const palette = { page: "#111114", card: "#1c1c21", text: "#f5f5f7", muted: "#a1a1a6" };';

function themeSource(palette: string): string {
  const light = source("theme.tsx");
  if (!light.includes(LIGHT_PALETTE)) throw new Error("theme.tsx lost its palette line");
  return light.replace(LIGHT_PALETTE, palette);
}

export const DEFAULT_THEMES: readonly DefaultTheme[] = [
  { id: DEFAULT_LIGHT_THEME_ID, displayName: "Default Light", tsxSource: themeSource(LIGHT_PALETTE) },
  { id: DEFAULT_DARK_THEME_ID, displayName: "Default Dark", tsxSource: themeSource(DARK_PALETTE) },
];

export interface DefaultTemplate {
  /** The same id in every project. */
  readonly id: string;
  readonly type: SystemTemplateType;
  readonly displayName: string;
  readonly tsxSource: string;
}

/**
 * Variables of each system template (what producers put in variables_json):
 * email_verification, password_reset, sign_in_invitation: `link`; magic_link: `link`, `otp`;
 * team_invitation: `team_display_name`, `link`.
 */
export const DEFAULT_TEMPLATES: readonly DefaultTemplate[] = [
  { id: "4dc632d7-3198-4132-9e3e-1d32096efa0c", type: "email_verification", displayName: "Email Verification", tsxSource: source("email-verification.tsx") },
  { id: "74e3adb8-5b28-4df6-b0fa-67af43702c39", type: "password_reset", displayName: "Password Reset", tsxSource: source("password-reset.tsx") },
  { id: "dd06f1cb-6ed3-4fba-95be-977e652054fd", type: "magic_link", displayName: "Magic Link / OTP", tsxSource: source("magic-link.tsx") },
  { id: "1ca2c169-4d33-46e6-9670-a584cc980948", type: "team_invitation", displayName: "Team Invitation", tsxSource: source("team-invitation.tsx") },
  { id: "ec150b79-649b-4564-a37b-df02f7646147", type: "sign_in_invitation", displayName: "Sign In Invitation", tsxSource: source("sign-in-invitation.tsx") },
];

/**
 * The fixed template ids the current SDK exports (`DEFAULT_TEMPLATE_IDS` of @stackframe/stack-shared 2.8.108), one per
 * system e-mail. In every project each names that project's template of the type (whatever its own id), so an app
 * that sends or renders `DEFAULT_TEMPLATE_IDS.sign_in_invitation` gets the project's sign-in invitation template.
 */
export const PUBLISHED_TEMPLATE_IDS: Readonly<Record<string, SystemTemplateType>> = {
  "e7d009ce-8d47-4528-b245-5bf119f2ffa3": "email_verification",
  "a70fb3a4-56c1-4e42-af25-49d25603abd0": "password_reset",
  "822687fe-8d0a-4467-a0d1-416b6e639478": "magic_link",
  "e84de395-2076-4831-9c19-8e9a96a868e4": "team_invitation",
  "066dd73c-36da-4fd0-b6d6-ebf87683f8bc": "sign_in_invitation",
};

/** Source of a template created with POST /internal/email-templates. */
export const NEW_TEMPLATE_SOURCE = source("new-template.tsx");
/** Source of a draft created without one. */
export const NEW_DRAFT_SOURCE = source("new-draft.tsx");
/** Rendered inside a theme to check the theme when it is updated. */
export const THEME_PREVIEW_SOURCE = source("theme-preview.tsx");
