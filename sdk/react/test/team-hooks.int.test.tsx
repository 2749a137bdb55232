/**
 * The hooks that read teams and permissions (useTeams, useTeam, usePermissions, usePermission), rendered with React 19
 * in Node (react-dom/static prerender waits for every Suspense boundary) against the real gateway: identity, auth,
 * e-mail and teams-permissions services in this process on real PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { Suspense, type ReactNode } from "react";
import { prerender } from "react-dom/static";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StackAdminApp, StackClientApp, StackServerApp, vestibuleInternals, type Team } from "@vestibule/js";
import { StackProvider, usePermission, usePermissions, useTeam, useTeams } from "@vestibule/react";
import { startStack, type Stack } from "../../../gateway/test/support.ts";

let stack: Stack;
const tag = randomBytes(3).toString("hex");
const read = `docs:read_${tag}`;
const manage = `docs:manage_${tag}`;
const projectView = `reports:view_${tag}`;
const projectAll = `reports:all_${tag}`;

beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
  const admin = new StackAdminApp({ baseUrl: stack.url, projectId: stack.demo.projectId, superSecretAdminKey: stack.demo.superSecretAdminKey, tokenStore: null });
  await admin.createTeamPermissionDefinition({ id: read, containedPermissionIds: [] });
  await admin.createTeamPermissionDefinition({ id: manage, containedPermissionIds: [read] });
  await admin.createProjectPermissionDefinition({ id: projectView, containedPermissionIds: [] });
  await admin.createProjectPermissionDefinition({ id: projectAll, containedPermissionIds: [projectView] });
});
afterAll(async () => {
  await stack?.stop();
});

let ids = 0;
const clientApp = (tokenStore: ConstructorParameters<typeof StackClientApp>[0]["tokenStore"] = "memory") =>
  new StackClientApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    tokenStore,
    noAutomaticPrefetch: true,
    uniqueIdentifier: `team-hooks-${++ids}`,
  });
const serverApp = () =>
  new StackServerApp({ baseUrl: stack.url, projectId: stack.demo.projectId, publishableClientKey: stack.demo.publishableClientKey, secretServerKey: stack.demo.secretServerKey, tokenStore: null });

/** A signed-out app that fails the test on any request (the hooks must not ask the server for a signed-out user). */
const signedOutApp = () =>
  new StackClientApp({
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
    uniqueIdentifier: `team-hooks-${++ids}`,
    fetch: (url) => Promise.reject(new Error(`unexpected request to ${url}`)),
  });

async function signedIn() {
  const app = clientApp();
  const email = `hooks-${randomBytes(5).toString("hex")}@example.com`;
  const r = await app.signUpWithCredential({ email, password: "hooks password 1", verificationCallbackUrl: "http://localhost:3000/handler/email-verification", noRedirect: true });
  expect(r.status).toBe("ok");
  return { app, user: await app.getUser({ or: "throw" }) };
}

async function render(app: StackClientApp, children: ReactNode): Promise<string> {
  const { prelude } = await prerender(
    <StackProvider app={app}>
      <Suspense fallback={<i>loading</i>}>{children}</Suspense>
    </StackProvider>,
  );
  const html = await new Response(prelude).text();
  expect(html).not.toContain("<i>loading</i>");
  return html;
}

function TeamList() {
  const teams = useTeams();
  return <ul>{teams.map((t) => <li key={t.id}>{`team:${t.displayName}`}</li>)}</ul>;
}

function OneTeam({ id }: { id: string }) {
  const team = useTeam(id);
  return <p>{team ? `found:${team.displayName}` : "no such team"}</p>;
}

function Permissions({ team, recursive }: { team: Team | null; recursive?: boolean }) {
  const permissions = usePermissions(team, recursive === undefined ? {} : { recursive });
  return <p>{`perms:${permissions.map((p) => p.id).sort().join(",")}`}</p>;
}

function HasPermission({ team, id }: { team: Team | null; id: string }) {
  const permission = usePermission(team, id);
  return <p>{`${id}=${permission ? "yes" : "no"}`}</p>;
}

describe("team and permission hooks on the real gateway", () => {
  it("useTeams: empty when signed out; the user's teams when signed in, including one created since", async () => {
    expect(await render(signedOutApp(), <TeamList />)).toContain("<ul></ul>");
    const { app, user } = await signedIn();
    expect(await render(app, <TeamList />)).toContain("<ul></ul>");
    const first = await user.createTeam({ displayName: "Alpha" });
    // The hook's resource is the same cache createTeam refreshed: a subscriber hears about the next team too.
    const handle = app[vestibuleInternals].teams();
    let changes = 0;
    const unsubscribe = handle.subscribe(() => void changes++);
    try {
      await user.createTeam({ displayName: "Beta" });
      expect(changes).toBeGreaterThan(0);
    } finally {
      unsubscribe();
    }
    const html = await render(app, <TeamList />);
    expect(html).toContain("team:Alpha");
    expect(html).toContain("team:Beta");
    // A team renamed through the SDK is rendered with its new name.
    await first.update({ displayName: "Alpha renamed" });
    expect(await render(app, <TeamList />)).toContain("team:Alpha renamed");
  });

  it("useTeam: the team with that id, or null for a team the user is not in", async () => {
    const { app, user } = await signedIn();
    const team = await user.createTeam({ displayName: "Gamma" });
    expect(await render(app, <OneTeam id={team.id} />)).toContain("found:Gamma");
    const other = await (await signedIn()).user.createTeam({ displayName: "Not yours" });
    expect(await render(app, <OneTeam id={other.id} />)).toContain("no such team");
    // After leaving, the team is gone from the hook as well.
    await user.leaveTeam(team);
    expect(await render(app, <OneTeam id={team.id} />)).toContain("no such team");
  });

  it("usePermissions: a team's permissions recursively by default, direct ones with recursive: false, project permissions without a team", async () => {
    const { app, user } = await signedIn();
    const team = await user.createTeam({ displayName: "Delta" });
    const server = serverApp();
    const serverUser = (await server.getUser(user.id))!;
    await serverUser.grantPermission((await server.getTeam(team.id))!, manage);
    await serverUser.grantPermission(projectAll);
    const recursive = await render(app, <Permissions team={team} />);
    expect(recursive).toMatch(new RegExp(`perms:[^<]*${manage.replace("$", "\\$")}`));
    expect(recursive).toContain(read);
    expect(recursive).toContain("$update_team");
    expect(await render(app, <Permissions team={team} recursive={false} />)).toContain(`perms:${[manage, "team_admin"].sort().join(",")}`);
    expect(await render(app, <Permissions team={null} />)).toContain(`perms:${[projectAll, projectView].sort().join(",")}`);
    expect(await render(app, <Permissions team={null} recursive={false} />)).toContain(`perms:${projectAll}`);
    // Signed out: no permissions, no request.
    expect(await render(signedOutApp(), <Permissions team={null} />)).toContain("perms:<");
    expect(await render(signedOutApp(), <HasPermission team={null} id={projectView} />)).toContain(`${projectView}=no`);
  });

  it("usePermission: one permission of the user, found through a containing one, or null", async () => {
    const { app, user } = await signedIn();
    const team = await user.createTeam({ displayName: "Epsilon" });
    const server = serverApp();
    await (await server.getUser(user.id))!.grantPermission((await server.getTeam(team.id))!, manage);
    const html = await render(
      app,
      <>
        <HasPermission team={team} id={read} />
        <HasPermission team={team} id={manage} />
        <HasPermission team={team} id={`other_${tag}`} />
        <HasPermission team={null} id={projectView} />
      </>,
    );
    expect(html).toContain(`${read}=yes`);
    expect(html).toContain(`${manage}=yes`);
    expect(html).toContain(`other_${tag}=no`);
    expect(html).toContain(`${projectView}=no`);
    // A fresh app (nothing cached) sees a revocation.
    await (await server.getUser(user.id))!.revokePermission((await server.getTeam(team.id))!, manage);
    const fresh = clientApp(await user.getAuthJson());
    expect(await render(fresh, <HasPermission team={team} id={read} />)).toContain(`${read}=no`);
  });
});
