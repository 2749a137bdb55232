/**
 * Platform-level OAuth settings from the environment (read once at start):
 *
 * - `VESTIBULE_OAUTH_SHARED_KEYS`: JSON `{"<type>" | "*": {"client_id", "client_secret", "issuer"?}}`, the platform's
 *   shared keys. In production only google, github, microsoft and spotify may use them. `npm start` in development
 *   sets `*` to its development identity provider.
 * - `VESTIBULE_OAUTH_ISSUERS`: JSON `{"<type>" | "*": "<OpenID issuer URL>"}`: the provider type is spoken to as
 *   standard OIDC at that issuer whatever the keys (tests point every type at the development provider).
 */
import { isProviderType, type ProviderType } from "./settings.ts";
import { SHARED_KEY_TYPES } from "./providers.ts";

export interface SharedKeys {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly issuer?: string;
}

export interface OAuthPlatformConfig {
  readonly production: boolean;
  sharedKeys(type: ProviderType): SharedKeys | undefined;
  issuerOverride(type: ProviderType): string | undefined;
}

function parseJson(name: string, text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${name} must be a JSON object`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${name} must be a JSON object`);
  for (const key of Object.keys(value)) if (key !== "*" && !isProviderType(key)) throw new Error(`${name}: unknown provider type ${key}`);
  return value as Record<string, unknown>;
}

function httpUrl(name: string, value: unknown): string {
  if (typeof value !== "string" || !/^https?:\/\/[^\s]+$/.test(value)) throw new Error(`${name} must be an http(s) URL`);
  return value.replace(/\/+$/, "");
}

export function readOAuthPlatformConfig(env: Readonly<Record<string, string | undefined>>, mode: string): OAuthPlatformConfig {
  const production = mode === "production";
  const shared = new Map<string, SharedKeys>();
  for (const [key, raw] of Object.entries(parseJson("VESTIBULE_OAUTH_SHARED_KEYS", env.VESTIBULE_OAUTH_SHARED_KEYS))) {
    const v = (raw ?? {}) as Record<string, unknown>;
    if (typeof v.client_id !== "string" || typeof v.client_secret !== "string" || !v.client_id || !v.client_secret) {
      throw new Error(`VESTIBULE_OAUTH_SHARED_KEYS.${key} needs client_id and client_secret`);
    }
    shared.set(key, {
      clientId: v.client_id,
      clientSecret: v.client_secret,
      issuer: v.issuer === undefined ? undefined : httpUrl(`VESTIBULE_OAUTH_SHARED_KEYS.${key}.issuer`, v.issuer),
    });
  }
  const issuers = new Map<string, string>();
  for (const [key, raw] of Object.entries(parseJson("VESTIBULE_OAUTH_ISSUERS", env.VESTIBULE_OAUTH_ISSUERS))) {
    issuers.set(key, httpUrl(`VESTIBULE_OAUTH_ISSUERS.${key}`, raw));
  }
  return {
    production,
    sharedKeys(type) {
      if (production && !SHARED_KEY_TYPES.includes(type)) return undefined;
      return shared.get(type) ?? shared.get("*");
    },
    issuerOverride(type) {
      return issuers.get(type) ?? issuers.get("*");
    },
  };
}
