/**
 * The inner flow's client side on openid-client (a certified relying-party library): discovery, authorization URLs
 * with PKCE S256, state and (OIDC) nonce, the code exchange with ID-token validation, user APIs and token refresh.
 * No token or ID-token handling is written by hand here.
 */
import * as oidc from "openid-client";
import { createHash } from "node:crypto";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { OAuthPlatformConfig } from "./config.ts";
import { mapProfile, oidcProfile, type ProviderProfile } from "./profiles.ts";
import { OIDC_STAND_IN_SCOPES, PROVIDERS, type PlainEndpoints } from "./providers.ts";
import type { ProviderSettings, ProviderType } from "./settings.ts";

/** A provider ready to talk to: its openid-client configuration and how to read its user. */
export interface ProviderClient {
  readonly type: ProviderType;
  /** Uses the platform's shared keys. */
  readonly shared: boolean;
  /** Standard OIDC at a configured issuer standing in for the provider (development provider, tests). */
  readonly standIn: boolean;
  /** Speaks OIDC (discovery, ID token with nonce). */
  readonly oidc: boolean;
  readonly config: oidc.Configuration;
  readonly scopes: readonly string[];
  readonly authParams: Readonly<Record<string, string>>;
  readonly scopeSeparator: string;
  readonly endpoints?: PlainEndpoints;
}

export interface ProviderTokens {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly expiresAt: Date | null;
  readonly scopes: readonly string[];
}

const DISCOVERY_TTL_MS = 10 * 60_000;

function splitScopes(scope: string | undefined, separator: string): string[] {
  return (scope ?? "").split(separator === " " ? /\s+/ : /[\s,]+/).filter((s) => s !== "");
}

export class ProviderClients {
  private readonly discovered = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  constructor(private readonly platform: OAuthPlatformConfig) {}

  /** The client of a project's provider; INVALID_SHARED_OAUTH_PROVIDER_ID when shared keys do not exist for it. */
  async get(p: ProviderSettings): Promise<ProviderClient> {
    const def = PROVIDERS[p.type];
    let clientId: string;
    let clientSecret: string;
    let issuer = this.platform.issuerOverride(p.type);
    if (p.isShared) {
      const shared = this.platform.sharedKeys(p.type);
      if (!shared) throw knownError("INVALID_SHARED_OAUTH_PROVIDER_ID", { provider_id: p.configId });
      ({ clientId, clientSecret } = shared);
      issuer = shared.issuer ?? issuer;
    } else {
      if (!p.clientId || !p.clientSecret) throw knownError("INVALID_STANDARD_OAUTH_PROVIDER_ID", { provider_id: p.configId });
      clientId = p.clientId;
      clientSecret = p.clientSecret;
    }
    const standIn = issuer !== undefined;
    const base = { type: p.type, shared: p.isShared, standIn, authParams: {} as Record<string, string>, scopeSeparator: def.scopeSeparator ?? " " };
    if (issuer !== undefined) {
      // prompt=consent: an OpenID provider grants offline_access (a refresh token) only with it.
      return { ...base, authParams: { prompt: "consent" }, oidc: true, config: await this.discover(issuer, clientId, clientSecret), scopes: OIDC_STAND_IN_SCOPES };
    }
    const authParams: Record<string, string> = { ...def.authParams };
    if (p.type === "facebook" && p.facebookConfigId) authParams.config_id = p.facebookConfigId;
    if (def.issuer) {
      return { ...base, authParams, oidc: true, config: await this.discover(def.issuer, clientId, clientSecret), scopes: def.scopes };
    }
    const tenant = p.microsoftTenantId || "common";
    const endpoints = def.endpoints!;
    const fill = (u: string) => u.replace("{tenant}", encodeURIComponent(tenant));
    const config = new oidc.Configuration(
      { issuer: new URL(fill(endpoints.authorization)).origin, authorization_endpoint: fill(endpoints.authorization), token_endpoint: fill(endpoints.token) },
      clientId,
      clientSecret,
    );
    return { ...base, authParams, oidc: false, config, scopes: def.scopes, endpoints };
  }

  /** The issuer's metadata (cached 10 minutes); a provider that cannot be reached is a 503, not a failure of ours. */
  private discover(issuer: string, clientId: string, clientSecret: string): Promise<oidc.Configuration> {
    const key = createHash("sha256").update(JSON.stringify([issuer, clientId, clientSecret])).digest("base64url");
    const hit = this.discovered.get(key);
    if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
    const insecure = !this.platform.production && issuer.startsWith("http:");
    const config = oidc
      .discovery(new URL(issuer), clientId, clientSecret, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : undefined)
      .catch((err: unknown) => {
        this.discovered.delete(key);
        throw statusError(503, `The OAuth provider cannot be reached (${(err as Error).message}). Please try again later.`);
      });
    this.discovered.set(key, { at: Date.now(), config });
    return config;
  }

  /** The provider's authorization URL for one flow. */
  authorizationUrl(
    client: ProviderClient,
    input: { redirectUri: string; state: string; nonce: string; codeVerifierChallenge: string; extraScopes: readonly string[] },
  ): string {
    const scopes = [...new Set([...client.scopes, ...input.extraScopes])];
    const params: Record<string, string> = {
      ...client.authParams,
      redirect_uri: input.redirectUri,
      scope: scopes.join(client.scopeSeparator),
      response_type: "code",
      state: input.state,
      code_challenge: input.codeVerifierChallenge,
      code_challenge_method: "S256",
    };
    if (client.oidc) params.nonce = input.nonce;
    return oidc.buildAuthorizationUrl(client.config, params).href;
  }

  /** Exchanges the provider's code (validating state, PKCE, ID token and nonce) and reads the user. */
  async exchange(
    client: ProviderClient,
    input: { callbackUrl: URL; codeVerifier: string; state: string; nonce: string; requestedScopes: readonly string[] },
  ): Promise<{ profile: ProviderProfile; tokens: ProviderTokens }> {
    const res = await oidc.authorizationCodeGrant(client.config, input.callbackUrl, {
      pkceCodeVerifier: input.codeVerifier,
      expectedState: input.state,
      expectedNonce: client.oidc ? input.nonce : undefined,
      idTokenExpected: client.oidc,
    });
    const tokens: ProviderTokens = {
      accessToken: res.access_token,
      refreshToken: res.refresh_token ?? null,
      expiresAt: typeof res.expires_in === "number" ? new Date(Date.now() + res.expires_in * 1000) : null,
      scopes: res.scope !== undefined ? splitScopes(res.scope, client.scopeSeparator) : [...input.requestedScopes],
    };
    let profile: ProviderProfile;
    if (client.oidc) {
      const claims = res.claims() as Record<string, unknown> | undefined;
      const sub = typeof claims?.sub === "string" ? claims.sub : oidc.skipSubjectCheck;
      const user = client.config.serverMetadata().userinfo_endpoint
        ? ((await oidc.fetchUserInfo(client.config, res.access_token, sub)) as Record<string, unknown>)
        : undefined;
      profile = client.standIn ? oidcProfile({ claims, user }) : mapProfile(client.type, { claims, user });
    } else {
      const user = await this.getJson(client, res.access_token, client.endpoints!.user);
      const emails = client.endpoints!.emails ? await this.getJson(client, res.access_token, client.endpoints!.emails).catch(() => undefined) : undefined;
      const list = Array.isArray(emails) ? emails : Array.isArray((emails as { values?: unknown })?.values) ? (emails as { values: unknown[] }).values : [];
      profile = mapProfile(client.type, { user: user as Record<string, unknown>, emails: list as Record<string, unknown>[] });
    }
    return { profile, tokens };
  }

  /** A new access token from a refresh token (optionally narrowed to `scopes`). */
  async refresh(client: ProviderClient, refreshToken: string, scopes: readonly string[]): Promise<ProviderTokens> {
    const res = await oidc.refreshTokenGrant(client.config, refreshToken, scopes.length ? { scope: scopes.join(client.scopeSeparator) } : undefined);
    return {
      accessToken: res.access_token,
      refreshToken: res.refresh_token ?? refreshToken,
      expiresAt: typeof res.expires_in === "number" ? new Date(Date.now() + res.expires_in * 1000) : null,
      scopes: res.scope !== undefined ? splitScopes(res.scope, client.scopeSeparator) : [...scopes],
    };
  }

  private async getJson(client: ProviderClient, accessToken: string, url: string): Promise<unknown> {
    const headers = new Headers({ accept: "application/json", "user-agent": "Vestibule" });
    const res = await oidc.fetchProtectedResource(client.config, accessToken, new URL(url), "GET", undefined, headers);
    if (!res.ok) throw new Error(`the provider's user API answered ${res.status}`);
    return res.json();
  }
}
