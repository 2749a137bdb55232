/**
 * The core of a client app: its state (API client, token store, per-resource caches), the session behind each token
 * store, redirects and callback URLs. The sign-in methods (client/sign-in.ts), the SDK objects (objects/client.ts)
 * and the public getters (client-app.ts) build on it, each a subclass, as the server and admin apps build on the client
 * app.
 */
import {
  ApiClient,
  AsyncCache,
  CookieTokenStore,
  EMPTY_TOKENS,
  KnownErrors,
  MemoryTokenStore,
  RequestTokenStore,
  isKnownErrorOf,
  isRequestLike,
  type AccessType,
  type Session as CoreSession,
  type TokenStore,
} from "@vestibule/sdk-core";
import { claimAppIdentifier } from "../app-registry.ts";
import { browserLocation, currentHref, currentOrigin } from "../browser.ts";
import { defaultExtraRequestHeaders, defaultProjectId, defaultPublishableClientKey, isBrowser, resolveBaseUrl } from "../env.ts";
import type { Json } from "../json.ts";
import type { RedirectToOptions, StackClientAppConstructorOptions, TokenStoreInit } from "../types.ts";
import {
  AFTER_AUTH_RETURN_TO_PARAM,
  REDIRECT_PAUSE_MS,
  absoluteUrl,
  assertTrustedRedirect,
  resolveHandlerUrls,
  withQuery,
  type HandlerUrls,
} from "../urls.ts";
import { CLIENT_VERSION } from "../version.ts";

export const CALLBACK_URL_REQUIRED_MESSAGE = (option: string): string =>
  `${option} is required outside a browser (the link in the e-mail must point at a page of your app)`;

/** @internal The wire's answer to every sign-in. */
export type TokensResponse = { access_token: string; refresh_token: string; is_new_user?: boolean; user_id?: string };

let anonymousIds = 0;

/** @internal */
export class ClientAppCore {
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
  /** @internal Set by the React provider when redirectMethod is `{ useNavigate }`. */
  protected navigateOverride: ((to: string) => void) | null = null;
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
}

/** Waits after a navigation, so that nothing runs on in a page that is being left. */
export function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, REDIRECT_PAUSE_MS));
}
