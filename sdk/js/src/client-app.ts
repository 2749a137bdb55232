/**
 * The client app (publishable key): sign-in and sign-up flows, the current user and everything a signed-in user may
 * do, for browsers and for Node. Each method makes the calls listed in contract/sdk-calls.md §3.
 *
 * Decisions where the spec and contract are silent:
 *  - `tokenStore` defaults to "cookie" in a browser and "memory" elsewhere.
 *  - Redirects with redirectMethod "window" outside a browser do nothing (there is nowhere to navigate).
 *  - A multi-factor-required sign-in is returned as the `MultiFactorAuthenticationRequired` error result (after
 *    storing the attempt code and going to the mfa page where there is a page session storage), so server code
 *    without session storage can run the MFA step itself.
 *  - Reads go through per-resource caches (see @vestibule/sdk-core AsyncCache); writes update or refresh them, so an
 *    `await user.update(...)` is visible to the next `getUser()` and to subscribed React hooks.
 */
import {
  ApiClient,
  AsyncCache,
  CookieTokenStore,
  EMPTY_TOKENS,
  KnownError,
  KnownErrors,
  MemoryTokenStore,
  NO_ACCESS_TOKEN_MESSAGE,
  RequestTokenStore,
  Result,
  isKnownErrorOf,
  isRequestLike,
  type AccessType,
  type KnownErrorCode,
  type Session as CoreSession,
  type TokenPair,
  type TokenStore,
} from "@vestibule/sdk-core";
import { claimAppIdentifier } from "./app-registry.ts";
import {
  browserAlert,
  browserLocation,
  currentHref,
  currentOrigin,
  readCookie,
  replaceHistoryUrl,
  sessionStorageOrNull,
  writeCookie,
} from "./browser.ts";
import { defaultExtraRequestHeaders, defaultProjectId, defaultPublishableClientKey, isBrowser, resolveBaseUrl } from "./env.ts";
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
} from "./oauth.ts";
import { PASSKEY_INITIATION_FAILED_MESSAGE, createPasskeyCredential, getPasskeyAssertion } from "./passkeys.ts";
import {
  AFTER_AUTH_RETURN_TO_PARAM,
  REDIRECT_PAUSE_MS,
  absoluteUrl,
  assertTrustedRedirect,
  resolveHandlerUrls,
  withQuery,
  type HandlerUrls,
} from "./urls.ts";
import { CLIENT_VERSION } from "./version.ts";
import { projectUpdateBody } from "./project-body.ts";
import type { Json } from "./json.ts";
import { customerOf, itemFrom, projectFrom } from "./model/project.ts";
import { activeSessionFrom, baseUserFields, passkeyFrom, userUpdateBody } from "./model/user.ts";
import type {
  AdminOwnedProject,
  AdminProjectCreateOptions,
  ActiveSession,
  Passkey,
  ApiKeyCreationOptions,
  ContactChannel,
  ContactChannelCreateOptions,
  CurrentUser,
  EditableTeamMemberProfile,
  GetUserOptions,
  InternalUserExtra,
  Item,
  ItemCustomer,
  KnownErrorOfName,
  NotificationCategory,
  OAuthConnection,
  OAuthProvider,
  Project,
  RedirectToOptions,
  StackClientAppConstructorOptions,
  Team,
  TeamApiKey,
  TeamApiKeyFirstView,
  TeamCreateOptions,
  TeamInvitation,
  TeamPermission,
  TeamUser,
  TokenStoreInit,
  UserApiKey,
  UserApiKeyFirstView,
  UserUpdateOptions,
} from "./types.ts";

export type { Json } from "./json.ts";

export const MFA_ATTEMPT_CODE_STORAGE_KEY = "stack_mfa_attempt_code";
export const CLI_POLL_INTERVAL_MS = 2_000;
export const CLI_EXPIRED_MESSAGE = "CLI authentication request expired. Please try again.";
export const CLI_USED_MESSAGE = "This authentication token has already been used.";
export const CLI_TIMEOUT_MESSAGE = "Timed out waiting for CLI authentication.";
export const GET_USER_THROW_MESSAGE = "User is not signed in but getUser was called with { or: 'throw' }";
export const CALLBACK_URL_REQUIRED_MESSAGE = (option: string): string =>
  `${option} is required outside a browser (the link in the e-mail must point at a page of your app)`;
export const SCOPES_ON_NON_CURRENT_USER_MESSAGE = "Cannot add new scopes to a user that is not a CurrentUser";
export const featureNotSupportedMessage = (feature: string): string =>
  `${feature} is not currently supported. Please reach out to Stack support for more information.`;

/** The project whose users are the dashboard's project owners. */
export const INTERNAL_PROJECT_ID = "internal";

/** Internal hooks for @vestibule/react (not part of the public API). */
export const vestibuleInternals = Symbol.for("vestibule.sdk.internals");

/** A cached read exposed to React: subscribe, read the current state, and load. */
export interface ResourceHandle<T> {
  subscribe(onChange: () => void): () => void;
  /** A stable snapshot (same object until the value changes), as useSyncExternalStore needs. */
  getState(): { status: "pending"; promise?: Promise<unknown> } | { status: "ok"; value: T } | { status: "error"; error: unknown };
  load(): Promise<T>;
}

export interface VestibuleInternals {
  readonly tokenStore: TokenStore | null;
  /** Subscribes to token changes (sign-in/out, refreshes, other tabs). */
  onTokensChange(listener: () => void): () => void;
  currentUser(): ResourceHandle<Json | null>;
  user(json: Json): CurrentUser;
  project(): ResourceHandle<Project>;
  teams(): ResourceHandle<Team[]>;
  contactChannels(): ResourceHandle<ContactChannel[]>;
  permissions(teamId: string | null, recursive: boolean): ResourceHandle<TeamPermission[]>;
  activeSessions(): ResourceHandle<ActiveSession[]>;
  item(customer: ItemCustomer): ResourceHandle<Item>;
  /** Used by the React provider when redirectMethod is `{ useNavigate }`. */
  setNavigate(navigate: ((to: string) => void) | null): void;
  signUpAnonymously(): Promise<void>;
}

type TokensResponse = { access_token: string; refresh_token: string; is_new_user?: boolean; user_id?: string };

/**
 * @internal The API client and session behind each current user, for calls another app makes on the user's behalf
 * (an admin project's `transfer(user, teamId)` is a call of that user on the internal project).
 */
export const currentUserSessions = new WeakMap<object, { readonly api: ApiClient; readonly session: CoreSession }>();

/** @internal What an owned project is built from (see ownedProject). */
export interface OwnedProjectSource {
  /** The admin project JSON (`/internal/projects*`). */
  readonly json: Json;
  /** The owner's session on the internal project (the admin app refreshes it there). */
  readonly session: CoreSession;
  readonly options: StackClientAppConstructorOptions;
}

/**
 * Builds owned projects with their admin app. The admin app extends this class, so it is loaded with a dynamic
 * `import()` when an internal user first lists or creates projects: no import cycle, and nothing registered at module
 * load that a bundler honouring `"sideEffects": false` could drop (issue 22).
 */
async function ownedProjects(sources: readonly OwnedProjectSource[]): Promise<AdminOwnedProject[]> {
  const { ownedProjectFrom } = await import("./admin-app.ts");
  return sources.map(ownedProjectFrom);
}

let anonymousIds = 0;


export class StackClientApp {
  readonly projectId: string;
  readonly urls: Readonly<HandlerUrls>;
  /** @internal */
  protected readonly api: ApiClient;
  /** @internal */
  protected readonly tokenStore: TokenStore | null;
  /** @internal */
  protected readonly options: StackClientAppConstructorOptions;
  private readonly uniqueIdentifier: string;
  private readonly sessions = new WeakMap<TokenStore, CoreSession>();
  private anonymousSignUp: Promise<void> | null = null;
  private navigateOverride: ((to: string) => void) | null = null;
  private readonly resourceObjects = new WeakMap<object, unknown>();

  /** @internal */
  protected readonly caches = {
    currentUser: new AsyncCache<[CoreSession], Json | null>(([session]) => this.fetchCurrentUser(session)),
    project: new AsyncCache<[], Json>(() => this.api.json<Json>("/projects/current", { accessType: "client" })),
    teams: new AsyncCache<[CoreSession], Json[]>(async ([session]) =>
      (await this.api.json<{ items: Json[] }>("/teams", { query: { user_id: "me" }, session })).items,
    ),
    contactChannels: new AsyncCache<[CoreSession], Json[]>(async ([session]) =>
      (await this.api.json<{ items: Json[] }>("/contact-channels", { query: { user_id: "me" }, session })).items,
    ),
    permissions: new AsyncCache<[CoreSession, string | null, boolean], Json[]>(async ([session, teamId, recursive]) =>
      (
        await this.api.json<{ items: Json[] }>(teamId === null ? "/project-permissions" : "/team-permissions", {
          query: teamId === null ? { user_id: "me", recursive } : { team_id: teamId, user_id: "me", recursive },
          session,
        })
      ).items,
    ),
    sessions: new AsyncCache<[CoreSession], Json[]>(async ([session]) =>
      (await this.api.json<{ items: Json[] }>("/auth/sessions", { query: { user_id: "me" }, session })).items,
    ),
    items: new AsyncCache<[CoreSession | null, string, string, string], Json>(([session, type, customer, item]) =>
      this.api.json<Json>(`/payments/items/${type}/${encodeURIComponent(customer)}/${encodeURIComponent(item)}`, { session }),
    ),
  };

  constructor(options: StackClientAppConstructorOptions) {
    this.options = options;
    const projectId = options.projectId ?? defaultProjectId();
    if (!projectId) throw new Error("projectId is required (or set NEXT_PUBLIC_STACK_PROJECT_ID / STACK_PROJECT_ID)");
    this.projectId = projectId;
    this.urls = Object.freeze(resolveHandlerUrls(options.urls));
    this.api = this.createApiClient(options);
    this.tokenStore = this.createTokenStore(options.tokenStore === undefined ? (isBrowser() ? "cookie" : "memory") : options.tokenStore);
    this.uniqueIdentifier = options.uniqueIdentifier ?? `vestibule-app-${Date.now().toString(36)}-${++anonymousIds}-${Math.random().toString(36).slice(2)}`;
    claimAppIdentifier(this.uniqueIdentifier);
    if (!options.noAutomaticPrefetch && isBrowser()) {
      void this.caches.project.get([]).catch(() => {});
      const session = this.tokenStore ? this.sessionFor(this.tokenStore) : null;
      if (session && !session.isKnownToBeInvalid()) void this.caches.currentUser.get([session]).catch(() => {});
    }
  }

  /** @internal */
  protected createApiClient(options: StackClientAppConstructorOptions): ApiClient {
    return new ApiClient({
      baseUrl: resolveBaseUrl(options.baseUrl),
      projectId: this.projectId,
      publishableClientKey: options.publishableClientKey ?? defaultPublishableClientKey(),
      extraRequestHeaders: options.extraRequestHeaders ?? defaultExtraRequestHeaders(),
      clientVersion: CLIENT_VERSION,
      fetch: options.fetch,
      maxRateLimitWaitMillis: options.maxRateLimitWaitMillis,
    });
  }

  // ---- token stores and sessions -----------------------------------------------------------------------------

  /** @internal */
  protected createTokenStore(init: TokenStoreInit): TokenStore | null {
    if (init === null) return null;
    if (init === "cookie" || init === "nextjs-cookie") return new CookieTokenStore(this.projectId);
    if (init === "memory") return new MemoryTokenStore();
    if (isRequestLike(init)) return new RequestTokenStore(init, this.projectId);
    if (typeof init === "object" && "refreshToken" in init) {
      return new MemoryTokenStore({ refreshToken: init.refreshToken ?? null, accessToken: init.accessToken ?? null });
    }
    throw new Error(`Invalid tokenStore option: ${String(init)}`);
  }

  /** The session of a token store, kept while its refresh token stays the same. @internal */
  protected sessionFor(store: TokenStore): CoreSession {
    const tokens = store.get();
    const existing = this.sessions.get(store);
    if (existing) {
      const sameRefresh = tokens.refreshToken !== null && existing.getRefreshToken() === tokens.refreshToken;
      const bothEmpty = tokens.refreshToken === null && tokens.accessToken === null && existing.isKnownToBeInvalid();
      const sameAccessOnly =
        tokens.refreshToken === null && existing.getRefreshToken() === null && tokens.accessToken !== null && existing.getAccessToken()?.token === tokens.accessToken;
      if (sameRefresh || bothEmpty || sameAccessOnly) return existing;
    }
    let accessToken: string | null = tokens.accessToken;
    let session: CoreSession;
    try {
      session = this.api.createSession({ refreshToken: tokens.refreshToken, accessToken });
    } catch {
      accessToken = null; // an unreadable access token is dropped; the refresh token gets a new one
      session = this.api.createSession({ refreshToken: tokens.refreshToken, accessToken: null });
    }
    const refreshToken = tokens.refreshToken;
    session.onAccessTokenChange((at) => {
      if (store.get().refreshToken === refreshToken && refreshToken !== null) store.set({ refreshToken, accessToken: at?.token ?? null });
    });
    session.onInvalidate(() => {
      this.caches.currentUser.set([session], null);
      if (store.get().refreshToken === refreshToken) store.set(EMPTY_TOKENS);
    });
    this.sessions.set(store, session);
    return session;
  }

  /** The session for a call: the app's store, or a one-off store given to the call. @internal */
  protected sessionOf(tokenStore?: TokenStoreInit): CoreSession | null {
    if (tokenStore !== undefined) {
      const store = this.createTokenStore(tokenStore);
      return store ? this.sessionFor(store) : null;
    }
    return this.tokenStore ? this.sessionFor(this.tokenStore) : null;
  }

  /** @internal */
  protected requireSession(): CoreSession {
    const s = this.sessionOf();
    if (!s) throw new Error("This app has no token store (tokenStore: null); pass a tokenStore to use the current user");
    return s;
  }

  /** Stores new tokens after a sign-in. @internal */
  protected async signInWithTokens(tokens: TokensResponse, store: TokenStore | null = this.tokenStore): Promise<void> {
    if (!store) throw new Error("Cannot sign in: this app has no token store");
    store.set({ refreshToken: tokens.refresh_token, accessToken: tokens.access_token });
  }

  // ---- getters -----------------------------------------------------------------------------------------------

  private async fetchCurrentUser(session: CoreSession): Promise<Json | null> {
    if (session.isKnownToBeInvalid()) return null;
    try {
      return await this.api.json<Json>("/users/me", { session, accessType: this.userAccessType });
    } catch (err) {
      if (isKnownErrorOf(err, "CANNOT_GET_OWN_USER_WITHOUT_USER")) return null;
      throw err;
    }
  }

  /** Access type of the current-user calls (`client` here, `server` in server apps). @internal */
  protected get userAccessType(): AccessType {
    return "client";
  }

  getUser(options: GetUserOptions & { or: "redirect" | "throw" | "anonymous" }): Promise<CurrentUser>;
  getUser(options?: GetUserOptions): Promise<CurrentUser | null>;
  async getUser(options: GetUserOptions = {}): Promise<CurrentUser | null> {
    const session = this.sessionOf(options.tokenStore);
    const or = options.or ?? "return-null";
    let json = session && !session.isKnownToBeInvalid() ? await this.caches.currentUser.get([session]) : null;
    if (json?.is_anonymous && or !== "anonymous") json = null;
    if (json && session) return this.currentUserFrom(session, json);
    switch (or) {
      case "redirect":
        await this.redirectToSignIn({ replace: true });
        throw new Error("Redirected to the sign-in page; getUser({ or: 'redirect' }) cannot return outside a browser");
      case "throw":
        throw new Error(GET_USER_THROW_MESSAGE);
      case "anonymous": {
        const store = options.tokenStore === undefined ? this.tokenStore : this.createTokenStore(options.tokenStore);
        await this.signUpAnonymouslyInto(store);
        const user = await this.getUser({ ...options, tokenStore: store === this.tokenStore ? undefined : storeTokens(store), or: "return-null" });
        if (user) return user;
        // A user that is anonymous is returned here on purpose.
        const s = store ? this.sessionFor(store) : null;
        const anon = s ? await this.caches.currentUser.get([s]) : null;
        if (!anon || !s) throw new Error("Anonymous sign-up did not produce a user");
        return this.currentUserFrom(s, anon);
      }
      default:
        return null;
    }
  }

  /** The user from the access token alone, without a request (`{ from: "token" }`). */
  async getPartialUser(options: { from: "token"; or?: "return-null" | "anonymous"; tokenStore?: TokenStoreInit }): Promise<{
    id: string;
    displayName: string | null;
    primaryEmail: string | null;
    primaryEmailVerified: boolean;
    isAnonymous: boolean;
  } | null> {
    const session = this.sessionOf(options.tokenStore);
    const tokens = session ? await session.getOrFetchLikelyValidTokens() : null;
    if (!tokens) return null;
    const c = tokens.accessToken.claims;
    if (c.is_anonymous && options.or !== "anonymous") return null;
    return { id: c.sub, displayName: c.name, primaryEmail: c.email, primaryEmailVerified: c.email_verified, isAnonymous: c.is_anonymous };
  }

  async getProject(): Promise<Project> {
    return this.projectFrom(await this.caches.project.get([]));
  }

  /** `getItem({ itemId, userId | teamId | customCustomerId })`: always a client call (contract §3). */
  async getItem(options: ItemCustomer): Promise<Item> {
    const [type, id] = customerOf(options, "getItem");
    return this.itemFrom(await this.caches.items.get([this.sessionOf(), type, id, options.itemId]));
  }

  // ---- sign-in and sign-up -----------------------------------------------------------------------------------

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
      const mfa = await this.handleMfaRequired(err);
      if (mfa) return Result.error(mfa);
      if (KnownErrors.EmailPasswordMismatch.isInstance(err) || KnownErrors.InvalidTotpCode.isInstance(err)) return Result.error(err);
      throw err;
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
      const mfa = await this.handleMfaRequired(err);
      if (mfa) return Result.error(mfa);
      if (KnownErrors.VerificationCodeError.isInstance(err) || KnownErrors.InvalidTotpCode.isInstance(err)) return Result.error(err);
      throw err;
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
    const result = await catchKnown(async () => {
      await this.api.send("/contact-channels/verify", { method: "POST", body: { code }, session: this.sessionOf() });
      return undefined;
    }, KnownErrors.VerificationCodeError);
    if (result.status === "ok") await this.refreshUserCaches();
    return result;
  }

  async verifyTeamInvitationCode(code: string): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    return this.checkCode("/team-invitations/accept/check-code", code);
  }

  async acceptTeamInvitation(code: string): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    const result = await catchKnown(async () => {
      await this.api.send("/team-invitations/accept", { method: "POST", body: { code }, session: this.requireSession() });
      return undefined;
    }, KnownErrors.VerificationCodeError);
    if (result.status === "ok") await this.refreshUserCaches();
    return result;
  }

  async getTeamInvitationDetails(code: string): Promise<Result<{ teamDisplayName: string }, KnownErrorOfName<"VerificationCodeError">>> {
    return catchKnown(async () => {
      const r = await this.api.json<{ team_display_name: string }>("/team-invitations/accept/details", { method: "POST", body: { code }, session: this.requireSession() });
      return { teamDisplayName: r.team_display_name };
    }, KnownErrors.VerificationCodeError);
  }

  private async checkCode(path: string, code: string): Promise<Result<undefined, KnownErrorOfName<"VerificationCodeError">>> {
    return catchKnown(async () => {
      await this.api.send(path, { method: "POST", body: { code }, session: this.sessionOf() });
      return undefined;
    }, KnownErrors.VerificationCodeError);
  }

  /** Signs the current user out: invalidates the session on the server, clears the tokens, then redirects. */
  async signOut(options: { redirectUrl?: URL | string } = {}): Promise<void> {
    const session = this.sessionOf();
    if (session) await this.signOutSession(session);
    await this.redirectTo(options.redirectUrl?.toString() ?? this.urls.afterSignOut);
  }

  /** @internal */
  protected async signOutSession(session: CoreSession): Promise<void> {
    try {
      if (!session.isKnownToBeInvalid()) await this.api.send("/auth/sessions/current", { method: "DELETE", body: {}, session });
    } catch (err) {
      if (!KnownErrors.RefreshTokenError.isInstance(err)) throw err;
    } finally {
      session.markInvalid();
    }
  }

  /** Signs up an anonymous user (one at a time). */
  private async signUpAnonymouslyInto(store: TokenStore | null): Promise<void> {
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

  private async startOAuth(provider: string, type: "authenticate" | "link", options: { returnTo?: string; scopes?: string[] }): Promise<void> {
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
      client_secret: this.api.options.publishableClientKey ?? "",
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
        client_secret: this.api.options.publishableClientKey ?? "",
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
      if (await this.handleMfaRequired(err)) return Result.error(err as never);
      if (KnownErrors.PasskeyAuthenticationFailed.isInstance(err) || KnownErrors.InvalidTotpCode.isInstance(err) || KnownErrors.PasskeyWebAuthnError.isInstance(err)) {
        return Result.error(err);
      }
      throw err;
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

  // ---- redirects ---------------------------------------------------------------------------------------------

  /** @internal */
  protected async redirectTo(url: string, options: { replace?: boolean } = {}): Promise<void> {
    assertTrustedRedirect(url, currentOrigin());
    const method = this.options.redirectMethod ?? "window";
    if (method === "none") return;
    if (typeof method === "object") {
      const navigate = method.navigate ?? this.navigateOverride;
      if (!navigate) throw new Error("redirectMethod.useNavigate works only inside a StackProvider; pass redirectMethod.navigate for other code");
      navigate(url);
      return;
    }
    const location = browserLocation();
    if (!location) return;
    if (options.replace) location.replace(url);
    else location.assign(url);
    await pause();
  }

  /** The return-to target of the current page (`after_auth_return_to`), if any. */
  private returnTo(): string | null {
    const href = currentHref();
    return href ? new URL(href).searchParams.get(AFTER_AUTH_RETURN_TO_PARAM) : null;
  }

  private async redirectToAuthPage(page: string, options: RedirectToOptions = {}): Promise<void> {
    const href = currentHref();
    let target = page;
    const carried = this.returnTo();
    if (carried) target = withQuery(page, { [AFTER_AUTH_RETURN_TO_PARAM]: carried });
    else if (!options.noRedirectBack && href) {
      const u = new URL(href);
      target = withQuery(page, { [AFTER_AUTH_RETURN_TO_PARAM]: u.pathname + u.search + u.hash });
    }
    await this.redirectTo(target, options);
  }

  async redirectToSignIn(options?: RedirectToOptions): Promise<void> {
    await this.redirectToAuthPage(this.urls.signIn, options);
  }
  async redirectToSignUp(options?: RedirectToOptions): Promise<void> {
    await this.redirectToAuthPage(this.urls.signUp, options);
  }
  async redirectToAfterSignIn(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.returnTo() ?? this.urls.afterSignIn, options);
  }
  async redirectToAfterSignUp(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.returnTo() ?? this.urls.afterSignUp, options);
  }
  async redirectToSignOut(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.signOut, options);
  }
  async redirectToAfterSignOut(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.afterSignOut, options);
  }
  async redirectToEmailVerification(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.emailVerification, options);
  }
  async redirectToPasswordReset(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.passwordReset, options);
  }
  async redirectToForgotPassword(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.forgotPassword, options);
  }
  async redirectToHome(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.home, options);
  }
  async redirectToMagicLinkCallback(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.magicLinkCallback, options);
  }
  async redirectToAccountSettings(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.accountSettings, options);
  }
  async redirectToTeamInvitation(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.teamInvitation, options);
  }
  async redirectToMfa(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.mfa, options);
  }
  async redirectToError(options?: RedirectToOptions): Promise<void> {
    await this.redirectTo(this.urls.error, options);
  }

  /**
   * An absolute callback URL for an e-mail link: the option when given; in a browser the handler page on the current
   * origin (keeping `after_auth_return_to`); elsewhere the option is required.
   * @internal
   */
  protected callbackUrl(page: string, option: string, keepReturnTo = false): string {
    const href = currentHref();
    const url = absoluteUrl(page, href);
    if (!url) throw new Error(CALLBACK_URL_REQUIRED_MESSAGE(option));
    const carried = keepReturnTo ? this.returnTo() : null;
    return carried ? withQuery(url, { [AFTER_AUTH_RETURN_TO_PARAM]: carried }) : url;
  }

  // ---- objects -----------------------------------------------------------------------------------------------

  /** @internal */
  protected projectFrom(json: Json): Project {
    return this.memo(json, () => projectFrom(json));
  }

  /** @internal */
  protected itemFrom(json: Json): Item {
    return itemFrom(json);
  }

  /** Same JSON object → same SDK object (stable identities for React). @internal */
  protected memo<T>(json: object, build: () => T): T {
    let o = this.resourceObjects.get(json) as T | undefined;
    if (o === undefined) {
      o = build();
      this.resourceObjects.set(json, o);
    }
    return o;
  }

  /** @internal */
  protected async refreshUserCaches(session: CoreSession | null = this.sessionOf()): Promise<void> {
    if (!session) return;
    await Promise.all([
      this.caches.currentUser.refresh([session]).catch(() => {}),
      this.caches.teams.getIfCached([session]) ? this.caches.teams.refresh([session]).catch(() => {}) : undefined,
      // e.g. a verified e-mail changes the channel's isVerified, a new primary e-mail both lists
      this.caches.contactChannels.getIfCached([session]) ? this.caches.contactChannels.refresh([session]).catch(() => {}) : undefined,
    ]);
  }

  /** @internal */
  protected currentUserFrom(session: CoreSession, json: Json): CurrentUser {
    return this.memo(json, () => this.buildCurrentUser(session, json));
  }

  /** @internal */
  protected baseUserFields(json: Json) {
    return baseUserFields(json);
  }

  /** @internal */
  protected authFields(session: CoreSession) {
    const getAuthJson = async () => {
      const tokens = await session.getOrFetchLikelyValidTokens();
      return { accessToken: tokens?.accessToken.token ?? null, refreshToken: tokens?.refreshToken ?? session.getRefreshToken() };
    };
    return {
      currentSession: { getTokens: getAuthJson },
      getAuthJson,
      getAuthHeaders: async () => ({ "x-stack-auth": JSON.stringify(await getAuthJson()) }),
      signOut: async (options: { redirectUrl?: URL | string } = {}) => {
        await this.signOutSession(session);
        await this.redirectTo(options.redirectUrl?.toString() ?? this.urls.afterSignOut);
      },
      registerPasskey: async (options: { hostname?: string } = {}) => {
        let init: { options_json: Json; code: string };
        try {
          init = await this.api.json("/auth/passkey/initiate-passkey-registration", { method: "POST", body: {}, session });
        } catch (err) {
          if (err instanceof KnownError) throw err;
          return Result.error(new KnownErrors.PasskeyRegistrationFailed(PASSKEY_INITIATION_FAILED_MESSAGE));
        }
        try {
          const credential = await createPasskeyCredential(init.options_json, options.hostname ?? browserLocation()?.hostname ?? "localhost");
          await this.api.send("/auth/passkey/register", { method: "POST", body: { credential, code: init.code }, session });
          await this.refreshUserCaches(session);
          return Result.ok(undefined);
        } catch (err) {
          if (KnownErrors.PasskeyRegistrationFailed.isInstance(err) || KnownErrors.PasskeyWebAuthnError.isInstance(err)) return Result.error(err);
          throw err;
        }
      },
      listPasskeys: async (): Promise<Passkey[]> => {
        const r = await this.api.json<{ items: Json[] }>("/auth/passkeys?user_id=me", { session });
        return r.items.map(passkeyFrom);
      },
      renamePasskey: async (id: string, name: string) => {
        await this.api.send(`/auth/passkeys/${encodeURIComponent(id)}?user_id=me`, { method: "PATCH", body: { name }, session });
      },
      deletePasskey: async (id: string) => {
        await this.api.send(`/auth/passkeys/${encodeURIComponent(id)}?user_id=me`, { method: "DELETE", session });
        await this.refreshUserCaches(session);
      },
    };
  }

  private buildCurrentUser(session: CoreSession, json: Json): CurrentUser {
    const api = this.api;
    const app = this;
    const update = async (u: UserUpdateOptions) => {
      const updated = await api.json<Json>("/users/me", { method: "PATCH", body: userUpdateBody(u), session });
      this.caches.currentUser.set([session], updated);
    };
    const teamPermissionArgs = (scopeOrOptions?: Team | { recursive?: boolean } | string, options?: { recursive?: boolean }) => {
      if (typeof scopeOrOptions === "object" && scopeOrOptions !== null && "id" in scopeOrOptions) {
        return { teamId: scopeOrOptions.id as string, recursive: options?.recursive ?? true };
      }
      return { teamId: null, recursive: (scopeOrOptions as { recursive?: boolean } | undefined)?.recursive ?? true };
    };
    const listPermissions = async (scopeOrOptions?: Team | { recursive?: boolean }, options?: { recursive?: boolean }) => {
      const { teamId, recursive } = teamPermissionArgs(scopeOrOptions, options);
      return (await this.caches.permissions.get([session, teamId, recursive])).map((p) => ({ id: p.id as string }));
    };
    const getPermission = async (scopeOrId: Team | string, permissionId?: string) => {
      const [team, id] = typeof scopeOrId === "string" ? [undefined, scopeOrId] : [scopeOrId, permissionId!];
      return (await listPermissions(team)).find((p) => p.id === id) ?? null;
    };
    const user: CurrentUser = {
      ...this.baseUserFields(json),
      ...this.authFields(session),
      get selectedTeam() {
        return json.selected_team ? app.teamFrom(session, json.selected_team) : null;
      },
      update,
      setDisplayName: (displayName) => update({ displayName }),
      setClientMetadata: (clientMetadata) => update({ clientMetadata }),
      setSelectedTeam: (team) => update({ selectedTeamId: team?.id ?? null }),
      async sendVerificationEmail() {
        try {
          await api.send("/contact-channels/send-verification-code", {
            method: "POST",
            body: { email: json.primary_email, callback_url: app.callbackUrl(app.urls.emailVerification, "callbackUrl") },
            session,
          });
        } catch (err) {
          if (KnownErrors.EmailAlreadyVerified.isInstance(err)) return err;
          throw err;
        }
      },
      async updatePassword(options) {
        try {
          await api.send("/auth/password/update", { method: "POST", body: { old_password: options.oldPassword, new_password: options.newPassword }, session });
          await app.refreshUserCaches(session);
        } catch (err) {
          if (KnownErrors.PasswordConfirmationMismatch.isInstance(err) || KnownErrors.PasswordRequirementsNotMet.isInstance(err)) return err;
          throw err;
        }
      },
      async setPassword(options) {
        try {
          await api.send("/auth/password/set", { method: "POST", body: { password: options.password }, session });
          await app.refreshUserCaches(session);
        } catch (err) {
          if (KnownErrors.PasswordRequirementsNotMet.isInstance(err)) return err;
          throw err;
        }
      },
      async delete() {
        await api.send("/users/me", { method: "DELETE", session });
        session.markInvalid();
      },
      listContactChannels: async () => (await this.caches.contactChannels.get([session])).map((c) => this.contactChannelFrom(session, c, "me")),
      async createContactChannel(data: ContactChannelCreateOptions) {
        const created = await api.json<Json>("/contact-channels", {
          method: "POST",
          body: { user_id: "me", value: data.value, type: data.type, used_for_auth: data.usedForAuth, is_primary: data.isPrimary },
          session,
        });
        // A new primary channel changes the user's primary e-mail too.
        await app.refreshUserCaches(session);
        return app.contactChannelFrom(session, created, "me");
      },
      async listNotificationCategories() {
        const r = await api.json<{ items: Json[] }>("/emails/notification-preference/me", { session });
        return r.items.map((c) => app.notificationCategoryFrom(session, c, "me"));
      },
      getConnectedAccount: async (providerId, options = {}) => this.connectedAccount(session, json, providerId, options),
      listPermissions,
      getPermission,
      hasPermission: async (scopeOrId, permissionId) => (await getPermission(scopeOrId, permissionId)) !== null,
      listTeams: async () => (await this.caches.teams.get([session])).map((t) => this.teamFrom(session, t)),
      getTeam: async (id) => {
        const t = (await this.caches.teams.get([session])).find((x) => x.id === id);
        return t ? this.teamFrom(session, t) : null;
      },
      async createTeam(data: TeamCreateOptions) {
        const created = await api.json<Json>("/teams", {
          method: "POST",
          body: { display_name: data.displayName, profile_image_url: data.profileImageUrl, creator_user_id: "me" },
          session,
        });
        await app.caches.teams.refresh([session]);
        await update({ selectedTeamId: created.id });
        return app.teamFrom(session, created);
      },
      async leaveTeam(team) {
        await api.send(`/team-memberships/${team.id}/me`, { method: "DELETE", body: {}, session });
        await app.refreshUserCaches(session);
        await app.caches.teams.refresh([session]).catch(() => {});
      },
      getActiveSessions: async () => (await this.caches.sessions.get([session])).map(activeSessionFrom),
      async revokeSession(sessionId) {
        await api.send(`/auth/sessions/${encodeURIComponent(sessionId)}`, { method: "DELETE", query: { user_id: "me" }, session });
        await app.caches.sessions.refresh([session]).catch(() => {});
      },
      getTeamProfile: async (team) => this.teamProfileFrom(session, team.id, await api.json<Json>(`/team-member-profiles/${team.id}/me`, { session })),
      createApiKey: async (options) => this.createApiKey(session, "user", json.id, options) as Promise<UserApiKeyFirstView>,
      listApiKeys: async () => this.listApiKeys(session, "user", json.id) as Promise<UserApiKey[]>,
      listOAuthProviders: async () =>
        (await api.json<{ items: Json[] }>("/oauth-providers", { query: { user_id: "me" }, session })).items.map((p) => this.oauthProviderFrom(session, p)),
      getOAuthProvider: async (id) => {
        const list = (await api.json<{ items: Json[] }>("/oauth-providers", { query: { user_id: "me" }, session })).items;
        const p = list.find((x) => x.id === id);
        return p ? this.oauthProviderFrom(session, p) : null;
      },
      getItem: async (itemId) => this.itemFrom(await this.caches.items.get([session, "user", json.id, itemId])),
      createCheckoutUrl: async (options) => this.createCheckoutUrl(session, "user", json.id, options),
    };
    currentUserSessions.set(user, { api, session });
    if (this.projectId !== INTERNAL_PROJECT_ID) return user;
    const internal: InternalUserExtra = {
      async listOwnedProjects() {
        const r = await api.json<{ items: Json[] }>("/internal/projects", { session });
        return ownedProjects(r.items.map((p) => ({ json: p, session, options: app.options })));
      },
      async createProject(options: AdminProjectCreateOptions) {
        const body = { ...projectUpdateBody(options), owner_team_id: options.teamId };
        const created = await api.json<Json>("/internal/projects", { method: "POST", body, session });
        const [project] = await ownedProjects([{ json: created, session, options: app.options }]);
        return project!;
      },
    };
    return Object.assign(user, internal);
  }

  /** @internal */
  protected async connectedAccount(
    session: CoreSession,
    userJson: Json,
    providerId: string,
    options: { or?: "redirect" | "throw" | "return-null"; scopes?: string[] },
  ): Promise<OAuthConnection | null> {
    const scope = options.scopes?.join(" ");
    const missing = async (): Promise<null> => {
      if (options.or === "redirect") {
        await this.startOAuth(providerId, "link", { returnTo: currentHref() ?? undefined, scopes: options.scopes });
        throw new Error("Redirected to the OAuth provider to connect the account");
      }
      if (options.or === "throw") throw new Error(`No connected ${providerId} account with the required scopes`);
      return null;
    };
    const linked = ((userJson.oauth_providers ?? []) as Json[]).some((p) => p.id === providerId);
    if (!linked) return missing();
    try {
      const r = await this.api.json<{ access_token: string }>(`/connected-accounts/me/${encodeURIComponent(providerId)}/access-token`, {
        method: "POST",
        body: scope ? { scope } : {},
        session,
      });
      const accessToken = r.access_token;
      return { id: providerId, getAccessToken: async () => ({ accessToken }) };
    } catch (err) {
      if (KnownErrors.OAuthConnectionDoesNotHaveRequiredScope.isInstance(err) || KnownErrors.OAuthConnectionNotConnectedToUser.isInstance(err)) return missing();
      throw err;
    }
  }

  /** @internal */
  protected teamFrom(session: CoreSession | null, json: Json): Team {
    return this.memo(json, () => {
      const api = this.api;
      const app = this;
      const team: Team = {
        id: json.id,
        displayName: json.display_name,
        profileImageUrl: json.profile_image_url ?? null,
        clientMetadata: json.client_metadata ?? null,
        clientReadOnlyMetadata: json.client_read_only_metadata ?? null,
        async inviteUser(options) {
          await api.send("/team-invitations/send-code", {
            method: "POST",
            body: { email: options.email, team_id: json.id, callback_url: options.callbackUrl ?? app.callbackUrl(app.urls.teamInvitation, "callbackUrl") },
            session,
          });
        },
        async listUsers(): Promise<TeamUser[]> {
          const r = await api.json<{ items: Json[] }>("/team-member-profiles", { query: { team_id: json.id }, session });
          return r.items.map((p) => ({ id: p.user_id, teamProfile: { displayName: p.display_name ?? null, profileImageUrl: p.profile_image_url ?? null } }));
        },
        async listInvitations(): Promise<TeamInvitation[]> {
          const r = await api.json<{ items: Json[] }>("/team-invitations", { query: { team_id: json.id }, session });
          return r.items.map((i) => ({
            id: i.id,
            recipientEmail: i.recipient_email ?? null,
            expiresAt: new Date(i.expires_at_millis),
            revoke: async () => {
              await api.send(`/team-invitations/${i.id}`, { method: "DELETE", query: { team_id: json.id }, session });
            },
          }));
        },
        async update(u) {
          await api.send(`/teams/${json.id}`, {
            method: "PATCH",
            body: { display_name: u.displayName, profile_image_url: u.profileImageUrl, client_metadata: u.clientMetadata },
            session,
          });
          // The team list and the user's selected team (part of the user) both show the change.
          if (session) await Promise.all([app.caches.teams.refresh([session]).catch(() => {}), app.caches.currentUser.refresh([session]).catch(() => {})]);
        },
        async delete() {
          await api.send(`/teams/${json.id}`, { method: "DELETE", session });
          if (session) await app.refreshUserCaches(session);
          if (session) await app.caches.teams.refresh([session]).catch(() => {});
        },
        createApiKey: async (options) => app.createApiKey(session, "team", json.id, options) as Promise<TeamApiKeyFirstView>,
        listApiKeys: async () => app.listApiKeys(session, "team", json.id) as Promise<TeamApiKey[]>,
        getItem: async (itemId) => app.itemFrom(await app.caches.items.get([session, "team", json.id, itemId])),
        createCheckoutUrl: async (options) => app.createCheckoutUrl(session, "team", json.id, options),
      };
      return team;
    });
  }

  /** @internal */
  protected teamProfileFrom(session: CoreSession | null, teamId: string, json: Json): EditableTeamMemberProfile {
    return {
      displayName: json.display_name ?? null,
      profileImageUrl: json.profile_image_url ?? null,
      update: async (u) => {
        await this.api.send(`/team-member-profiles/${teamId}/${session ? "me" : json.user_id}`, {
          method: "PATCH",
          body: { display_name: u.displayName, profile_image_url: u.profileImageUrl },
          session,
          accessType: session ? this.userAccessType : "server",
        });
      },
    };
  }

  /** @internal */
  protected contactChannelFrom(session: CoreSession | null, json: Json, userId: string): ContactChannel {
    const path = `/contact-channels/${userId}/${json.id}`;
    const accessType: AccessType = session ? "client" : "server";
    const refresh = async () => {
      if (session) await this.caches.contactChannels.refresh([session]).catch(() => {});
      if (session) await this.caches.currentUser.refresh([session]).catch(() => {});
    };
    return {
      id: json.id,
      value: json.value,
      type: json.type,
      isPrimary: json.is_primary,
      isVerified: json.is_verified,
      usedForAuth: json.used_for_auth,
      sendVerificationEmail: async (options = {}) => {
        await this.api.send(`${path}/send-verification-code`, {
          method: "POST",
          body: { callback_url: options.callbackUrl ?? this.callbackUrl(this.urls.emailVerification, "callbackUrl") },
          session,
          accessType,
        });
      },
      update: async (data: { value?: string; usedForAuth?: boolean; isPrimary?: boolean; isVerified?: boolean }) => {
        await this.api.send(path, {
          method: "PATCH",
          body: { value: data.value, used_for_auth: data.usedForAuth, is_primary: data.isPrimary, is_verified: data.isVerified },
          session,
          accessType,
        });
        await refresh();
      },
      delete: async () => {
        await this.api.send(path, { method: "DELETE", session, accessType });
        await refresh();
      },
    };
  }

  /** @internal */
  protected notificationCategoryFrom(session: CoreSession | null, json: Json, userId: string): NotificationCategory {
    return {
      id: json.notification_category_id,
      name: json.notification_category_name,
      enabled: json.enabled,
      canDisable: json.can_disable,
      setEnabled: async (enabled) => {
        await this.api.send(`/emails/notification-preference/${userId}/${json.notification_category_id}`, {
          method: "PATCH",
          body: { enabled },
          session,
          accessType: session ? "client" : "server",
        });
      },
    };
  }

  /** @internal */
  protected oauthProviderFrom(session: CoreSession | null, json: Json): OAuthProvider {
    const path = `/oauth-providers/${session ? "me" : json.user_id}/${json.id}`;
    const accessType: AccessType = session ? "client" : "server";
    return {
      id: json.id,
      type: json.type ?? json.provider_config_id,
      userId: json.user_id,
      accountId: json.account_id,
      email: json.email ?? undefined,
      allowSignIn: json.allow_sign_in,
      allowConnectedAccounts: json.allow_connected_accounts,
      update: async (data: { allowSignIn?: boolean; allowConnectedAccounts?: boolean; accountId?: string; email?: string }) =>
        catchKnown(async () => {
          await this.api.send(path, {
            method: "PATCH",
            body: { allow_sign_in: data.allowSignIn, allow_connected_accounts: data.allowConnectedAccounts, account_id: data.accountId, email: data.email },
            session,
            accessType,
          });
          return undefined;
        }, KnownErrors.OAuthProviderAccountIdAlreadyUsedForSignIn),
      delete: async () => {
        await this.api.send(path, { method: "DELETE", session, accessType });
      },
    };
  }

  /** @internal */
  protected async createApiKey(session: CoreSession | null, type: "user" | "team", ownerId: string, options: ApiKeyCreationOptions) {
    const json = await this.api.json<Json>(`/${type}-api-keys`, {
      method: "POST",
      body: {
        description: options.description,
        expires_at_millis: options.expiresAt ? options.expiresAt.getTime() : null,
        is_public: options.isPublic,
        [`${type}_id`]: ownerId,
      },
      session,
      accessType: session ? "client" : "server",
    });
    return this.apiKeyFrom(session, json);
  }

  /** @internal */
  protected async listApiKeys(session: CoreSession | null, type: "user" | "team", ownerId: string) {
    const r = await this.api.json<{ items: Json[] }>(`/${type}-api-keys`, { query: { [`${type}_id`]: ownerId }, session, accessType: session ? "client" : "server" });
    return r.items.map((k) => this.apiKeyFrom(session, k));
  }

  /** @internal */
  protected apiKeyFrom(session: CoreSession | null, json: Json) {
    const type = json.type as "user" | "team";
    const ownerQuery = type === "user" ? { user_id: json.user_id } : { team_id: json.team_id };
    const expiresAt = json.expires_at_millis == null ? undefined : new Date(json.expires_at_millis);
    const manuallyRevokedAt = json.manually_revoked_at_millis == null ? null : new Date(json.manually_revoked_at_millis);
    const whyInvalid = (): "manually-revoked" | "expired" | null => {
      if (manuallyRevokedAt) return "manually-revoked";
      if (expiresAt && expiresAt.getTime() < Date.now()) return "expired";
      return null;
    };
    const update = async (o: { description?: string; expiresAt?: Date | null; revoked?: boolean }) => {
      await this.api.send(`/${type}-api-keys/${json.id}`, {
        method: "PATCH",
        query: ownerQuery,
        body: {
          description: o.description,
          expires_at_millis: o.expiresAt === undefined ? undefined : o.expiresAt === null ? null : o.expiresAt.getTime(),
          revoked: o.revoked,
        },
        session,
        accessType: session ? "client" : "server",
      });
    };
    return {
      id: json.id,
      description: json.description,
      expiresAt,
      manuallyRevokedAt,
      createdAt: new Date(json.created_at_millis),
      isPublic: !!json.is_public,
      type,
      ...(type === "user" ? { userId: json.user_id } : { teamId: json.team_id }),
      value: typeof json.value === "string" ? json.value : { lastFour: json.value?.last_four },
      update,
      revoke: () => update({ revoked: true }),
      isValid: () => whyInvalid() === null,
      whyInvalid,
    };
  }

  /** @internal */
  protected async createCheckoutUrl(session: CoreSession | null, customerType: string, customerId: string, options: { offerId: string } | { offer: Record<string, unknown> }) {
    const body: Json = { customer_type: customerType, customer_id: customerId };
    if ("offerId" in options) body.offer_id = options.offerId;
    else body.inline_offer = options.offer;
    return (await this.api.json<{ url: string }>("/payments/purchases/create-purchase-url", { method: "POST", body, session })).url;
  }

  // ---- React support -----------------------------------------------------------------------------------------

  private internalsObject: VestibuleInternals | null = null;

  /** @internal */
  get [vestibuleInternals](): VestibuleInternals {
    return (this.internalsObject ??= this.buildInternals());
  }

  private buildInternals(): VestibuleInternals {
    const handle = <K extends readonly unknown[], V, T>(cache: AsyncCache<K, V>, key: () => K | null, map: (v: V) => T, empty: T): ResourceHandle<T> => {
      const emptyState = { status: "ok" as const, value: empty };
      const nothingYet = { status: "pending" as const };
      return {
        subscribe: (onChange) => {
          const k = key();
          return k ? cache.subscribe(k, onChange) : () => {};
        },
        getState: () => {
          const k = key();
          if (!k) return emptyState;
          const s = cache.getIfCached(k);
          if (!s) return nothingYet;
          return this.memo(s as object, () => {
            // React replays a suspended use() with the first thenable it saw: it must resolve to the mapped value.
            if (s.status === "pending") {
              const promise = s.promise.then(map);
              promise.catch(() => {});
              return { status: "pending" as const, promise };
            }
            if (s.status === "error") return { status: "error" as const, error: s.error };
            return { status: "ok" as const, value: map(s.value) };
          });
        },
        load: async () => {
          const k = key();
          return k ? map(await cache.get(k)) : empty;
        },
      };
    };
    const liveSession = () => this.sessionOf();
    /** The session of a signed-in user, else null: the user's lists are then empty, without a request. */
    const userSession = (): [CoreSession] | null => {
      const s = liveSession();
      return s && !s.isKnownToBeInvalid() ? [s] : null;
    };
    return {
      tokenStore: this.tokenStore,
      onTokensChange: (listener) => this.tokenStore?.subscribe(() => listener()) ?? (() => {}),
      currentUser: () => handle(this.caches.currentUser, () => { const s = liveSession(); return s ? [s] as [CoreSession] : null; }, (v) => v, null),
      user: (json) => this.currentUserFrom(liveSession()!, json),
      project: () => handle(this.caches.project, () => [] as [], (v) => this.projectFrom(v), null as never),
      teams: () => handle(this.caches.teams, userSession, (v) => v.map((t) => this.teamFrom(liveSession(), t)), []),
      contactChannels: () => handle(this.caches.contactChannels, userSession, (v) => v.map((c) => this.contactChannelFrom(liveSession(), c, "me")), []),
      permissions: (teamId, recursive) =>
        handle(this.caches.permissions, () => { const k = userSession(); return k ? [k[0], teamId, recursive] as [CoreSession, string | null, boolean] : null; }, (v) => v.map((p) => ({ id: p.id as string })), []),
      activeSessions: () => handle(this.caches.sessions, userSession, (v) => v.map(activeSessionFrom), []),
      item: (customer) => {
        const [type, id] = customerOf(customer, "useItem");
        return handle(this.caches.items, () => [liveSession(), type, id, customer.itemId] as [CoreSession | null, string, string, string], (v) => this.itemFrom(v), null as never);
      },
      setNavigate: (navigate) => {
        this.navigateOverride = navigate;
      },
      signUpAnonymously: () => this.signUpAnonymouslyInto(this.tokenStore),
    };
  }
}

// ---- helpers -----------------------------------------------------------------------------------------------

function storeTokens(store: TokenStore | null): TokenPair | null {
  return store ? store.get() : null;
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, REDIRECT_PAUSE_MS));
}

function waitMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}





/** Runs `fn`, returning errors of the given known-error classes as an error result. */
export async function catchKnown<T, C extends { isInstance(e: unknown): boolean; new (...args: never[]): KnownError }>(
  fn: () => Promise<T>,
  ...classes: C[]
): Promise<Result<T, InstanceType<C>>> {
  try {
    return Result.ok(await fn());
  } catch (err) {
    if (classes.some((c) => c.isInstance(err))) return Result.error(err as InstanceType<C>);
    throw err;
  }
}

export type { KnownErrorCode };
