/**
 * The dashboard shell: top bar (projects, theme, user menu), the project navigation built from the runtime manifest,
 * and the routes:
 *   /auth/*                        hosted handler pages of the internal project (federated from the handler remote)
 *   /                              the owner's projects and project creation
 *   /projects/:id                  overview (sign-ups and active users per day)
 *   /projects/:id/<area>/*         one remote per area (users, teams, auth, keys, emails, settings)
 */
import { useEffect, useMemo, useState } from "react";
import type { CurrentUser, StackClientApp } from "@vestibule/js";
import {
  Avatar,
  Button,
  Link,
  ThemeStyles,
  ThemeToggle,
  createAdminHandles,
  matchPath,
  useLocation,
  useUserState,
  type AreaProps,
  type RuntimeConfig,
  type RuntimeManifest,
} from "@vestibule/ui";
import { AreaPlaceholder, RemoteModule } from "./remote-boundary.tsx";
import { ProjectsPage } from "./projects.tsx";
import { OverviewPage } from "./overview.tsx";

export interface ShellProps {
  readonly app: StackClientApp;
  readonly config: RuntimeConfig;
  readonly manifest: RuntimeManifest;
}

function UserMenu({ user, app }: { user: CurrentUser; app: StackClientApp }) {
  const [open, setOpen] = useState(false);
  return (
    <div style={{ position: "relative" }}>
      <button
        type="button"
        className="vs-btn vs-btn-ghost vs-btn-small"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => e.key === "Escape" && setOpen(false)}
      >
        <Avatar name={user.displayName} email={user.primaryEmail} imageUrl={user.profileImageUrl} size={28} />
        <span className="vs-sr-only">Account menu of {user.primaryEmail ?? user.displayName ?? "you"}</span>
      </button>
      {open ? (
        <div role="menu" className="vs-card" style={{ position: "absolute", right: 0, top: 40, zIndex: 5, padding: 8, minWidth: 220 }} onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
          <div className="vs-muted" style={{ padding: "4px 8px", fontSize: ".85rem" }}>
            {user.displayName ?? user.primaryEmail}
            <br />
            {user.displayName ? user.primaryEmail : null}
          </div>
          <Link role="menuitem" className="vs-btn vs-btn-ghost vs-btn-block" href="/auth/account-settings" onClick={() => setOpen(false)}>
            Account settings
          </Link>
          <button role="menuitem" type="button" className="vs-btn vs-btn-ghost vs-btn-block" onClick={() => void app.signOut()}>
            Sign out
          </button>
        </div>
      ) : null}
    </div>
  );
}

function TopBar({ user, app, projectName }: { user: CurrentUser | null; app: StackClientApp; projectName?: string }) {
  return (
    <header className="vs-spread" style={{ padding: "8px 16px", borderBottom: "1px solid var(--vs-border)", background: "var(--vs-surface)", minHeight: 56 }}>
      <nav className="vs-row" aria-label="Dashboard">
        <Link href="/" style={{ fontWeight: 800, textDecoration: "none", color: "var(--vs-text)" }}>
          Vestibule
        </Link>
        {projectName ? (
          <>
            <span aria-hidden="true" className="vs-muted">
              /
            </span>
            <span style={{ fontWeight: 600 }}>{projectName}</span>
          </>
        ) : null}
      </nav>
      <div className="vs-row">
        <ThemeToggle />
        {user ? <UserMenu user={user} app={app} /> : null}
      </div>
    </header>
  );
}

function ProjectNav({ projectId, manifest, pathname }: { projectId: string; manifest: RuntimeManifest; pathname: string }) {
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const items = [{ href: base, title: "Overview", exact: true }, ...manifest.areas.filter((a) => a.area).map((a) => ({ href: `${base}/${a.area!.segment}`, title: a.area!.title, exact: false }))];
  return (
    <nav aria-label="Project" className="vs-tabs" style={{ marginBottom: 16 }}>
      {items.map((i) => {
        const current = i.exact ? pathname === i.href : pathname === i.href || pathname.startsWith(`${i.href}/`);
        return (
          <Link key={i.href} href={i.href} className="vs-tab" aria-current={current ? "page" : undefined}>
            {i.title}
          </Link>
        );
      })}
    </nav>
  );
}

function ProjectRoutes({ app, user, config, manifest, projectId, pathname }: ShellProps & { user: CurrentUser; projectId: string; pathname: string }) {
  const [tokens, setTokens] = useState<{ accessToken: string | null; refreshToken: string | null } | null>(null);
  useEffect(() => {
    void user.getAuthJson().then(setTokens);
  }, [user]);
  const handles = useMemo(
    () => (tokens ? createAdminHandles(config.apiUrl, projectId, { kind: "owner", tokens, internalPublishableClientKey: config.internalPublishableClientKey }) : null),
    [tokens?.refreshToken, projectId, config],
  );
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const areaHref = (segment: string, subPath = "") => `${base}/${segment}${subPath}`;
  const areaMatch = matchPath("/projects/:id/:area", pathname, { end: false });
  const remote = areaMatch ? manifest.areas.find((a) => a.area?.segment === areaMatch.area) : undefined;
  return (
    <>
      <ProjectNav projectId={projectId} manifest={manifest} pathname={pathname} />
      {!handles ? (
        <AreaPlaceholder />
      ) : remote ? (
        <RemoteModule<AreaProps>
          key={remote.name}
          id={`${remote.name}/Area`}
          title={remote.area!.title}
          props={{ adminApp: handles.adminApp, adminApi: handles.adminApi, project: { id: projectId, displayName: projectId }, basePath: areaHref(remote.area!.segment), mode: config.mode, areaHref }}
        />
      ) : areaMatch ? (
        <p>There is no such section.</p>
      ) : (
        <OverviewPage adminApp={handles.adminApp} adminApi={handles.adminApi} areaHref={areaHref} />
      )}
    </>
  );
}

export function Shell(props: ShellProps) {
  const { app, manifest } = props;
  const { pathname } = useLocation();
  const user = useUserState(app);
  const inAuth = pathname === "/auth" || pathname.startsWith("/auth/");
  const signedOut = user.status === "ok" && !user.user;
  useEffect(() => {
    if (signedOut && !inAuth) void app.redirectToSignIn({ replace: true });
  }, [signedOut, inAuth, app]);
  const project = matchPath("/projects/:id", pathname, { end: false });

  let main;
  if (inAuth) {
    main = <RemoteModule id={`${manifest.handler.name}/HandlerPages`} title="Sign-in pages" props={{ app, fullPage: false }} />;
  } else if (user.status !== "ok" || !user.user) {
    main = user.status === "error" ? <p role="alert">Could not load your account.</p> : <AreaPlaceholder />;
  } else if (project) {
    main = <ProjectRoutes {...props} user={user.user} projectId={project.id!} pathname={pathname} />;
  } else {
    main = <ProjectsPage config={props.config} user={user.user} />;
  }
  return (
    <div className="vs-root">
      <ThemeStyles />
      <a className="vs-skip" href="#vs-main">
        Skip to content
      </a>
      <TopBar user={user.status === "ok" ? user.user : null} app={app} projectName={project?.id} />
      <main id="vs-main" style={{ maxWidth: 1200, margin: "0 auto", padding: inAuth ? 0 : "24px 16px" }}>
        {main}
      </main>
    </div>
  );
}

export { Button };
