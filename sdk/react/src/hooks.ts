/**
 * Suspense hooks over the app's caches. Each hook subscribes to one cached resource (so it re-renders when the value
 * changes, e.g. after `user.update()` or a sign-in in another tab) and suspends with the cache's own promise while
 * the value loads. Errors go to the nearest error boundary.
 */
import { use, useCallback, useMemo, useSyncExternalStore } from "react";
import {
  GET_USER_THROW_MESSAGE,
  vestibuleInternals,
  type ActiveSession,
  type ContactChannel,
  type CurrentUser,
  type GetUserOptions,
  type Item,
  type ItemCustomer,
  type Project,
  type ResourceHandle,
  type StackClientApp,
  type Team,
  type TeamPermission,
} from "@vestibule/js";
import { useStackApp } from "./provider.tsx";

const never = new Promise<never>(() => {});

/** Re-renders on every token change (sign-in, sign-out, refresh, other tabs) and returns a changing version. */
function useTokensVersion(app: StackClientApp): unknown {
  const internals = app[vestibuleInternals];
  const subscribe = useCallback((onChange: () => void) => internals.onTokensChange(onChange), [internals]);
  return useSyncExternalStore(subscribe, () => internals.tokenStore?.get() ?? null, () => internals.tokenStore?.get() ?? null);
}

type Snapshot<T> = ReturnType<ResourceHandle<T>["getState"]>;
type TaggedThenable<T> = PromiseLike<T> & { status: "fulfilled" | "rejected"; value?: T; reason?: unknown };
const thenables = new WeakMap<object, TaggedThenable<unknown>>();

/**
 * The snapshot as a thenable for `use()`: the cache's promise while pending, a pre-settled thenable otherwise (React
 * reads `status`/`value`/`reason` and does not suspend), so `use()` is called on every render, as React requires.
 */
function thenableOf<T>(state: Snapshot<T>): PromiseLike<T> {
  if (state.status === "pending") return state.promise as PromiseLike<T>;
  let t = thenables.get(state);
  if (!t) {
    t =
      state.status === "ok"
        ? { status: "fulfilled", value: state.value, then: (resolve) => Promise.resolve(state.value).then(resolve as never) }
        : { status: "rejected", reason: state.error, then: (_resolve, reject) => Promise.reject(state.error).then(undefined, reject as never) };
    thenables.set(state, t);
  }
  return t as TaggedThenable<T>;
}

/** Reads a cached resource, suspending while it loads. */
export function useResource<T>(handle: ResourceHandle<T>): T {
  const subscribe = useCallback((onChange: () => void) => handle.subscribe(onChange), [handle]);
  const getState = useCallback(() => handle.getState(), [handle]);
  let state = useSyncExternalStore(subscribe, getState, getState);
  if (state.status === "pending" && !state.promise) {
    // Nothing requested yet (first render before any subscription): start the load and suspend on it.
    handle.load().catch(() => {});
    state = handle.getState();
  }
  return use(thenableOf(state));
}

function useHandle<T>(make: (app: StackClientApp) => ResourceHandle<T>, deps: readonly unknown[]): ResourceHandle<T> {
  const app = useStackApp();
  const version = useTokensVersion(app);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  return useMemo(() => make(app), [app, version, ...deps]);
}

/**
 * The signed-in user, as `app.getUser(options)`: with `or: "redirect"` a signed-out visitor goes to the sign-in page,
 * `"throw"` throws, `"anonymous"` signs up an anonymous user (then reloads the page when the tokens live in cookies,
 * so every part of the page sees the new session), `"return-null"` (default) returns null. Anonymous users count as
 * signed out unless `or: "anonymous"`.
 */
export function useUser(options: GetUserOptions & { or: "redirect" | "throw" | "anonymous" }): CurrentUser;
export function useUser(options?: GetUserOptions): CurrentUser | null;
export function useUser(options: GetUserOptions = {}): CurrentUser | null {
  const app = useStackApp();
  const internals = app[vestibuleInternals];
  const handle = useHandle((a) => a[vestibuleInternals].currentUser(), []);
  let json = useResource(handle);
  const or = options.or ?? "return-null";
  if (json?.is_anonymous && or !== "anonymous") json = null;
  if (json) return internals.user(json);
  switch (or) {
    case "redirect":
      void app.redirectToSignIn({ replace: true });
      return use(never);
    case "throw":
      throw new Error(GET_USER_THROW_MESSAGE);
    case "anonymous":
      return use(anonymousSignUp(app));
    default:
      return null;
  }
}

const anonymousSignUps = new WeakMap<StackClientApp, { promise: Promise<CurrentUser>; refreshToken: string | null | undefined }>();
/**
 * Signs up an anonymous user once per app and resolves with it; components that render before the new session
 * reaches them get the same user. With cookie-stored tokens the page reloads so every part of it (and other apps on
 * the page) starts from the new session.
 */
function anonymousSignUp(app: StackClientApp): Promise<CurrentUser> {
  const internals = app[vestibuleInternals];
  const existing = anonymousSignUps.get(app);
  const current = internals.tokenStore?.get().refreshToken;
  if (existing && (existing.refreshToken === undefined || existing.refreshToken === current)) return existing.promise;
  const entry: { promise: Promise<CurrentUser>; refreshToken: string | null | undefined } = { promise: null as never, refreshToken: undefined };
  entry.promise = (async () => {
    try {
      await internals.signUpAnonymously();
      entry.refreshToken = internals.tokenStore?.get().refreshToken ?? null;
    } catch (err) {
      anonymousSignUps.delete(app);
      throw err;
    }
    if (internals.tokenStore?.kind === "cookie" && typeof window !== "undefined") {
      window.location.reload();
      return never;
    }
    const json = await internals.currentUser().load();
    if (!json) throw new Error("Anonymous sign-up did not produce a user");
    return internals.user(json);
  })();
  anonymousSignUps.set(app, entry);
  return entry.promise;
}

export function useProject(): Project {
  return useResource(useHandle((a) => a[vestibuleInternals].project(), []));
}

/** The signed-in user's teams (empty when signed out). */
export function useTeams(): Team[] {
  return useResource(useHandle((a) => a[vestibuleInternals].teams(), []));
}

export function useTeam(id: string): Team | null {
  return useTeams().find((t) => t.id === id) ?? null;
}

export function useContactChannels(): ContactChannel[] {
  return useResource(useHandle((a) => a[vestibuleInternals].contactChannels(), []));
}

/** Permissions of the signed-in user: in a team, or project permissions without one. Recursive by default. */
export function usePermissions(team?: Team | null, options: { recursive?: boolean } = {}): TeamPermission[] {
  const teamId = team?.id ?? null;
  const recursive = options.recursive ?? true;
  return useResource(useHandle((a) => a[vestibuleInternals].permissions(teamId, recursive), [teamId, recursive]));
}

export function usePermission(team: Team | null, permissionId: string): TeamPermission | null {
  return usePermissions(team).find((p) => p.id === permissionId) ?? null;
}

export function useActiveSessions(): ActiveSession[] {
  return useResource(useHandle((a) => a[vestibuleInternals].activeSessions(), []));
}

export function useItem(customer: ItemCustomer): Item {
  const key = JSON.stringify(customer);
  return useResource(useHandle((a) => a[vestibuleInternals].item(customer), [key]));
}
