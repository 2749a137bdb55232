/**
 * Runs one dashboard area alone (development): the area's own index.html mounts it with the keys of a project from
 * `dev-config.json` next to it (served by `npm run dev -w @vestibule/dashboard-<area>` from .vestibule/dev.json, see
 * build-config/src/dev.ts; never served by the platform). Says how to get one when it is missing.
 */
import { createRoot } from "react-dom/client";
import type { ComponentType } from "react";
import { ThemeStyles, ThemeToggle } from "./theme.tsx";
import { createAdminHandles } from "./admin-session.ts";
import type { AreaProps } from "./area.ts";

export interface StandaloneConfig {
  readonly apiUrl: string;
  readonly projectId: string;
  readonly superSecretAdminKey: string;
  readonly secretServerKey: string;
  /** The platform's frontends server (its dev mailbox), when this area is served elsewhere. */
  readonly frontendsOrigin?: string;
  readonly mode?: "development" | "production";
}

export async function mountStandaloneArea(Area: ComponentType<AreaProps>, title: string): Promise<void> {
  const root = createRoot(document.getElementById("root")!);
  const basePath = location.pathname.replace(/\/(index\.html)?$/, "").split("/").slice(0, 3).join("/");
  let config: StandaloneConfig;
  try {
    const res = await fetch(`${basePath}/dev-config.json`, { cache: "no-cache" });
    if (!res.ok) throw new Error(`dev-config.json answered ${res.status}`);
    config = (await res.json()) as StandaloneConfig;
  } catch (err) {
    root.render(
      <p role="alert" style={{ padding: 24 }}>
        This area runs alone only in development: start it with <code>npm run dev -w @vestibule/{basePath.split("/")[2] ?? "dashboard-…"}</code> ({(err as Error).message}).
      </p>,
    );
    return;
  }
  const handles = createAdminHandles(config.apiUrl, config.projectId, { kind: "admin-key", superSecretAdminKey: config.superSecretAdminKey, secretServerKey: config.secretServerKey });
  root.render(
    <div className="vs-root">
      <ThemeStyles />
      <header className="vs-spread" style={{ padding: "8px 16px", borderBottom: "1px solid var(--vs-border)", background: "var(--vs-surface)", minHeight: 56 }}>
        <strong>
          {title} <span className="vs-badge">standalone</span>
        </strong>
        <ThemeToggle />
      </header>
      <main id="vs-main" style={{ maxWidth: 1200, margin: "0 auto", padding: "24px 16px" }}>
        <Area
          adminApp={handles.adminApp}
          owner={null}
          frontendsOrigin={config.frontendsOrigin}
          project={{ id: config.projectId, displayName: config.projectId }}
          basePath={basePath}
          mode={config.mode ?? "development"}
          areaHref={(segment, sub = "") => `/remotes/dashboard-${segment}${sub}`}
        />
      </main>
    </div>,
  );
}
