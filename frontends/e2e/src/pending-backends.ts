/**
 * THE ONE PLACE that says which end-to-end steps wait for which backend (built on other branches, merged by the lead).
 * Each probe asks the running platform whether the backend is there; a step whose backend is missing is skipped with
 * this reason (under CI=true a skip counts as a failure, so nothing is silently lost once the branches are merged).
 *
 * - "ownership" (branch `teams`): GET/POST /internal/projects and admin access tokens of project owners. Needed by
 *   every dashboard step through the shell: project list/creation, find the user, edit server metadata, trusted
 *   domain + production-mode warning through the shell.
 * - "teams" (branch `teams`): /teams, /team-invitations, permission definitions. Needed by: create a team, invite a
 *   member who accepts, create a permission definition.
 */
export type Backend = "ownership" | "teams";

export const PENDING_REASON: Record<Backend, string> = {
  ownership: "needs project ownership (GET /internal/projects, owner admin access tokens) from the teams branch",
  teams: "needs teams, invitations and permission definitions (teams-permissions routes) from the teams branch",
};

export interface ProbeTarget {
  readonly gatewayUrl: string;
  readonly demo: { project_id: string; super_secret_admin_key: string };
  readonly internal: { publishable_client_key: string };
}

export async function backendAvailable(backend: Backend, t: ProbeTarget): Promise<boolean> {
  if (backend === "teams") {
    const res = await fetch(`${t.gatewayUrl}/api/v1/team-permission-definitions`, {
      headers: { "x-stack-project-id": t.demo.project_id, "x-stack-access-type": "admin", "x-stack-super-secret-admin-key": t.demo.super_secret_admin_key },
    });
    return res.status === 200;
  }
  // Ownership: without a user the listing answers USER_AUTHENTICATION_REQUIRED either way; with the route missing or
  // pending it answers 404/501 to an anonymous internal user. Ask with an anonymous sign-up's token.
  const h = { "x-stack-project-id": "internal", "x-stack-access-type": "client", "x-stack-publishable-client-key": t.internal.publishable_client_key, "content-type": "application/json" };
  const email = `probe-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const up = await fetch(`${t.gatewayUrl}/api/v1/auth/password/sign-up`, { method: "POST", headers: h, body: JSON.stringify({ email, password: "probe-password-1", verification_callback_url: "http://localhost/handler/email-verification" }) });
  if (!up.ok) return false;
  const { access_token } = (await up.json()) as { access_token: string };
  const res = await fetch(`${t.gatewayUrl}/api/v1/internal/projects`, { headers: { ...h, "x-stack-access-token": access_token } });
  return res.status === 200;
}
