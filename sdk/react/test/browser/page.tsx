/**
 * Test page for the Chromium tests: one user menu (and a hooks probe) in the state named by ?scenario=.
 *   loading     the app's fetch never answers (skeleton)
 *   live        a real gateway (?api=&project=&key=), tokens from the cookie store (signed in or out)
 *   demo        demo mode with a mock user
 *   teams       a real gateway; the team and permission hooks of the signed-in user, with buttons that change teams
 */
import { Suspense, useState } from "react";
import { createRoot } from "react-dom/client";
import { StackClientApp } from "@vestibule/js";
import { StackProvider, UserButton, usePermission, usePermissions, useProject, useTeam, useTeams, useUser, type UserButtonItem } from "@vestibule/react";

// The query names the scenario; it is kept for the session so redirects (e.g. to "/" after sign-out) keep it.
if (location.search.includes("scenario=")) sessionStorage.setItem("vst-test-params", location.search);
const params = new URLSearchParams(location.search.includes("scenario=") ? location.search : (sessionStorage.getItem("vst-test-params") ?? ""));
const scenario = params.get("scenario") ?? "live";
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

declare global {
  interface Window {
    __events: string[];
  }
}
window.__events = [];

const app = new StackClientApp({
  baseUrl: params.get("api") ?? "http://127.0.0.1:9",
  projectId: params.get("project") ?? "00000000-0000-4000-8000-000000000000",
  publishableClientKey: params.get("key") ?? "pck_none",
  tokenStore: "cookie",
  noAutomaticPrefetch: true,
  ...(scenario === "loading" ? { fetch: () => new Promise<Response>(() => {}) } : {}),
});

const extraItems: UserButtonItem[] = [
  {
    text: "Slow action",
    onClick: async () => {
      window.__events.push("slow:start");
      await wait(600);
      window.__events.push("slow:end");
    },
  },
  { text: "Language", items: [{ text: "English", onClick: () => void window.__events.push("lang:en") }, { text: "Deutsch", onClick: () => void window.__events.push("lang:de") }] },
];

function Probe() {
  const user = useUser();
  const project = useProject();
  return (
    <p data-testid="probe">
      {user ? `signed in as ${user.displayName ?? user.primaryEmail}` : "signed out"} · project {project.displayName}
    </p>
  );
}

/** The team hooks of the signed-in user; buttons create a team, rename the selected one and leave it. */
function TeamsProbe() {
  const user = useUser({ or: "throw" });
  const teams = useTeams();
  const selected = useTeam(user.selectedTeam?.id ?? "none");
  const permissions = usePermissions(selected);
  const canUpdate = usePermission(selected, "$update_team");
  const run = (label: string, action: () => Promise<unknown>) => () => {
    window.__events.push(`${label}:start`);
    action().then(
      () => window.__events.push(`${label}:done`),
      (err: unknown) => window.__events.push(`${label}:error:${String(err)}`),
    );
  };
  return (
    <div>
      <p data-testid="teams">teams: {teams.map((t) => t.displayName).sort().join(", ") || "none"}</p>
      <p data-testid="selected">selected: {selected ? selected.displayName : "none"}</p>
      <p data-testid="permissions">permissions: {permissions.map((p) => p.id).sort().join(", ") || "none"}</p>
      <p data-testid="can-update">can update: {canUpdate ? "yes" : "no"}</p>
      <button onClick={run("create", () => user.createTeam({ displayName: `Team ${teams.length + 1}` }))}>Create team</button>
      <button onClick={run("rename", async () => selected && (await selected.update({ displayName: `${selected.displayName} renamed` })))}>Rename selected</button>
      <button onClick={run("leave", async () => selected && (await user.leaveTeam(selected)))}>Leave selected</button>
    </div>
  );
}

function Page() {
  const [theme, setTheme] = useState<"light" | "dark">("light");
  if (location.pathname.startsWith("/handler/")) return <p data-testid="handler">handler page {location.pathname}</p>;
  return (
    <div data-theme={theme} style={{ padding: 24, minHeight: 330, background: theme === "dark" ? "#111827" : "#f8fafc", color: theme === "dark" ? "#f9fafb" : "#111827", boxSizing: "border-box" }}>
      <header style={{ display: "flex", justifyContent: "space-between", alignItems: "center", width: 520 }}>
        <strong style={{ fontFamily: "system-ui", color: theme === "dark" ? "#f9fafb" : "#111827" }}>Acme</strong>
        <div data-testid="menu-host">
          <UserButton
            showUserInfo={scenario !== "loading"}
            extraItems={extraItems}
            colorModeToggle={() => setTheme((t) => (t === "light" ? "dark" : "light"))}
            mockUser={scenario === "demo" ? { displayName: "Demo User", primaryEmail: "demo@example.com" } : undefined}
          />
        </div>
      </header>
      {scenario === "teams" ? (
        <Suspense fallback={<p data-testid="teams">loading…</p>}>
          <TeamsProbe />
        </Suspense>
      ) : null}
      {scenario === "live" ? (
        <Suspense fallback={<p data-testid="probe">loading…</p>}>
          <Probe />
        </Suspense>
      ) : null}
    </div>
  );
}

createRoot(document.getElementById("root")!).render(
  <StackProvider app={app}>
    <Suspense fallback={null}>
      <Page />
    </Suspense>
  </StackProvider>,
);
