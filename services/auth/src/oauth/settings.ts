/**
 * The OAuth part of a project's rendered configuration (`auth.oauth`, from identity's GetProject, secrets in clear):
 * the account merge strategy and the providers by config id. Pure; the cache is `OAuthSettingsCache`.
 */
import { ProjectConfigCache } from "@vestibule/shared/project-config";
import type { IdentityClients } from "../peers.ts";

export const PROVIDER_TYPES = ["google", "github", "microsoft", "spotify", "facebook", "discord", "gitlab", "bitbucket", "linkedin", "apple", "x", "twitch"] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export type MergeStrategy = "link_method" | "raise_error" | "allow_duplicates";

export interface ProviderSettings {
  /** The key in `auth.oauth.providers` (the `provider_id` of the API). */
  readonly configId: string;
  readonly type: ProviderType;
  /** The platform's shared keys instead of the project's own. */
  readonly isShared: boolean;
  readonly allowSignIn: boolean;
  readonly allowConnectedAccounts: boolean;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly facebookConfigId?: string;
  readonly microsoftTenantId?: string;
}

export interface OAuthSettings {
  readonly projectId: string;
  readonly mergeStrategy: MergeStrategy;
  readonly providers: ReadonlyMap<string, ProviderSettings>;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

export function isProviderType(value: string): value is ProviderType {
  return (PROVIDER_TYPES as readonly string[]).includes(value);
}

export function oauthSettingsFromRendered(projectId: string, renderedConfigJson: string): OAuthSettings {
  let rendered: Json = {};
  try {
    rendered = obj(JSON.parse(renderedConfigJson || "{}"));
  } catch {
    rendered = {};
  }
  const oauth = obj(obj(rendered.auth).oauth);
  const merge = oauth.accountMergeStrategy;
  const providers = new Map<string, ProviderSettings>();
  for (const [configId, raw] of Object.entries(obj(oauth.providers))) {
    const p = obj(raw);
    const type = str(p.type);
    if (!type || !isProviderType(type)) continue;
    providers.set(configId, {
      configId,
      type,
      isShared: p.isShared !== false,
      allowSignIn: p.allowSignIn === true,
      allowConnectedAccounts: p.allowConnectedAccounts === true,
      clientId: str(p.clientId),
      clientSecret: str(p.clientSecret),
      facebookConfigId: str(p.facebookConfigId),
      microsoftTenantId: str(p.microsoftTenantId),
    });
  }
  return {
    projectId,
    mergeStrategy: merge === "raise_error" || merge === "allow_duplicates" ? merge : "link_method",
    providers,
  };
}

/** Per-project OAuth settings, dropped by identity.project.* events like the other project caches. */
export class OAuthSettingsCache extends ProjectConfigCache<OAuthSettings> {
  constructor(clients: Pick<IdentityClients, "projects">, ttlMs?: number) {
    super(clients.projects, (p) => oauthSettingsFromRendered(p.id, p.renderedConfigJson), { ttlMs });
  }
}
