/**
 * The part of a project's rendered configuration (identity's `rendered_config_json`) the e-mail service acts on:
 * the e-mail server, the selected theme and the trusted domains. Missing or malformed values fall back to the defaults
 * of a fresh project. Pure functions, no I/O.
 */
import { DEFAULT_LIGHT_THEME_ID } from "../defaults/index.ts";

export interface EmailServerSettings {
  /** true = the platform's shared sender; false = the project's own SMTP server below. */
  readonly isShared: boolean;
  readonly host?: string;
  readonly port?: number;
  readonly username?: string;
  /** In clear (identity decrypts it for its callers); never logged, never listed. */
  readonly password?: string;
  readonly senderName?: string;
  readonly senderEmail?: string;
}

export interface ProjectEmailSettings {
  readonly projectId: string;
  readonly displayName: string;
  readonly server: EmailServerSettings;
  readonly selectedThemeId: string;
  readonly allowLocalhost: boolean;
  readonly trustedDomains: readonly string[];
}

type Json = Record<string, unknown>;

function obj(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}
const optStr = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export function emailSettingsFromRendered(projectId: string, displayName: string, renderedConfigJson: string): ProjectEmailSettings {
  let rendered: Json = {};
  try {
    rendered = obj(JSON.parse(renderedConfigJson || "{}"));
  } catch {
    rendered = {};
  }
  const emails = obj(rendered.emails);
  const server = obj(emails.server);
  const domains = obj(rendered.domains);
  const port = server.port;
  return {
    projectId,
    displayName,
    server: {
      isShared: server.isShared !== false,
      host: optStr(server.host),
      port: typeof port === "number" && Number.isInteger(port) ? port : undefined,
      username: optStr(server.username),
      password: optStr(server.password),
      senderName: optStr(server.senderName),
      senderEmail: optStr(server.senderEmail),
    },
    selectedThemeId: optStr(emails.selectedThemeId) ?? DEFAULT_LIGHT_THEME_ID,
    allowLocalhost: typeof domains.allowLocalhost === "boolean" ? domains.allowLocalhost : true,
    trustedDomains: Object.values(obj(domains.trustedDomains))
      .map((d) => obj(d).baseUrl)
      .filter((u): u is string => typeof u === "string" && u !== ""),
  };
}
