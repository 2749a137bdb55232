/**
 * The client app for the pages below a provider, and the signed-in user without Suspense (pages show a skeleton of
 * their own size instead). Built on the SDK's cached resources (`vestibuleInternals`), so a sign-in, sign-out or
 * `user.update()` anywhere re-renders every user of the hook, in the host and in the remotes alike.
 * Adapter until @vestibule/react is on this branch; then pages can use its hooks directly.
 */
import { createContext, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from "react";
import { vestibuleInternals, type CurrentUser, type StackClientApp } from "@vestibule/js";

const ClientAppContext = createContext<StackClientApp | null>(null);

export function ClientAppProvider({ app, children }: { app: StackClientApp; children: ReactNode }) {
  return <ClientAppContext.Provider value={app}>{children}</ClientAppContext.Provider>;
}

export function useClientApp<App extends StackClientApp = StackClientApp>(): App {
  const app = useContext(ClientAppContext);
  if (!app) throw new Error("useClientApp must be used within a ClientAppProvider");
  return app as App;
}

export type UserState = { status: "loading" } | { status: "ok"; user: CurrentUser | null } | { status: "error"; error: unknown };

function useTokensVersion(app: StackClientApp): unknown {
  const internals = app[vestibuleInternals];
  return useSyncExternalStore(
    (l) => internals.onTokensChange(l),
    () => {
      const t = internals.tokenStore?.get();
      return t ? `${t.refreshToken ?? ""}` : "";
    },
    () => "",
  );
}

/** The signed-in user (anonymous users count as signed out), re-rendering on every change. */
export function useUserState(appOverride?: StackClientApp): UserState {
  const fromContext = useContext(ClientAppContext);
  const app = appOverride ?? fromContext;
  if (!app) throw new Error("useUserState needs an app (a ClientAppProvider above, or the argument)");
  const version = useTokensVersion(app);
  const handle = useMemo(() => {
    const h = app[vestibuleInternals].currentUser();
    // getState() builds a new object per call; React needs the same snapshot while nothing changed.
    let last: ReturnType<typeof h.getState> | null = null;
    const snapshot = () => {
      const next = h.getState();
      const same =
        last !== null &&
        last.status === next.status &&
        (next.status !== "ok" || (last as { value: unknown }).value === next.value) &&
        (next.status !== "error" || (last as { error: unknown }).error === next.error);
      if (!same) last = next;
      return last!;
    };
    return { subscribe: h.subscribe, load: h.load, snapshot };
  }, [app, version]);
  const state = useSyncExternalStore((l) => handle.subscribe(l), handle.snapshot, handle.snapshot);
  useEffect(() => {
    if (state.status === "pending") void handle.load().catch(() => undefined);
  }, [handle, state.status]);
  return useMemo((): UserState => {
    if (state.status === "pending") return { status: "loading" };
    if (state.status === "error") return { status: "error", error: state.error };
    const json = state.value as { is_anonymous?: boolean } | null;
    if (!json || json.is_anonymous) return { status: "ok", user: null };
    return { status: "ok", user: app[vestibuleInternals].user(json as Record<string, unknown>) };
  }, [state, app]);
}
