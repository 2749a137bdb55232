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
 *
 * The class is built in layers, one capability a module: client/core.ts (state, sessions, redirects), then
 * client/sign-in.ts (sign-in methods), objects/client.ts (the user and its objects), then this file (the getters and
 * the React hooks' internals). Subclasses rather than wrappers around modules of functions: every public method stays
 * a method of the class without a delegating copy, which would add bytes to the hosted pages (at their size budget).
 */
import type { AsyncCache, KnownErrorCode, Session as CoreSession, TokenPair, TokenStore } from "@vestibule/sdk-core";
import { ClientObjects } from "./objects/client.ts";
import type { Json } from "./json.ts";
import { customerOf } from "./model/project.ts";
import { activeSessionFrom } from "./model/user.ts";
import type {
  ActiveSession,
  ContactChannel,
  CurrentUser,
  GetUserOptions,
  Item,
  ItemCustomer,
  Project,
  Team,
  TeamPermission,
  TokenStoreInit,
} from "./types.ts";

export { CALLBACK_URL_REQUIRED_MESSAGE } from "./client/core.ts";
export {
  CLI_EXPIRED_MESSAGE,
  CLI_POLL_INTERVAL_MS,
  CLI_TIMEOUT_MESSAGE,
  CLI_USED_MESSAGE,
  MFA_ATTEMPT_CODE_STORAGE_KEY,
} from "./client/sign-in.ts";
export type { Json } from "./json.ts";

export const GET_USER_THROW_MESSAGE = "User is not signed in but getUser was called with { or: 'throw' }";
export const SCOPES_ON_NON_CURRENT_USER_MESSAGE = "Cannot add new scopes to a user that is not a CurrentUser";
export const featureNotSupportedMessage = (feature: string): string =>
  `${feature} is not currently supported. Please reach out to Stack support for more information.`;

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

export class StackClientApp extends ClientObjects {
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

function storeTokens(store: TokenStore | null): TokenPair | null {
  return store ? store.get() : null;
}

export type { KnownErrorCode };
