/**
 * The outer flow (Vestibule as the SDK's OAuth 2 authorization server) around the inner one (Vestibule as the
 * provider's client): authorize → provider → callback → authorization code → token (contract endpoints.md §1 OAuth,
 * tokens.md §6, latest-sdk.md B and C).
 *
 * - A flow is stored under the SHA-256 of its inner state (the `state` sent to the provider), with the outer request
 *   and, sealed, the inner PKCE verifier and nonce; it lives FLOW_LIFETIME_SECONDS and the callback uses it once.
 * - Authorization codes are 45 random characters stored as SHA-256, single use, AUTHORIZATION_CODE_LIFETIME_SECONDS;
 *   the exchange checks the SDK's PKCE verifier (S256) and the redirect URI.
 * - Callback failures go back to the browser: to `error_redirect_url` when given, else to `redirect_uri` with
 *   `error=server_error`, `error_description`, `errorCode`, `message`, `details` and `state` (what both SDKs read).
 */
import { createHash, randomBytes } from "node:crypto";
import * as oidc from "openid-client";
import { fromConnectError, KnownError, knownError, statusError, StatusError } from "@vestibule/shared/errors";
import { isUuid } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import { isRedirectUrlTrusted } from "../domain/redirect.ts";
import { requireSecondFactor } from "../mfa/second-factor.ts";
import type { CallbackIdentity } from "./accounts.ts";
import { AUTHORIZATION_CODE_LIFETIME_SECONDS, FLOW_LIFETIME_SECONDS, type OAuthRuntime } from "./runtime.ts";
import type { ProviderSettings } from "./settings.ts";
import { oauthStore } from "./store/oauth-store.ts";

/** The outer request a flow remembers (JSON in oauth_flows.data). */
interface FlowData {
  type: "authenticate" | "link";
  redirect_uri: string;
  state: string;
  code_challenge: string;
  error_redirect_url: string;
  after_callback_redirect_url: string;
  user_id: string;
  anonymous_user_id: string;
  cookie_required: boolean;
  requested_scopes: string[];
  /** Sealed `{verifier, nonce}` of the inner flow. */
  sealed: string;
}

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** The public callback URL the provider returns to. */
export function callbackUrl(publicUrl: string, providerConfigId: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/api/v1/auth/oauth/callback/${encodeURIComponent(providerConfigId)}`;
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}

export function createFlowHandlers(o: OAuthRuntime) {
  const { rt } = o;
  const { pool, log, secrets } = rt.ctx;

  async function enabledProvider(projectId: string, configId: string, type: "authenticate" | "link"): Promise<ProviderSettings> {
    const s = await o.settings.get(projectId);
    const p = s.providers.get(configId);
    if (!p || !(type === "link" ? p.allowSignIn || p.allowConnectedAccounts : p.allowSignIn)) throw knownError("OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED");
    return p;
  }

  /** Where a failed callback sends the browser (known errors carry their code, message and details). */
  function errorLocation(flow: FlowData, err: KnownError | StatusError): string {
    const known = err instanceof KnownError;
    const fields: Record<string, string> = known
      ? { errorCode: err.code, message: err.message, details: JSON.stringify(err.details ?? {}) }
      : { message: err.message };
    if (flow.error_redirect_url) return withQuery(flow.error_redirect_url, fields);
    return withQuery(flow.redirect_uri, { error: "server_error", error_description: err.message, ...fields, state: flow.state });
  }

  async function issueCode(projectId: string, userId: string, flow: Pick<FlowData, "redirect_uri" | "code_challenge" | "after_callback_redirect_url">, isNewUser: boolean): Promise<string> {
    const code = randomCode(45);
    await oauthStore.insertCode(pool, {
      codeHash: hashSecret(code),
      projectId,
      userId,
      data: { redirect_uri: flow.redirect_uri, code_challenge: flow.code_challenge, after_callback_redirect_url: flow.after_callback_redirect_url, is_new_user: isNewUser },
      lifetimeSeconds: AUTHORIZATION_CODE_LIFETIME_SECONDS,
    });
    return code;
  }

  return {
    async beginAuthorization(req: {
      projectId: string;
      providerConfigId: string;
      type: string;
      redirectUri: string;
      state: string;
      codeChallenge: string;
      accessToken: string;
      providerScope: string;
      errorRedirectUrl: string;
      afterCallbackRedirectUrl: string;
      jsonMode: boolean;
    }) {
      const type = req.type || "authenticate";
      if (type !== "authenticate" && type !== "link") throw statusError(400, "type must be authenticate or link.");
      if (!PKCE_CHALLENGE.test(req.codeChallenge)) throw statusError(400, "code_challenge must be a base64url SHA-256 (S256) challenge.");
      if (!req.state) throw statusError(400, "state is required.");
      const settings = await rt.settings.get(req.projectId);
      const provider = await enabledProvider(req.projectId, req.providerConfigId, type);
      for (const url of [req.redirectUri, req.errorRedirectUrl, req.afterCallbackRedirectUrl]) {
        if (url && !isRedirectUrlTrusted(url, settings.redirectTrust)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
      }
      let userId = "";
      let anonymousUserId = "";
      if (req.accessToken) {
        const u = await o.verifyAccessToken(req.projectId, req.accessToken);
        if (u.isAnonymous && type === "authenticate") anonymousUserId = u.userId;
        else userId = u.userId;
      }
      if (type === "link" && !userId) throw statusError(400, "A token of a signed-in user is required to link an account (type=link).");
      const extraScopes = req.providerScope.split(/\s+/).filter((s) => s !== "");
      if (extraScopes.length > 0 && provider.isShared) throw knownError("OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS");
      const client = await o.clients.get(provider);
      const innerState = randomBytes(32).toString("base64url");
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const stateHash = hashSecret(innerState);
      const data: FlowData = {
        type,
        redirect_uri: req.redirectUri,
        state: req.state,
        code_challenge: req.codeChallenge,
        error_redirect_url: req.errorRedirectUrl,
        after_callback_redirect_url: req.afterCallbackRedirectUrl,
        user_id: userId,
        anonymous_user_id: anonymousUserId,
        cookie_required: !req.jsonMode,
        requested_scopes: [...new Set([...client.scopes, ...extraScopes])],
        sealed: await secrets.encrypt(JSON.stringify({ verifier, nonce }), `oauth-flow:${stateHash}`),
      };
      await oauthStore.insertFlow(pool, { stateHash, projectId: req.projectId, providerConfigId: provider.configId, data, lifetimeSeconds: FLOW_LIFETIME_SECONDS });
      const location = o.clients.authorizationUrl(client, {
        redirectUri: callbackUrl(rt.ctx.config.publicUrl, provider.configId),
        state: innerState,
        nonce,
        codeVerifierChallenge: s256(verifier),
        extraScopes,
      });
      return { location, innerState, expiresInSeconds: FLOW_LIFETIME_SECONDS };
    },

    async handleCallback(req: { providerConfigId: string; params: Record<string, string>; cookiePresent: boolean; ip: string }) {
      const innerState = req.params.state ?? "";
      if (!innerState) throw statusError(400, "The OAuth callback has no state parameter.");
      const taken = await oauthStore.takeFlow(pool, hashSecret(innerState));
      if (!taken || taken.provider_config_id !== req.providerConfigId) {
        throw statusError(400, "No OAuth flow has this state (it was already used, or it is not one of ours). Please sign in again.");
      }
      if (taken.expired) throw knownError("OUTER_OAUTH_TIMEOUT");
      const flow = taken.data as unknown as FlowData;
      const projectId = taken.project_id;
      if (flow.cookie_required && !req.cookiePresent) {
        throw statusError(400, "Inner OAuth cookie not found. This is likely because you refreshed the page during the OAuth sign in process. Please try signing in again.");
      }
      try {
        const providerError = req.params.error;
        if (providerError) {
          if (providerError === "access_denied") throw knownError("OAUTH_PROVIDER_ACCESS_DENIED");
          throw statusError(400, `The OAuth provider answered with an error: ${providerError.slice(0, 100)}`);
        }
        const provider = await enabledProvider(projectId, taken.provider_config_id, flow.type);
        const client = await o.clients.get(provider);
        const { verifier, nonce } = JSON.parse(await secrets.decrypt(flow.sealed, `oauth-flow:${hashSecret(innerState)}`)) as { verifier: string; nonce: string };
        const current = new URL(callbackUrl(rt.ctx.config.publicUrl, provider.configId));
        for (const [k, v] of Object.entries(req.params)) current.searchParams.set(k, v);
        let exchanged;
        try {
          exchanged = await o.clients.exchange(client, { callbackUrl: current, codeVerifier: verifier, state: innerState, nonce, requestedScopes: flow.requested_scopes });
        } catch (err) {
          log.warn({ project_id: projectId, provider: provider.configId, err: (err as Error).message }, "the OAuth provider's answer was refused");
          throw statusError(400, "The OAuth provider's answer could not be verified. Please sign in again.");
        }
        const identity: CallbackIdentity = { provider, profile: exchanged.profile, tokens: exchanged.tokens, sharedKeys: provider.isShared };
        const settings = await rt.settings.get(projectId);
        let userId: string;
        let isNewUser = false;
        if (flow.type === "link") {
          await o.accounts.linkToUser(projectId, flow.user_id, identity);
          userId = flow.user_id;
        } else {
          const oauthSettings = await o.settings.get(projectId);
          ({ userId, isNewUser } = await o.accounts.signInOrUp(settings, oauthSettings.mergeStrategy, identity, { anonymousUserId: flow.anonymous_user_id || undefined, ip: req.ip }));
        }
        const code = await issueCode(projectId, userId, flow, isNewUser);
        return { location: withQuery(flow.redirect_uri, { code, state: flow.state }), innerState };
      } catch (err) {
        const e = fromConnectError(err);
        if (e instanceof KnownError || (e instanceof StatusError && e.httpStatus < 500)) return { location: errorLocation(flow, e), innerState };
        throw err;
      }
    },

    async exchangeAuthorizationCode(req: { projectId: string; code: string; redirectUri: string; codeVerifier: string; ip: string }) {
      if (!req.code || !req.codeVerifier) throw knownError("INVALID_AUTHORIZATION_CODE");
      const taken = await oauthStore.takeCode(pool, req.projectId, hashSecret(req.code));
      if (!taken || taken.expired) throw knownError("INVALID_AUTHORIZATION_CODE");
      const data = taken.data as { redirect_uri?: string; code_challenge?: string; after_callback_redirect_url?: string; is_new_user?: boolean };
      if (!PKCE_VERIFIER.test(req.codeVerifier) || s256(req.codeVerifier) !== data.code_challenge) throw knownError("INVALID_AUTHORIZATION_CODE");
      if (req.redirectUri !== data.redirect_uri) throw statusError(400, "Invalid request: redirect_uri is not the one of the authorization request.");
      const user = isUuid(taken.user_id) ? await rt.sessions.getUser(req.projectId, taken.user_id) : undefined;
      if (!user) throw knownError("INVALID_AUTHORIZATION_CODE");
      const isNewUser = data.is_new_user === true;
      await requireSecondFactor(rt, { projectId: req.projectId, userId: user.id, requiresTotpMfa: user.requiresTotpMfa, isNewUser });
      const settings = await rt.settings.get(req.projectId);
      const result = await rt.sessions.signIn(settings, user, { ip: req.ip, isNewUser });
      return { result, afterCallbackRedirectUrl: data.after_callback_redirect_url || undefined };
    },

    async authorizeCrossDomain(req: {
      projectId: string;
      userId: string;
      sessionId: string;
      refreshToken: string;
      redirectUri: string;
      state: string;
      codeChallenge: string;
      afterCallbackRedirectUrl: string;
    }) {
      if (!PKCE_CHALLENGE.test(req.codeChallenge)) throw statusError(400, "code_challenge must be a base64url SHA-256 (S256) challenge.");
      const settings = await rt.settings.get(req.projectId);
      for (const url of [req.redirectUri, req.afterCallbackRedirectUrl]) {
        if (url && !isRedirectUrlTrusted(url, settings.redirectTrust)) throw knownError("REDIRECT_URL_NOT_WHITELISTED");
      }
      const session = req.refreshToken ? await rt.sessions.sessionIdOfToken(req.projectId, req.refreshToken) : undefined;
      if (!session || session !== req.sessionId) throw statusError(400, "The refresh token does not belong to the session of the access token.");
      const code = await issueCode(req.projectId, req.userId, { redirect_uri: req.redirectUri, code_challenge: req.codeChallenge, after_callback_redirect_url: req.afterCallbackRedirectUrl }, false);
      return { redirectUrl: withQuery(req.redirectUri, { code, state: req.state }) };
    },
  };
}
