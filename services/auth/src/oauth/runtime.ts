import { createLocalJWKSet, decodeJwt, jwtVerify } from "jose";
import { knownError } from "@vestibule/shared/errors";
import type { AuthRuntime } from "../runtime.ts";
import { OAuthAccounts } from "./accounts.ts";
import { ProviderClients } from "./client.ts";
import { readOAuthPlatformConfig } from "./config.ts";
import { OAuthSettingsCache } from "./settings.ts";

/** Lifetime of a flow between authorize and the provider's callback. */
export const FLOW_LIFETIME_SECONDS = 10 * 60;
/** Lifetime of an authorization code issued to the SDK. */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 5 * 60;

/** What the OAuth RPCs share, built once per service instance. */
export interface OAuthRuntime {
  readonly rt: AuthRuntime;
  readonly settings: OAuthSettingsCache;
  readonly clients: ProviderClients;
  readonly accounts: OAuthAccounts;
  /** The user of an access token of the project (verified with the project's published keys). */
  verifyAccessToken(projectId: string, token: string): Promise<{ userId: string; isAnonymous: boolean; sessionId: string }>;
}

const runtimes = new WeakMap<AuthRuntime, OAuthRuntime>();

export function oauthRuntime(rt: AuthRuntime): OAuthRuntime {
  let o = runtimes.get(rt);
  if (o) return o;
  const platform = readOAuthPlatformConfig(rt.ctx.env, rt.ctx.config.mode);
  o = {
    rt,
    settings: new OAuthSettingsCache(rt.identity),
    clients: new ProviderClients(platform),
    accounts: new OAuthAccounts(rt),
    async verifyAccessToken(projectId, token) {
      let anonymous = false;
      try {
        anonymous = String(decodeJwt(token).aud ?? "").endsWith(":anon");
      } catch {
        throw knownError("UNPARSABLE_ACCESS_TOKEN");
      }
      const keys = await rt.keys.publishedKeys(projectId, anonymous);
      let payload;
      try {
        ({ payload } = await jwtVerify(token, createLocalJWKSet({ keys: keys as never }), { algorithms: ["ES256"] }));
      } catch (err) {
        if ((err as { code?: string }).code === "ERR_JWT_EXPIRED") throw knownError("ACCESS_TOKEN_EXPIRED", { expired_at_millis: null });
        throw knownError("UNPARSABLE_ACCESS_TOKEN");
      }
      if (payload.project_id !== projectId || typeof payload.sub !== "string") {
        throw knownError("INVALID_PROJECT_FOR_ACCESS_TOKEN", { expected_project_id: projectId, actual_project_id: String(payload.project_id) });
      }
      return { userId: payload.sub, isAnonymous: payload.is_anonymous === true, sessionId: String(payload.refresh_token_id ?? "") };
    },
  };
  runtimes.set(rt, o);
  return o;
}
