/**
 * Example: a customer's own React app that uses Vestibule's hosted handler pages as federated modules instead of
 * building its own sign-in UI. It creates its own client app (its project, its handler path under its own routes),
 * registers the handler remote from the runtime manifest, and renders `handler/HandlerPages` for /example/handler/*.
 *
 * Nothing about the remote is in this build: the manifest URL is read at run time.
 */
import { Suspense, lazy, type ComponentType } from "react";
import { createRoot } from "react-dom/client";
import { loadRemote, registerRemotes } from "@module-federation/enhanced/runtime";
import { StackClientApp } from "@vestibule/js";
import { StackProvider, useUser } from "@vestibule/react";
import { Link, Skeleton, ThemeStyles, ThemeToggle, loadRuntimeConfig, loadRuntimeManifest, useLocation } from "@vestibule/ui";

const BASE = "/example";

/** The visitor's state, read with @vestibule/react's useUser (suspends while the user loads). */
function Account({ app }: { app: StackClientApp }) {
  const user = useUser();
  if (!user) {
    return (
      <div className="vs-row">
        <Link className="vs-btn vs-btn-primary" href={app.urls.signIn}>Sign in</Link>
        <Link className="vs-btn" href={app.urls.signUp}>Sign up</Link>
      </div>
    );
  }
  return (
    <>
      <p data-testid="example-signed-in" style={{ margin: 0 }}>Signed in as {user.primaryEmail}</p>
      <div className="vs-row">
        <Link className="vs-btn" href={app.urls.accountSettings}>Account settings</Link>
        <Link className="vs-btn" href={app.urls.signOut}>Sign out</Link>
      </div>
    </>
  );
}

function Home({ app }: { app: StackClientApp }) {
  return (
    <div className="vs-card vs-stack" style={{ maxWidth: 560, margin: "48px auto" }}>
      <h1 style={{ margin: 0 }}>Example app</h1>
      <p className="vs-muted" style={{ margin: 0 }}>
        This app brings its own layout and loads the sign-in pages from the Vestibule handler remote.
      </p>
      <Suspense fallback={<Skeleton height={40} />}>
        <Account app={app} />
      </Suspense>
    </div>
  );
}

function App({ app, HandlerPages }: { app: StackClientApp; HandlerPages: ComponentType<{ app: StackClientApp; fullPage?: boolean }> }) {
  const { pathname } = useLocation();
  const inHandler = pathname.startsWith(`${BASE}/handler`);
  return (
    <div className="vs-root">
      <ThemeStyles />
      <header className="vs-spread" style={{ padding: "8px 16px", borderBottom: "1px solid var(--vs-border)", minHeight: 56 }}>
        <Link href={`${BASE}/`} style={{ fontWeight: 800 }}>Example app</Link>
        <ThemeToggle />
      </header>
      <main>
        {inHandler ? (
          <Suspense fallback={<p style={{ padding: 24 }}>Loading…</p>}>
            <HandlerPages app={app} fullPage={false} />
          </Suspense>
        ) : (
          <Home app={app} />
        )}
      </main>
    </div>
  );
}

async function main(): Promise<void> {
  const root = createRoot(document.getElementById("root")!);
  try {
    const [config, manifest] = await Promise.all([loadRuntimeConfig(), loadRuntimeManifest()]);
    registerRemotes([{ name: manifest.handler.name, entry: new URL(manifest.handler.entry, location.href).toString() }]);
    const app = new StackClientApp({
      baseUrl: config.apiUrl,
      projectId: config.handlerProjectId,
      publishableClientKey: config.handlerPublishableClientKey,
      tokenStore: "cookie",
      urls: { handler: `${BASE}/handler`, home: `${BASE}/` },
    });
    const HandlerPages = lazy(async () => {
      const mod = await loadRemote<{ default: ComponentType<{ app: StackClientApp; fullPage?: boolean }> }>(`${manifest.handler.name}/HandlerPages`);
      if (!mod) throw new Error("The handler pages could not be loaded.");
      return mod;
    });
    root.render(
      <StackProvider app={app}>
        <App app={app} HandlerPages={HandlerPages} />
      </StackProvider>,
    );
  } catch (err) {
    root.render(<p role="alert">The example app could not start: {(err as Error).message}</p>);
  }
}
void main();
