/**
 * The provider that hands a Vestibule app to every hook below it. It also puts a last-resort Suspense boundary
 * around the tree: Vestibule hooks suspend while they load (React 19 Suspense), and a hook that suspends with no
 * `<Suspense>` of the app's own above it reaches this boundary, whose fallback raises a developer-facing error instead
 * of leaving the page blank without explanation.
 */
import { Suspense, createContext, useContext, useEffect, type ReactNode } from "react";
import { vestibuleInternals, type StackClientApp } from "@vestibule/js";

export const PROVIDER_MISSING_MESSAGE = "useStackApp must be used within a StackProvider";
export const MISSING_SUSPENSE_MESSAGE =
  "A Vestibule hook suspended while loading, but no <Suspense> boundary is above it. Wrap the component (or your whole app) in <Suspense fallback={...}> inside the <StackProvider>.";

export class MissingSuspenseBoundaryError extends Error {
  constructor() {
    super(MISSING_SUSPENSE_MESSAGE);
    this.name = "MissingSuspenseBoundaryError";
  }
}

const AppContext = createContext<StackClientApp | null>(null);

/**
 * The provider's own fallback. In the browser it is rendered only when a suspension reached the provider, i.e. no
 * boundary of the app caught it: that is the developer error. Server renderers (React 19 Fizz) render fallbacks
 * eagerly, so on the server it renders nothing instead of failing a page that is fine.
 */
function MissingSuspenseBoundary(): null {
  if (typeof window === "undefined") return null;
  throw new MissingSuspenseBoundaryError();
}

/** Lets `redirectMethod: { useNavigate }` use the router's navigate function inside the provider. */
function NavigateBridge({ app }: { app: StackClientApp }) {
  const method = (app as unknown as { options: { redirectMethod?: unknown } }).options.redirectMethod as
    | { useNavigate?: () => (to: string) => void }
    | undefined;
  const navigate = typeof method === "object" && method?.useNavigate ? method.useNavigate() : null;
  useEffect(() => {
    const internals = app[vestibuleInternals];
    internals.setNavigate(navigate);
    return () => internals.setNavigate(null);
  }, [app, navigate]);
  return null;
}

export interface StackProviderProps {
  readonly app: StackClientApp;
  readonly children?: ReactNode;
}

export function StackProvider({ app, children }: StackProviderProps) {
  return (
    <AppContext.Provider value={app}>
      <NavigateBridge app={app} />
      <Suspense fallback={<MissingSuspenseBoundary />}>{children}</Suspense>
    </AppContext.Provider>
  );
}

/** The app of the nearest provider; throws 'useStackApp must be used within a StackProvider' outside one. */
export function useStackApp<App extends StackClientApp = StackClientApp>(): App {
  const app = useContext(AppContext);
  if (!app) throw new Error(PROVIDER_MISSING_MESSAGE);
  return app as App;
}

/** Vestibule name of the provider. */
export const VestibuleProvider = StackProvider;
/** Vestibule name of useStackApp. */
export const useVestibuleApp = useStackApp;
