/**
 * The hosted handler pages, standalone under /handler: the project and its publishable key come from the server's
 * /config.json at run time (the project the deployment hosts pages for).
 */
import { createRoot } from "react-dom/client";
import { StackClientApp } from "@vestibule/js";
import { loadRuntimeConfig } from "@vestibule/ui";
import HandlerPages from "./handler-pages.tsx";

async function main(): Promise<void> {
  const root = createRoot(document.getElementById("root")!);
  try {
    const config = await loadRuntimeConfig();
    const app = new StackClientApp({
      baseUrl: config.apiUrl,
      projectId: config.handlerProjectId,
      publishableClientKey: config.handlerPublishableClientKey,
      tokenStore: "cookie",
      // Hosted pages have no app of their own to return to: home is the account settings page.
      urls: { handler: "/handler", home: "/handler/account-settings" },
    });
    root.render(<HandlerPages app={app} />);
  } catch (err) {
    root.render(<p role="alert">The sign-in pages could not start: {(err as Error).message}</p>);
  }
}
void main();
