/**
 * Every frontend app: where its folder is, what it exposes over Module Federation and where the frontends server
 * mounts it. The runtime manifest (`/remotes.json`) is derived from this table when served, so no build holds
 * another app's URL.
 */

export type AppKind = "host" | "remote";

export interface FrontendApp {
  /** Folder under frontends/ (also the npm workspace @vestibule/<folder>). */
  readonly dir: string;
  /** Module Federation name (a JS identifier). */
  readonly mfName: string;
  readonly kind: AppKind;
  /** URL path prefix the frontends server serves the build under (ends with a slash). */
  readonly mountPath: string;
  /** Remotes: the exposed modules. */
  readonly exposes?: Readonly<Record<string, string>>;
  /** Dashboard areas: the path segment under /projects/:id/ and the navigation label. */
  readonly area?: { readonly segment: string; readonly title: string };
  /** Serve index.html for unknown paths under mountPath (client-side routes). */
  readonly spa: boolean;
}

const area = (segment: string, title: string): FrontendApp => ({
  dir: `dashboard-${segment}`,
  mfName: `dashboard_${segment}`,
  kind: "remote",
  mountPath: `/remotes/dashboard-${segment}/`,
  exposes: { "./Area": "./src/area.tsx" },
  area: { segment, title },
  spa: true,
});

export const FRONTEND_APPS: readonly FrontendApp[] = [
  {
    dir: "handler",
    mfName: "handler",
    kind: "remote",
    mountPath: "/handler/",
    exposes: { "./HandlerPages": "./src/handler-pages.tsx" },
    spa: true,
  },
  area("users", "Users"),
  area("teams", "Teams & permissions"),
  area("auth", "Auth methods & domains"),
  area("keys", "API keys"),
  area("emails", "E-mails"),
  area("payments", "Payments"),
  area("webhooks", "Webhooks"),
  area("settings", "Project settings"),
  area("audit", "Audit log"),
  { dir: "example-host", mfName: "example_host", kind: "host", mountPath: "/example/", spa: true },
  // Last: "/" catches every path the others do not.
  { dir: "shell", mfName: "shell", kind: "host", mountPath: "/", spa: true },
];

export function appByDir(dir: string): FrontendApp {
  const app = FRONTEND_APPS.find((a) => a.dir === dir);
  if (!app) throw new Error(`unknown frontend app ${dir}; known: ${FRONTEND_APPS.map((a) => a.dir).join(", ")}`);
  return app;
}

/** One remote in the runtime manifest. */
export interface ManifestRemote {
  readonly name: string;
  /** URL of the remote's mf-manifest.json (absolute, or relative to the page's origin). */
  readonly entry: string;
  readonly area?: { readonly segment: string; readonly title: string };
}

/** The runtime manifest the shell and the example host read at start (served as /remotes.json). */
export interface RuntimeManifest {
  readonly handler: ManifestRemote;
  readonly areas: readonly ManifestRemote[];
}

/** The manifest for the frontends server's own layout (every remote served by it). */
export function defaultManifest(): RuntimeManifest {
  const entryOf = (a: FrontendApp): ManifestRemote => ({
    name: a.mfName,
    entry: `${a.mountPath}mf-manifest.json`,
    ...(a.area ? { area: a.area } : {}),
  });
  const handler = FRONTEND_APPS.find((a) => a.dir === "handler")!;
  return { handler: entryOf(handler), areas: FRONTEND_APPS.filter((a) => a.area).map(entryOf) };
}

/** The runtime configuration every app fetches from /config.json (injected by the server at run time). */
export interface RuntimeConfig {
  /** Public URL of the gateway (the API base is `${apiUrl}/api/v1`). */
  readonly apiUrl: string;
  /** The dashboard's own project (`internal`) and its publishable key. */
  readonly internalProjectId: string;
  readonly internalPublishableClientKey: string;
  /** Project the hosted handler pages and the example host sign users into (the demo project in development). */
  readonly handlerProjectId: string;
  readonly handlerPublishableClientKey: string;
  /** "development" shows the dev mailbox in the dashboard. */
  readonly mode: "development" | "production";
  /**
   * Payments: Stripe.js URL (production https://js.stripe.com/v3; development the local Stripe server's stand-in)
   * and the publishable key; absent when STRIPE_PUBLISHABLE_KEY is unset.
   */
  readonly stripe?: { readonly jsUrl: string; readonly publishableKey: string };
}
