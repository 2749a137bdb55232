/**
 * One federated module on the page, isolated from the rest: while it loads a placeholder keeps its space; if its
 * remote is down (manifest or code unreachable) or it crashes while rendering, an error panel takes its area and the
 * rest of the dashboard keeps working. "Try again" loads it anew.
 */
import { Component, Suspense, lazy, useMemo, useState, type ComponentType, type ReactNode } from "react";
import { Alert, Button, Skeleton } from "@vestibule/ui";
import { loadFederated, loadedFederated } from "./federation.ts";

export class Boundary extends Component<{ title: string; onRetry: () => void; children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    if (this.state.error === null) return this.props.children;
    const message = this.state.error instanceof Error ? this.state.error.message : String(this.state.error);
    return (
      <section className="vs-card vs-stack" role="alert" data-testid="remote-error" aria-label={`${this.props.title} is unavailable`}>
        <Alert kind="error" title={`${this.props.title} is unavailable right now`}>
          This part of the dashboard could not be loaded. The rest of the dashboard keeps working.
          <details style={{ marginTop: 6 }}>
            <summary>Technical details</summary>
            <span className="vs-hint">{message.slice(0, 300)}</span>
          </details>
        </Alert>
        <div>
          <Button onClick={() => {
            this.setState({ error: null });
            this.props.onRetry();
          }}>
            Try again
          </Button>
        </div>
      </section>
    );
  }
}

export function AreaPlaceholder() {
  return (
    <div className="vs-stack" aria-busy="true">
      <span className="vs-sr-only" role="status">
        Loading…
      </span>
      <Skeleton height={28} width="30%" />
      <Skeleton height={40} />
      <Skeleton height={240} />
    </div>
  );
}

type Federated<P> = { default: ComponentType<P> } | ComponentType<P>;
const componentOf = <P,>(mod: Federated<P>): ComponentType<P> => (typeof mod === "function" ? mod : mod.default);

/** A federated component: rendered at once when its module is already loaded (preloaded), else lazily. */
export function RemoteModule<P extends object>({ id, title, props, fallback }: { id: string; title: string; props: P; fallback?: ReactNode }) {
  const [attempt, setAttempt] = useState(0);
  const Lazy = useMemo(
    () => {
      const ready = attempt === 0 ? loadedFederated<Federated<P>>(id) : undefined;
      if (ready) return componentOf(ready);
      return lazy(async () => ({ default: componentOf(await loadFederated<Federated<P>>(id)) }));
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [id, attempt],
  );
  return (
    <Boundary key={attempt} title={title} onRetry={() => setAttempt((n) => n + 1)}>
      <Suspense fallback={fallback ?? <AreaPlaceholder />}>
        <Lazy {...props} />
      </Suspense>
    </Boundary>
  );
}
