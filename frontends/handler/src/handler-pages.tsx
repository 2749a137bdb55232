/**
 * The handler pages as one component (exposed as `handler/HandlerPages`): give it a client app and it renders the page
 * of the current address below the app's handler path (`app.urls.handler`, default /handler): sign-in, sign-up,
 * sign-out, email-verification, password-reset, forgot-password, oauth-callback, magic-link-callback,
 * account-settings, error, team-invitation, mfa, cli-auth-confirm, impersonate and purchase/<code>. Each page is its own chunk, loaded on demand,
 * so the sign-in page downloads only what it uses.
 *
 *   const HandlerPages = lazy(() => loadRemote("handler/HandlerPages"));
 *   <HandlerPages app={myClientApp} />
 */
import { Suspense, lazy, type ComponentType } from "react";
import type { StackClientApp } from "@vestibule/js";
import { StackProvider } from "@vestibule/react";
import { ThemeStyles, ThemeToggle, useLocation } from "@vestibule/ui";
import { AuthCardSkeleton, PageErrorBoundary } from "./layout.tsx";

type PageModule = { default: ComponentType };

export const PAGES: Readonly<Record<string, () => Promise<PageModule>>> = {
  "sign-in": () => import("./pages/sign-in.tsx"),
  "sign-up": () => import("./pages/sign-up.tsx"),
  "sign-out": () => import("./pages/sign-out.tsx"),
  "email-verification": () => import("./pages/email-verification.tsx"),
  "password-reset": () => import("./pages/password-reset.tsx"),
  "forgot-password": () => import("./pages/forgot-password.tsx"),
  "oauth-callback": () => import("./pages/oauth-callback.tsx"),
  "magic-link-callback": () => import("./pages/magic-link-callback.tsx"),
  "account-settings": () => import("./pages/account-settings.tsx"),
  error: () => import("./pages/error.tsx"),
  "team-invitation": () => import("./pages/team-invitation.tsx"),
  mfa: () => import("./pages/mfa.tsx"),
  "cli-auth-confirm": () => import("./pages/cli-auth-confirm.tsx"),
  // "Open the app as <user>" from the dashboard: `?ticket=` opens an impersonation session.
  impersonate: () => import("./pages/impersonate.tsx"),
  // `/handler/purchase/<full_code>` (the page reads the code from the address).
  purchase: () => import("./pages/purchase.tsx"),
};

const lazyPages = Object.fromEntries(Object.entries(PAGES).map(([k, load]) => [k, lazy(load)])) as Record<string, ComponentType>;
const NotFound = lazy(() => import("./pages/not-found.tsx"));

export interface HandlerPagesProps {
  readonly app: StackClientApp;
  /** Render the page chrome (theme toggle, page background). Default true; hosts with their own layout pass false. */
  readonly fullPage?: boolean;
  /** Show this page whatever the address (a project whose pages cannot be shown, project-gate.tsx). */
  readonly page?: ComponentType;
}

export default function HandlerPages({ app, fullPage = true, page }: HandlerPagesProps) {
  const { pathname } = useLocation();
  const base = app.urls.handler.replace(/\/+$/, "");
  const rest = pathname.startsWith(`${base}/`) ? pathname.slice(base.length + 1).replace(/\/+$/, "") : pathname === base ? "" : null;
  const key = rest === "" ? "sign-in" : rest?.startsWith("purchase/") ? "purchase" : rest;
  const Page = page ?? (key === null || key === undefined ? NotFound : (lazyPages[key] ?? NotFound));
  const content = (
    <StackProvider app={app}>
      {/* Pages read the project and the user with @vestibule/react's suspending hooks: a card-sized skeleton while
          they load, the known error's message with "Try again" when they fail. */}
      <PageErrorBoundary key={pathname}>
        <Suspense fallback={<AuthCardSkeleton />}>
          <Page />
        </Suspense>
      </PageErrorBoundary>
    </StackProvider>
  );
  if (!fullPage) return content;
  return (
    <div className="vs-root">
      <ThemeStyles />
      <a className="vs-skip" href="#vs-main">
        Skip to content
      </a>
      <div style={{ display: "flex", justifyContent: "flex-end", padding: "8px 12px", minHeight: 48 }}>
        <ThemeToggle />
      </div>
      <main id="vs-main">{content}</main>
    </div>
  );
}
