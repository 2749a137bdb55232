/**
 * The sign-in methods of a client app: password, magic link, multi-factor, codes of e-mailed links, sign-out,
 * anonymous sign-up, OAuth (authorization code with PKCE), passkeys and the CLI login.
 */
import { KnownError, KnownErrors, NO_ACCESS_TOKEN_MESSAGE, PUBLIC_CLIENT_SECRET, Result, type TokenStore } from "@vestibule/sdk-core";
import { browserAlert, browserLocation, currentHref, readCookie, replaceHistoryUrl, sessionStorageOrNull, writeCookie } from "../browser.ts";
import { catchKnown, type KnownErrorClass } from "../catch-known.ts";
import type { Json } from "../json.ts";
import {
  OAUTH_CALLBACK_ERROR_MESSAGE,
  OAUTH_INVALID_TOTP_MESSAGE,
  OAUTH_MISSING_VERIFIER_WARNING,
  PKCE_METHOD,
  createPkce,
  deleteCookieAssignment,
  oauthVerifierCookieName,
  stripCodeAndState,
  verifierCookie,
} from "../oauth.ts";
import { getPasskeyAssertion } from "../passkeys.ts";
import type { KnownErrorOfName, StackClientAppConstructorOptions } from "../types.ts";
import { absoluteUrl } from "../urls.ts";
import { ClientAppCore, pause, type TokensResponse } from "./core.ts";

export const MFA_ATTEMPT_CODE_STORAGE_KEY = "stack_mfa_attempt_code";
export const CLI_POLL_INTERVAL_MS = 2_000;
export const CLI_EXPIRED_MESSAGE = "CLI authentication request expired. Please try again.";
export const CLI_USED_MESSAGE = "This authentication token has already been used.";
export const CLI_TIMEOUT_MESSAGE = "Timed out waiting for CLI authentication.";

/** @internal */
/** @internal */
export class ClientSignIn extends ClientAppCore {
  private anonymousSignUp: Promise<void> | null = null;

  async signInWithCredential(options: { email: string; password: string; noRedirect?: boolean }): Promise<
    Result<undefined, KnownErrorOfName<"EmailPasswordMismatch"> | KnownErrorOfName<"InvalidTotpCode"> | KnownErrorOfName<"MultiFactorAuthenticationRequired">>
  > {
    try {
      const tokens = await this.api.json<TokensResponse>("/auth/password/sign-in", {
        method: "POST",
        body: { email: options.email, password: options.password },
      });
      await this.signInWithTokens(tokens);
      if (!options.noRedirect) await this.redirectToAfterSignIn({ replace: true });
      return Result.ok(undefined);
    } catch (err) {
      return this.signInFailure(err, KnownErrors.EmailPasswordMismatch, KnownErrors.InvalidTotpCode);
    }
  }

  async signUpWithCredential(options: { email: string; password: string; noRedirect?: boolean; verificationCallbackUrl?: string }): Promise<
    Result<undefined, KnownErrorOfName<"UserWithEmailAlreadyExists"> | KnownErrorOfName<"PasswordRequirementsNotMet">>
  > {
    const callback = options.verificationCallbackUrl ?? this.callbackUrl(this.urls.emailVerification, "verificationCallbackUrl", true);
    try {
      const tokens = await this.api.json<TokensResponse>("/auth/password/sign-up", {
        method: "POST",
        body: { email: options.email, password: options.password, verification_callback_url: callback },
        session: this.sessionOf(), // an anonymous user is upgraded in place
      });
      await this.signInWithTokens(tokens);
      if (!options.noRedirect) await this.redirectToAfterSignUp({ replace: true });
      return Result.ok(undefined);
    } catch (err) {
      if (KnownErrors.UserWithEmailAlreadyExists.isInstance(err) || KnownErrors.PasswordRequirementsNotMet.isInstance(err)) return Result.error(err);
      throw err;
    }
  }

  async sendMagicLinkEmail(email: string, options: { callbackUrl?: string } = {}): Promise<Result<{ nonce: string }, KnownErrorOfName<"RedirectUrlNotWhitelisted">>> {
    const callback = options.callbackUrl ?? this.callbackUrl(this.urls.magicLinkCallback, "callbackUrl");
    return catchKnown(
      () => this.api.json<{ nonce: string }>("/auth/otp/send-sign-in-code", { method: "POST", body: { email, callback_url: callback } }),
      KnownErrors.RedirectUrlNotWhitelisted,
    );
  }

  async signInWithMagicLink(code: string, options: { noRedirect?: boolean } = {}): Promise<
    Result<undefined, KnownErrorOfName<"VerificationCodeError"> | KnownErrorOfName<"InvalidTotpCode"> | KnownErrorOfName<"MultiFactorAuthenticationRequired">>
  > {
    return this.signInWithCode("/auth/otp/sign-in", { code }, options);
  }

  /**
   * Signs in with an impersonation ticket from the dashboard ("Open the app as this user"; the handler page
   * `impersonate` calls it): exchanges the ticket, once, for the tokens of an impersonation session and stores them.
   * A used, expired or unknown ticket throws a StatusError (400) whose message says so in a plain sentence.
   */
  async signInWithImpersonationTicket(ticket: string, options: { noRedirect?: boolean } = {}): Promise<void> {
    const tokens = await this.api.json<TokensResponse>("/auth/impersonation-tickets/exchange", { method: "POST", body: { ticket } });
    await this.signInWithTokens(tokens);
    if (!options.noRedirect) await this.redirectToAfterSignIn({ replace: true });
  }

  async signInWithMfa(otp: string, code: string, options: { noRedirect?: boolean } = {}): Promise<
    Result<undefined, KnownErrorOfName<"VerificationCodeError"> | KnownErrorOfName<"InvalidTotpCode"> | KnownErrorOfName<"MultiFactorAuthenticationRequired">>
  > {
    const result = await this.signInWithCode("/auth/mfa/sign-in", { type: "totp", totp: otp, code }, options);
    if (result.status === "ok") sessionStorageOrNull()?.removeItem?.(MFA_ATTEMPT_CODE_STORAGE_KEY);
    return result;
  }

  private async signInWithCode(path: string, body: Json, options: { noRedirect?: boolean }) {
    try {
      const tokens = await this.api.json<TokensResponse>(path, { method: "POST", body, session: this.sessionOf() });
      await this.signInWithTokens(tokens);
      if (!options.noRedirect) {
        if (tokens.is_new_user) await this.redirectToAfterSignUp({ replace: true });
        else await this.redirectToAfterSignIn({ replace: true });
      }
      return Result.ok(undefined);
    } catch (err) {
      return this.signInFailure(err, KnownErrors.VerificationCodeError, KnownErrors.InvalidTotpCode);
    }
  }

  /**
   * A multi-factor-required error: where there is a page session storage (a browser), the attempt code goes there and
   * the page to the mfa page (which reads it back), as the published SDK does. Either way the error is handed back as
   * a result (the published SDK throws after redirecting instead), so server code without session storage can run the
   * MFA step itself with `details.attempt_code`.
   */
  private async handleMfaRequired(err: unknown): Promise<KnownErrorOfName<"MultiFactorAuthenticationRequired"> | null> {
    if (!KnownErrors.MultiFactorAuthenticationRequired.isInstance(err)) return null;
    const storage = sessionStorageOrNull();
    const attemptCode = (err.details as { attempt_code?: string } | undefined)?.attempt_code;
    if (storage && attemptCode) {
      storage.setItem(MFA_ATTEMPT_CODE_STORAGE_KEY, attemptCode);
      await this.redirectTo(this.urls.mfa, { replace: true });
    }
    return err;
  }

  /** A failed sign-in: multi-factor required (see handleMfaRequired) and the `expected` errors become an error result. */
  private async signInFailure<C extends KnownErrorClass[]>(
    err: unknown,
    ...expected: C
  ): Promise<Result<never, KnownErrorOfName<"MultiFactorAuthenticationRequired"> | InstanceType<C[number]>>> {
    const mfa = await this.handleMfaRequired(err);
    if (mfa) return Result.error(mfa);
    if (expected.some((c) => c.isInstance(err))) return Result.error(err as InstanceType<C[number]>);
    throw err;
  }

  /** The attempt code saved by a multi-factor-required sign-in (for the mfa page). */
  getMfaAttemptCode(): string | null {
    return sessionStorageOrNull()?.getItem(MFA_ATTEMPT_CODE_STORAGE_KEY) ?? null;
  }

  async sendForgotPasswordEmail(email: string, options: { callbackUrl?: string } = {}): Promise<Result<undefined, KnownErrorOfName<"UserNotFound">>> {
    const callback = options.callbackUrl ?? this.callbackUrl(this.urls.passwordReset, "callbackUrl");
    return catchKnown(async () => {
      await this.api.send("/auth/password/send-reset-code", { method: "POST", body: { email, callback_url: callback } });
      return undefined;
    }, KnownErrors.UserNotFound);
  }

  async resetPassword(options: { code: string; password: string }): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    return catchKnown(async () => {
      await this.api.send("/auth/password/reset", { method: "POST", body: { code: options.code, password: options.password } });
      return undefined;
    }, KnownErrors.VerificationCodeError);
  }

  async verifyPasswordResetCode(code: string): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    return this.checkCode("/auth/password/reset/check-code", code);
  }

  async verifyEmail(code: string): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    return this.checkCode("/contact-channels/verify", code, this.sessionOf(), true);
  }

  async verifyTeamInvitationCode(code: string): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    return this.checkCode("/team-invitations/accept/check-code", code);
  }

  async acceptTeamInvitation(code: string): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    return this.checkCode("/team-invitations/accept", code, this.requireSession(), true);
  }

  async getTeamInvitationDetails(code: string): Promise<Result<{ teamDisplayName: string }, KnownErrorOfName<"VerificationCodeError">>> {
    return catchKnown(async () => {
      const r = await this.api.json<{ team_display_name: string }>("/team-invitations/accept/details", { method: "POST", body: { code }, session: this.requireSession() });
      return { teamDisplayName: r.team_display_name };
    }, KnownErrors.VerificationCodeError);
  }

  /** Posts an e-mailed code; a redeemed one (`refreshCaches`) changes what the user's caches hold. */
  private async checkCode(
    path: string,
    code: string,
    session = this.sessionOf(),
    refreshCaches = false,
  ): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    const result = await catchKnown(async () => {
      await this.api.send(path, { method: "POST", body: { code }, session });
      return undefined;
    }, KnownErrors.VerificationCodeError);
    if (refreshCaches && result.status === "ok") await this.refreshUserCaches();
    return result;
  }

  /** Signs the current user out: invalidates the session on the server, clears the tokens, then redirects. */
  async signOut(options: { redirectUrl?: URL | string } = {}): Promise<void> {
    const session = this.sessionOf();
    if (session) await this.signOutSession(session);
    await this.redirectTo(options.redirectUrl?.toString() ?? this.urls.afterSignOut);
  }

  /** Signs up an anonymous user (one at a time). @internal */
  protected async signUpAnonymouslyInto(store: TokenStore | null): Promise<void> {
    if (store !== this.tokenStore) {
      const tokens = await this.api.json<TokensResponse>("/auth/anonymous/sign-up", { method: "POST", body: {} });
      await this.signInWithTokens(tokens, store);
      return;
    }
    this.anonymousSignUp ??= (async () => {
      try {
        const tokens = await this.api.json<TokensResponse>("/auth/anonymous/sign-up", { method: "POST", body: {} });
        await this.signInWithTokens(tokens, store);
      } finally {
        this.anonymousSignUp = null;
      }
    })();
    return this.anonymousSignUp;
  }

  // ---- OAuth -------------------------------------------------------------------------------------------------

  /** Redirects to the provider (authorization-code flow with PKCE S256; the verifier waits in a cookie for 1 h). */
  async signInWithOAuth(provider: string, options: { returnTo?: string } = {}): Promise<void> {
    await this.startOAuth(provider, "authenticate", { returnTo: options.returnTo });
  }

  /** @internal */
  protected async startOAuth(provider: string, type: "authenticate" | "link", options: { returnTo?: string; scopes?: string[] }): Promise<void> {
    const location = browserLocation();
    if (!location) throw new Error("OAuth sign-in needs a browser");
    const { verifier, challenge, state } = await createPkce();
    writeCookie(verifierCookie(state, verifier, location.protocol === "https:"));
    const session = this.sessionOf();
    const tokens = session ? await session.getOrFetchLikelyValidTokens() : null;
    if (type === "link" && !tokens) throw new Error(NO_ACCESS_TOKEN_MESSAGE);
    const scopes = [...(this.options.oauthScopesOnSignIn?.[provider as keyof NonNullable<StackClientAppConstructorOptions["oauthScopesOnSignIn"]>] ?? []), ...(options.scopes ?? [])];
    const url = new URL(`${this.api.apiUrl}/auth/oauth/authorize/${encodeURIComponent(provider.toLowerCase())}`);
    const params: Record<string, string | undefined> = {
      client_id: this.projectId,
      client_secret: this.api.options.publishableClientKey ?? PUBLIC_CLIENT_SECRET,
      redirect_uri: absoluteUrl(this.urls.oauthCallback, location.href)!,
      scope: "legacy",
      state,
      grant_type: "authorization_code",
      code_challenge: challenge,
      code_challenge_method: PKCE_METHOD,
      response_type: "code",
      type,
      error_redirect_url: absoluteUrl(this.urls.error, location.href)!,
      after_callback_redirect_url: options.returnTo ? absoluteUrl(options.returnTo, location.href)! : undefined,
      token: tokens?.accessToken.token,
      provider_scope: scopes.length ? scopes.join(" ") : undefined,
    };
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    location.assign(url.toString());
    await pause();
  }

  /**
   * Completes an OAuth sign-in on the callback page: reads `code` and `state`, removes them from the address, reads
   * and removes the verifier cookie (missing: ignored with a warning), exchanges the code and redirects. Returns true
   * when the user was signed in.
   */
  async callOAuthCallback(): Promise<boolean> {
    const href = currentHref();
    if (!href) throw new Error("callOAuthCallback needs a browser");
    const url = new URL(href);
    const code = url.searchParams.get("code");
    const state = url.searchParams.get("state");
    if (!code || !state) return false;
    const redirectUri = stripCodeAndState(href);
    replaceHistoryUrl(redirectUri);
    const cookieName = oauthVerifierCookieName(state);
    const verifier = readCookie(cookieName);
    writeCookie(deleteCookieAssignment(cookieName));
    if (!verifier) {
      console.warn(OAUTH_MISSING_VERIFIER_WARNING);
      return false;
    }
    try {
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: this.projectId,
        client_secret: this.api.options.publishableClientKey ?? PUBLIC_CLIENT_SECRET,
      });
      const res = await (this.options.fetch ?? globalThis.fetch)(`${this.api.apiUrl}/auth/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8", accept: "application/json" },
        body: form.toString(),
      });
      const body = (await res.json()) as Json;
      if (typeof body.code === "string" && (res.headers.get("x-stack-known-error") !== null || !res.ok)) throw KnownError.fromJson(body as { code: string });
      if (!res.ok) throw new Error(`OAuth token exchange failed with status ${res.status}`);
      await this.signInWithTokens(body as TokensResponse);
      const after = body.after_callback_redirect_url as string | null | undefined;
      if (after) await this.redirectTo(after, { replace: true });
      else if (body.is_new_user) await this.redirectToAfterSignUp({ replace: true });
      else await this.redirectToAfterSignIn({ replace: true });
      return true;
    } catch (err) {
      if (await this.handleMfaRequired(err)) return false;
      if (KnownErrors.InvalidTotpCode.isInstance(err)) {
        browserAlert(OAUTH_INVALID_TOTP_MESSAGE);
        return false;
      }
      console.error(err);
      browserAlert(OAUTH_CALLBACK_ERROR_MESSAGE);
      return false;
    }
  }

  /** @deprecated the callback page calls callOAuthCallback itself */
  async redirectToOAuthCallback(): Promise<void> {
    await this.redirectTo(this.urls.oauthCallback);
  }

  // ---- passkeys ----------------------------------------------------------------------------------------------

  async signInWithPasskey(): Promise<
    Result<undefined, KnownErrorOfName<"PasskeyAuthenticationFailed"> | KnownErrorOfName<"InvalidTotpCode"> | KnownErrorOfName<"PasskeyWebAuthnError">>
  > {
    try {
      const init = await this.api.json<{ options_json: Json; code: string }>("/auth/passkey/initiate-passkey-authentication", { method: "POST", body: {} });
      const response = await getPasskeyAssertion(init.options_json, browserLocation()?.hostname ?? "localhost");
      const tokens = await this.api.json<TokensResponse>("/auth/passkey/sign-in", { method: "POST", body: { authentication_response: response, code: init.code } });
      await this.signInWithTokens(tokens);
      await this.redirectToAfterSignIn({ replace: true });
      return Result.ok(undefined);
    } catch (err) {
      // A multi-factor-required error is returned too, although the published signature does not name it.
      return this.signInFailure(err, KnownErrors.PasskeyAuthenticationFailed, KnownErrors.InvalidTotpCode, KnownErrors.PasskeyWebAuthnError) as never;
    }
  }

  // ---- CLI login ---------------------------------------------------------------------------------------------

  /**
   * Logs a command-line tool in: starts a CLI login, shows the confirmation link (`promptLink`, else the console),
   * then polls every 2,000 ms (default, unlimited attempts) until the browser side confirms. Resolves the refresh
   * token.
   */
  async promptCliLogin(options: {
    appUrl: string;
    expiresInMillis?: number;
    maxAttempts?: number;
    waitTimeMillis?: number;
    promptLink?: (url: string) => void;
  }): Promise<Result<string, KnownErrorOfName<"CliAuthError"> | KnownErrorOfName<"CliAuthExpiredError"> | KnownErrorOfName<"CliAuthUsedError">>> {
    let init: { polling_code: string; login_code: string };
    try {
      init = await this.api.json("/auth/cli", { method: "POST", body: options.expiresInMillis === undefined ? {} : { expires_in_millis: options.expiresInMillis } });
    } catch (err) {
      return Result.error(new KnownErrors.CliAuthError(`Failed to initiate CLI auth: ${(err as Error).message}`));
    }
    const link = `${options.appUrl.replace(/\/+$/, "")}${this.urls.cliAuthConfirm}?login_code=${encodeURIComponent(init.login_code)}`;
    if (options.promptLink) options.promptLink(link);
    else console.log(`Please visit the following URL to authenticate:\n${link}`);
    const maxAttempts = options.maxAttempts ?? Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      let res;
      try {
        res = await this.api.send("/auth/cli/poll", { method: "POST", body: { polling_code: init.polling_code } });
      } catch (err) {
        return Result.error(new KnownErrors.CliAuthError(`Failed to poll CLI auth: ${(err as Error).message}`));
      }
      const body = res.json<{ status: string; refresh_token?: string }>();
      if (res.status === 201 && body.status === "success" && body.refresh_token) return Result.ok(body.refresh_token);
      if (body.status === "waiting") {
        await waitMs(options.waitTimeMillis ?? CLI_POLL_INTERVAL_MS);
        continue;
      }
      if (body.status === "expired") return Result.error(new KnownErrors.CliAuthExpiredError(CLI_EXPIRED_MESSAGE));
      if (body.status === "used") return Result.error(new KnownErrors.CliAuthUsedError(CLI_USED_MESSAGE));
      return Result.error(new KnownErrors.CliAuthError(`Unexpected status from CLI auth polling: ${body.status}`));
    }
    return Result.error(new KnownErrors.CliAuthError(CLI_TIMEOUT_MESSAGE));
  }

  /** The CLI confirmation page: hands the signed-in user's refresh token to the waiting CLI (Vestibule addition). */
  async confirmCliLogin(loginCode: string): Promise<void> {
    const session = this.requireSession();
    const refreshToken = session.getRefreshToken();
    if (!refreshToken) throw new Error("Sign in before confirming a CLI login");
    await this.api.send("/auth/cli/complete", { method: "POST", body: { login_code: loginCode, refresh_token: refreshToken }, session });
  }
}

function waitMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
