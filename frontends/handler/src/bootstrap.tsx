/**
 * The hosted handler pages, standalone under /handler: the project and its publishable key come from the server's
 * /config.json at run time (the project the deployment hosts pages for). `/handler/<project-id>/...` shows the pages
 * of any other project, without a publishable key (README, "Hosted pages"; project-gate.tsx).
 */
import { createRoot } from "react-dom/client";
import { StackClientApp } from "@vestibule/js";
import { INTERACTIVE_RATE_LIMIT_WAIT_MS, loadRuntimeConfig } from "@vestibule/ui";
import HandlerPages from "./handler-pages.tsx";
import { hostedProjectId } from "./hosted-path.ts";

async function main(): Promise<void> {
  const root = createRoot(document.getElementById("root")!);
  try {
    const config = await loadRuntimeConfig();
    const projectId = hostedProjectId(location.pathname);
    const handler = projectId ? `/handler/${projectId}` : "/handler";
    const app = new StackClientApp({
      baseUrl: config.apiUrl,
      projectId: projectId ?? config.handlerProjectId,
      publishableClientKey: projectId ? undefined : config.handlerPublishableClientKey,
      tokenStore: "cookie",
      // A long rate limit is shown as "try again in N s", not waited out behind a spinner.
      maxRateLimitWaitMillis: INTERACTIVE_RATE_LIMIT_WAIT_MS,
      // Hosted pages have no app of their own to return to: home is the account settings page.
      urls: { handler, home: `${handler}/account-settings` },
    });
    root.render(projectId ? await (await import("./project-gate.tsx")).gatedPages(app) : <HandlerPages app={app} />);
  } catch (err) {
    root.render(<p role="alert">The sign-in pages could not start: {(err as Error).message}</p>);
  }
}
void main();
