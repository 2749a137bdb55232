/**
 * Defaults read from the environment when an option is absent (contract/sdk-calls.md §1), with the same variable
 * names as the published SDK so an app's existing configuration keeps working. `process` is touched only when it
 * exists, so this module stays importable in browsers (bundlers usually inline `process.env.NEXT_PUBLIC_*`).
 */

function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const v = p?.env?.[name];
  return v === undefined || v === "" ? undefined : v;
}

function first(...names: string[]): string | undefined {
  for (const n of names) {
    const v = env(n);
    if (v !== undefined) return v;
  }
  return undefined;
}

export const DEFAULT_BASE_URL = "https://api.stack-auth.com";

export function isBrowser(): boolean {
  return typeof (globalThis as { window?: unknown }).window !== "undefined" && typeof (globalThis as { document?: unknown }).document !== "undefined";
}

export function defaultBaseUrl(): string {
  const specific = isBrowser()
    ? first("NEXT_PUBLIC_BROWSER_STACK_API_URL", "NEXT_PUBLIC_STACK_API_URL_BROWSER", "STACK_API_URL_BROWSER")
    : first("NEXT_PUBLIC_SERVER_STACK_API_URL", "NEXT_PUBLIC_STACK_API_URL_SERVER", "STACK_API_URL_SERVER");
  return specific ?? first("NEXT_PUBLIC_STACK_API_URL", "STACK_API_URL", "NEXT_PUBLIC_STACK_URL") ?? DEFAULT_BASE_URL;
}

export function resolveBaseUrl(option: string | { browser: string; server: string } | undefined): string {
  if (option === undefined) return defaultBaseUrl();
  if (typeof option === "string") return option;
  return isBrowser() ? option.browser : option.server;
}

export const defaultProjectId = (): string | undefined => first("NEXT_PUBLIC_STACK_PROJECT_ID", "STACK_PROJECT_ID");
export const defaultPublishableClientKey = (): string | undefined =>
  first("NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY", "STACK_PUBLISHABLE_CLIENT_KEY");
export const defaultSecretServerKey = (): string | undefined => first("STACK_SECRET_SERVER_KEY");
export const defaultSuperSecretAdminKey = (): string | undefined => first("STACK_SUPER_SECRET_ADMIN_KEY");

export function defaultExtraRequestHeaders(): Record<string, string> | undefined {
  const raw = first("NEXT_PUBLIC_STACK_EXTRA_REQUEST_HEADERS", "STACK_EXTRA_REQUEST_HEADERS");
  if (raw === undefined) return undefined;
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error("STACK_EXTRA_REQUEST_HEADERS must be a JSON object of header names to values");
  }
  return parsed as Record<string, string>;
}
