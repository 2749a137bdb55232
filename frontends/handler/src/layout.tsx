/** Shared page layout of the handler pages: a centred card with a heading, and its same-size loading skeleton. */
import { useEffect, useRef, type ReactNode } from "react";
import { Button, Card, ErrorAlert, ErrorBoundary, Skeleton, useTitle } from "@vestibule/ui";

export function AuthCard({ title, subtitle, children, wide }: { title: string; subtitle?: ReactNode; children?: ReactNode; wide?: boolean }) {
  useTitle(title);
  const heading = useRef<HTMLHeadingElement>(null);
  // Moving focus to the heading tells screen-reader users that a new page is shown.
  useEffect(() => heading.current?.focus({ preventScroll: true }), [title]);
  return (
    <div className="vs-auth-page">
      <Card className="vs-auth-card" style={wide ? { maxWidth: 880 } : undefined}>
        <div className="vs-stack">
          <div>
            <h1 ref={heading} tabIndex={-1} style={{ outline: "none" }}>
              {title}
            </h1>
            {subtitle ? <p className="vs-muted" style={{ margin: 0 }}>{subtitle}</p> : null}
          </div>
          {children}
        </div>
      </Card>
    </div>
  );
}

/** Same footprint as a sign-in card, shown while a page's code or data loads. */
export function AuthCardSkeleton() {
  return (
    <div className="vs-auth-page" aria-busy="true">
      <Card className="vs-auth-card">
        <div className="vs-stack">
          <span className="vs-sr-only" role="status">
            Loading…
          </span>
          <Skeleton width="55%" height={30} />
          <Skeleton width="80%" />
          <Skeleton height={40} style={{ marginTop: 24 }} />
          <Skeleton height={40} />
          <Skeleton height={40} />
        </div>
      </Card>
    </div>
  );
}

/**
 * A page whose data could not be loaded (the project, the user: network down, a known error) shows the error's
 * message in the page's card, with a way to try again, instead of an empty page.
 */
export function PageErrorBoundary({ children }: { children: ReactNode }) {
  return (
    <ErrorBoundary
      fallback={(error) => (
        <AuthCard title="Something went wrong">
          <ErrorAlert error={error} />
          <Button variant="primary" block onClick={() => location.reload()}>
            Try again
          </Button>
        </AuthCard>
      )}
    >
      {children}
    </ErrorBoundary>
  );
}
