import { randomBytes } from "node:crypto";
import type { ProjectKeys as DevKeys } from "../../../deploy/src/bootstrap.ts";
import type { TestPlatform } from "../../../deploy/src/test-platform.ts";
import { callPlatform, type ApiAnswer } from "../../../deploy/test/platform-api.ts";

/**
 * Principals on a running test platform (deploy/src/test-platform.ts) for the security suites: project keys, users
 * signed up through the public API, and projects created by a project owner of `internal` (the dashboard's path).
 */

export interface Keys {
  readonly projectId: string;
  readonly publishableClientKey: string;
  readonly secretServerKey: string;
  readonly superSecretAdminKey: string;
}

export const keysOf = (k: DevKeys): Keys => ({
  projectId: k.project_id,
  publishableClientKey: k.publishable_client_key,
  secretServerKey: k.secret_server_key,
  superSecretAdminKey: k.super_secret_admin_key,
});

export type AccessType = "client" | "server" | "admin";

/** Contract headers for a key of the given access type (x-stack- prefix). */
export function keyHeaders(k: Keys, type: AccessType): Record<string, string> {
  const h: Record<string, string> = { "x-stack-project-id": k.projectId, "x-stack-access-type": type };
  if (type === "client") h["x-stack-publishable-client-key"] = k.publishableClientKey;
  if (type === "server") h["x-stack-secret-server-key"] = k.secretServerKey;
  if (type === "admin") h["x-stack-super-secret-admin-key"] = k.superSecretAdminKey;
  return h;
}

export type Reply = ApiAnswer;

export function api(tp: TestPlatform, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  return callPlatform(tp, method, path, headers, body);
}

export async function ok(reply: Promise<Reply>, what: string): Promise<any> {
  const r = await reply;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

export interface SignedIn {
  readonly userId: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** A password sign-up on the project (client key). */
export async function signUp(tp: TestPlatform, k: Keys, email = `p-${randomBytes(5).toString("hex")}@example.com`): Promise<SignedIn & { email: string }> {
  const j = await ok(
    api(tp, "POST", "/auth/password/sign-up", keyHeaders(k, "client"), { email, password: "matrix player 123", verification_callback_url: "http://localhost:3000/handler/email-verification" }),
    "sign-up",
  );
  return { userId: j.user_id, accessToken: j.access_token, refreshToken: j.refresh_token, email };
}

export async function anonymousSignUp(tp: TestPlatform, k: Keys): Promise<SignedIn> {
  const j = await ok(api(tp, "POST", "/auth/anonymous/sign-up", keyHeaders(k, "client"), {}), "anonymous sign-up");
  return { userId: j.user_id, accessToken: j.access_token, refreshToken: j.refresh_token };
}

/** Polls until `done` holds (changes that travel by event, e.g. the personal team of a new user). */
export async function eventually<T>(fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not reached: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Headers of the dashboard for a project: the owner's `internal` access token instead of keys. */
export function ownerHeaders(projectId: string, adminAccessToken: string, type: AccessType = "admin"): Record<string, string> {
  return { "x-stack-project-id": projectId, "x-stack-access-type": type, "x-stack-admin-access-token": adminAccessToken };
}

export interface OwnedProject {
  readonly owner: SignedIn;
  readonly keys: Keys;
}

/**
 * A project owner (a signed-up user of `internal`) and a project of theirs created through `/internal/projects`,
 * with a full key set minted with their admin access token. `owner` reuses an existing owner.
 */
export async function ownedProject(tp: TestPlatform, name: string, owner?: SignedIn): Promise<OwnedProject> {
  const internal = keysOf(tp.projects.internal);
  const u = owner ?? (await signUp(tp, internal));
  const userHeaders = { ...keyHeaders(internal, "client"), "x-stack-access-token": u.accessToken };
  const teams = await eventually(() => api(tp, "GET", "/teams?user_id=me", userHeaders), (r) => r.json?.items?.length >= 1);
  const project = await ok(
    api(tp, "POST", "/internal/projects", userHeaders, { display_name: name, owner_team_id: teams.json.items[0].id, config: { allow_localhost: true, credential_enabled: true, client_team_creation_enabled: true, allow_user_api_keys: true } }),
    "create project",
  );
  const set = await ok(
    api(tp, "POST", "/internal/api-keys", ownerHeaders(project.id, u.accessToken), {
      description: "security suite",
      expires_at_millis: Date.now() + 86_400_000,
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: true,
    }),
    "create keys",
  );
  return {
    owner: u,
    keys: { projectId: project.id, publishableClientKey: set.publishable_client_key, secretServerKey: set.secret_server_key, superSecretAdminKey: set.super_secret_admin_key },
  };
}
