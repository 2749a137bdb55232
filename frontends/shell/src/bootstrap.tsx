/**
 * The dashboard: the run-time config and manifest first, then the internal project's client app (the owners'
 * sign-in), then the shell. The sign-in pages are the hosted handler pages, loaded from the handler remote and mounted
 * at /auth with the internal project's app.
 */
import { createRoot } from "react-dom/client";
import { StackClientApp } from "@vestibule/js";
import { INTERACTIVE_RATE_LIMIT_WAIT_MS, loadRuntimeConfig, loadRuntimeManifest } from "@vestibule/ui";
import { registerManifest } from "./federation.ts";
import { Shell } from "./shell.tsx";

async function main(): Promise<void> {
  const root = createRoot(document.getElementById("root")!);
  try {
    const [config, manifest] = await Promise.all([loadRuntimeConfig(), loadRuntimeManifest()]);
    registerManifest(manifest);
    const app = new StackClientApp({
      baseUrl: config.apiUrl,
      projectId: config.internalProjectId,
      publishableClientKey: config.internalPublishableClientKey,
      tokenStore: "cookie",
      // A long rate limit is shown as "try again in N s", not waited out behind a spinner.
      maxRateLimitWaitMillis: INTERACTIVE_RATE_LIMIT_WAIT_MS,
      urls: { handler: "/auth", home: "/", afterSignOut: "/auth/sign-in" },
    });
    root.render(<Shell app={app} config={config} manifest={manifest} />);
  } catch (err) {
    root.render(<p role="alert">The dashboard could not start: {(err as Error).message}</p>);
  }
}
void main();
