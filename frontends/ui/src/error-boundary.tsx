/**
 * Error boundaries for data read with @vestibule/react's suspending hooks: a failed load (a known error, the network)
 * shows the error's message where the data would have been, and the rest of the page keeps working.
 */
import { Component, Suspense, type ReactNode } from "react";
import { ErrorAlert } from "./error-alert.tsx";

export class ErrorBoundary extends Component<{ children: ReactNode; fallback: (error: unknown) => ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    return this.state.error === null ? this.props.children : this.props.fallback(this.state.error);
  }
}

/** One part of a page that loads its own data: `fallback` (same size as the content) while loading, the error's message if it fails. */
export function AsyncSection({ fallback, children }: { fallback: ReactNode; children: ReactNode }) {
  return (
    <ErrorBoundary fallback={(error) => <ErrorAlert error={error} />}>
      <Suspense fallback={fallback}>{children}</Suspense>
    </ErrorBoundary>
  );
}
