/**
 * The pages of `/handler/<project-id>/...` (README, "Hosted pages"), loaded only for such addresses: the app has no
 * publishable key, so the project is read first. A project that requires a key gets one plain sentence instead of
 * its pages, an unknown project the not-found page, never the API's error text; any other failure (network) is left
 * to the page itself, which shows it with "Try again".
 */
import type { ComponentType } from "react";
import type { StackClientApp } from "@vestibule/js";
import { errorCode } from "@vestibule/ui";
import HandlerPages, { PAGES } from "./handler-pages.tsx";
import { AuthCard } from "./layout.tsx";
import NotFound from "./pages/not-found.tsx";

function NotEnabled() {
  return <AuthCard title="These pages are not enabled for this project" subtitle="Its owner has not turned them on. Go back to the app that sent you here." />;
}

const UNAVAILABLE: Readonly<Record<string, ComponentType>> = {
  // The seed-era and the current SDK's codes for "this project requires a publishable key".
  CLIENT_AUTHENTICATION_REQUIRED: NotEnabled,
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: NotEnabled,
  CURRENT_PROJECT_NOT_FOUND: () => <NotFound noSignIn />,
};

export async function gatedPages(app: StackClientApp) {
  // The page's code loads while the project is read (`/handler/<project-id>/<page>[/...]`), not after.
  void PAGES[location.pathname.split("/")[3] || "sign-in"]?.().catch(() => undefined);
  const page = await app.getProject().then(
    () => undefined,
    (err: unknown) => UNAVAILABLE[errorCode(err) ?? ""],
  );
  return <HandlerPages app={app} page={page} />;
}
