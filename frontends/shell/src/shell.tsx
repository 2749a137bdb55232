/**
 * The dashboard shell: top bar (projects, theme, user menu), the project navigation built from the runtime manifest,
 * and the routes:
 *   /auth/*                        hosted handler pages of the internal project (federated from the handler remote)
 *   /                              the owner's projects and project creation
 *   /projects/:id                  overview (sign-ups and active users per day)
 *   /projects/:id/<area>/*         one remote per area (users, teams, auth, keys, emails, payments, settings)
 *
 * The signed-in owner comes from @vestibule/react (`useUser`, suspending while it loads); their projects from
 * `user.listOwnedProjects()`, each with an admin app acting as them, which the areas receive.
 */
import { Suspense, useEffect, useMemo, useRef, useState } from "react";
import type { AdminOwnedProject, CurrentInternalUser, CurrentUser, StackClientApp } from "@vestibule/js";
import { StackProvider, useUser } from "@vestibule/react";
import {
  Alert,
  Avatar,
  ErrorAlert,
  ErrorAudienceProvider,
  Link,
  Skeleton,
  ThemeStyles,
  ThemeToggle,
  createAdminHandles,
  matchPath,
  useLoad,
  useLocation,
  type AreaProps,
  type RuntimeConfig,
  type RuntimeManifest,
} from "@vestibule/ui";
import { ADMIN_AUDIENCE } from "@vestibule/ui/admin-audience";
import { AreaPlaceholder, Boundary, RemoteModule } from "./remote-boundary.tsx";
import { preloadFederated } from "./federation.ts";
import { ProjectsPage } from "./projects.tsx";
import { OverviewPage } from "./overview.tsx";

export interface ShellProps {
  readonly app: StackClientApp;
  readonly config: RuntimeConfig;
  readonly manifest: RuntimeManifest;
}

function UserMenu({ app }: { app: StackClientApp }) {
  const user = useUser();
  const [open, setOpen] = useState(false);
  if (!user) return null;
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
        <div role="menu" className="vs-card" style={{ position: "absolute", right: 0, top: 40, zIndex: 5, padding: 8, minWidth: 220, maxWidth: "calc(100vw - 24px)" }} onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
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

function TopBar({ app, projectName }: { app: StackClientApp; projectName?: string }) {
  return (
    <header className="vs-spread" style={{ padding: "8px 16px", borderBottom: "1px solid var(--vs-border)", background: "var(--vs-surface)", minHeight: 56, flexWrap: "nowrap" }}>
      <nav className="vs-row" aria-label="Dashboard" style={{ minWidth: 0, flexWrap: "nowrap" }}>
        <Link href="/" style={{ fontWeight: 800, textDecoration: "none", color: "var(--vs-text)" }}>
          Vestibule
        </Link>
        {projectName ? (
          <>
            <span aria-hidden="true" className="vs-muted">
              /
            </span>
            <span style={{ fontWeight: 600, overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" }} title={projectName}>
              {projectName}
            </span>
          </>
        ) : null}
      </nav>
      <div className="vs-row" style={{ flexWrap: "nowrap" }}>
        <ThemeToggle />
        <Suspense fallback={<Skeleton width={44} height={36} />}>
          <UserMenu app={app} />
        </Suspense>
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

type Owned = ReturnType<typeof useLoad<AdminOwnedProject[]>>;

/**
 * One project's pages. The admin app is the owned project's own (from the owner's project list); if that list could
 * not be read, the areas still get an admin app acting as the owner and the API decides what they may do.
 */
function ProjectRoutes({ config, manifest, owner, owned, projectId, pathname }: Omit<ShellProps, "app"> & { owner: CurrentUser; owned: Owned; projectId: string; pathname: string }) {
  const project = owned.value?.find((p) => p.id === projectId);
  const listed = owned.status === "ok";
  const [direct, setDirect] = useState<{ accessToken: string | null; refreshToken: string | null } | null>(null);
  useEffect(() => {
    if (owned.status === "error") void owner.getAuthJson().then(setDirect);
  }, [owner, owned.status]);
  const handles = useMemo(() => {
    if (project) return { adminApp: project.app };
    if (!direct) return null;
    return createAdminHandles(config.apiUrl, projectId, { kind: "owner", tokens: direct, internalPublishableClientKey: config.internalPublishableClientKey });
  }, [project, direct, projectId, config]);
  // Once the project's page is up, the areas' code is fetched while the browser is idle: switching to an area then only
  // renders it (and starts its data requests) instead of fetching, parsing and suspending first.
  useEffect(() => preloadFederated(manifest.areas.filter((a) => a.area).map((a) => `${a.name}/Area`)), [manifest]);
  const base = `/projects/${encodeURIComponent(projectId)}`;
  const areaHref = (segment: string, subPath = "") => `${base}/${segment}${subPath}`;
  const areaMatch = matchPath("/projects/:id/:area", pathname, { end: false });
  const remote = areaMatch ? manifest.areas.find((a) => a.area?.segment === areaMatch.area) : undefined;
  if (listed && !project) {
    return (
      <div className="vs-stack">
        <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Project not found</h1>
        <Alert kind="warning">You do not manage a project with the ID {projectId}.</Alert>
        <div>
          <Link className="vs-btn" href="/">
            Your projects
          </Link>
        </div>
      </div>
    );
  }
  return (
    <>
      <ProjectNav projectId={projectId} manifest={manifest} pathname={pathname} />
      {owned.status === "error" ? (
        <div style={{ marginBottom: 16 }}>
          <ErrorAlert error={owned.error} />
        </div>
      ) : null}
      {!handles ? (
        <AreaPlaceholder />
      ) : remote ? (
        <RemoteModule<AreaProps>
          key={remote.name}
          id={`${remote.name}/Area`}
          title={remote.area!.title}
          props={{
            adminApp: handles.adminApp,
            owner,
            project: { id: projectId, displayName: project?.displayName ?? projectId },
            basePath: areaHref(remote.area!.segment),
            mode: config.mode,
            areaHref,
          }}
        />
      ) : areaMatch ? (
        <p>There is no such section.</p>
      ) : (
        <OverviewPage adminApp={handles.adminApp} areaHref={areaHref} />
      )}
    </>
  );
}

/** Everything below the top bar for a signed-in owner (a signed-out visitor is sent to /auth/sign-in). */
function SignedIn({ config, manifest, pathname, onProjectName }: Omit<ShellProps, "app"> & { pathname: string; onProjectName: (name: string | undefined) => void }) {
  const user = useUser({ or: "redirect" }) as CurrentInternalUser;
  const owned = useLoad(() => user.listOwnedProjects(), [user.id]);
  const project = matchPath("/projects/:id", pathname, { end: false });
  // Back on the projects list from a project (which may have been deleted or renamed in its settings): load the
  // list again, so a deleted project does not stay listed until the page is reloaded.
  const onList = !project;
  const { reload } = owned;
  const wasOnList = useRef(onList);
  useEffect(() => {
    if (onList && !wasOnList.current) void reload();
    wasOnList.current = onList;
  }, [onList, reload]);
  const name = project ? (owned.value?.find((p) => p.id === project.id)?.displayName ?? project.id) : undefined;
  useEffect(() => onProjectName(name), [name, onProjectName]);
  if (project) return <ProjectRoutes config={config} manifest={manifest} owner={user} owned={owned} projectId={project.id!} pathname={pathname} />;
  return <ProjectsPage user={user} owned={owned} />;
}

function Frame(props: ShellProps) {
  const { app, manifest } = props;
  const { pathname } = useLocation();
  const [projectName, setProjectName] = useState<string | undefined>();
  const inAuth = pathname === "/auth" || pathname.startsWith("/auth/");
  return (
    <div className="vs-root">
      <ThemeStyles />
      <a className="vs-skip" href="#vs-main">
        Skip to content
      </a>
      <TopBar app={app} projectName={inAuth ? undefined : projectName} />
      <main id="vs-main" style={{ maxWidth: 1200, margin: "0 auto", padding: inAuth ? 0 : "24px 16px" }}>
        {inAuth ? (
          <RemoteModule id={`${manifest.handler.name}/HandlerPages`} title="Sign-in pages" props={{ app, fullPage: false }} />
        ) : (
          // Below the sign-in pages the reader is a project owner: errors read as an admin needs them.
          <ErrorAudienceProvider audience={ADMIN_AUDIENCE}>
            <Boundary title="Your account" onRetry={() => location.reload()}>
              <Suspense fallback={<AreaPlaceholder />}>
                <SignedIn config={props.config} manifest={manifest} pathname={pathname} onProjectName={setProjectName} />
              </Suspense>
            </Boundary>
          </ErrorAudienceProvider>
        )}
      </main>
    </div>
  );
}

export function Shell(props: ShellProps) {
  return (
    <StackProvider app={props.app}>
      <Frame {...props} />
    </StackProvider>
  );
}
