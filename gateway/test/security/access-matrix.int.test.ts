/**
 * Access matrix (issue 18, "then, systematically" 2): every route of the gateway's route metadata × every kind of
 * caller, on a real platform. The expected outcome of each cell is derived from the route's declared access
 * (`defineRoute` `access`, `user`, `project`), never from a hand list:
 *  - no auth: public routes ("none") get past authentication; every other route is ACCESS_TYPE_REQUIRED;
 *  - client / server / admin keys, and an owner's admin access token (the dashboard's path): a declared access type
 *    gets past the access check (then `project: "internal"` → EXPECTED_INTERNAL_PROJECT, `user: "schema"` → the
 *    SCHEMA_ERROR line "auth.user must be defined", `user: "known-error"` → USER_AUTHENTICATION_REQUIRED); any other
 *    type is INSUFFICIENT_ACCESS_TYPE listing exactly the declared types;
 *  - a non-owner's admin access token, another project's keys, a user of another project, an anonymous user without
 *    `allow-anonymous-user`, a restricted user: refused on every route, public ones included, with their known error.
 * "Gets past" means: no 5xx, and no project- or session-authentication error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knownErrorCodeIsA } from "@vestibule/shared/errors";
import { startTestPlatform, type TestPlatform } from "../../../deploy/src/test-platform.ts";
import type { RouteSpec } from "../../src/routes/route.ts";
import { ROUTES, fillPath, paramNames, propertiesOf, routeName, sampleOf } from "./route-catalogue.ts";
import { anonymousSignUp, api, keyHeaders, ok, ownedProject, ownerHeaders, signUp, type AccessType, type Keys, type OwnedProject, type Reply, type SignedIn } from "./platform-principals.ts";

type Expectation = { kind: "passes" } | { kind: "refused"; status: number; code: string; allowed?: readonly string[] } | { kind: "user-schema" };

interface Principal {
  readonly name: string;
  headers(route: RouteSpec): Record<string, string>;
  expect(route: RouteSpec): Expectation;
}

const refused = (status: number, code: string, allowed?: readonly string[]): Expectation => ({ kind: "refused", status, code, ...(allowed ? { allowed } : {}) });

/** What a caller with access type `type` and no signed-in user gets from a route, by its metadata. */
function byDeclaredAccess(route: RouteSpec, type: AccessType): Expectation {
  if (route.access !== "none" && !route.access.includes(type)) return refused(401, "INSUFFICIENT_ACCESS_TYPE", route.access);
  if (route.project === "internal") return refused(401, "EXPECTED_INTERNAL_PROJECT");
  if (route.user === "schema") return { kind: "user-schema" };
  if (route.user === "known-error") return refused(401, "USER_AUTHENTICATION_REQUIRED");
  if (route.user === "access-token-expired") return refused(401, "ACCESS_TOKEN_EXPIRED");
  const narrower = route.accessByParam?.access[String(sampleOf(propertiesOf(route.schemas.params)[route.accessByParam.param]))];
  if (narrower && !narrower.includes(type)) return refused(401, "INSUFFICIENT_ACCESS_TYPE", narrower);
  return { kind: "passes" };
}

/** The first access type a route declares (the type a refused-everywhere principal presents). */
const someType = (route: RouteSpec): AccessType => (route.access === "none" ? "client" : route.access[0]!);

let tp: TestPlatform;
let target: OwnedProject;
let other: OwnedProject;
let principals: Principal[];
/** `DELETE /internal/projects/current` really deletes: each caller that may do it gets a project of its own. */
let spareOwned: OwnedProject[];

beforeAll(async () => {
  // With the local Stripe server, as `npm start` runs: payments routes answer as configured, not "not configured" (503).
  tp = await startTestPlatform({ printLevel: "error", stripe: true });
  target = await ownedProject(tp, "Matrix target");
  other = await ownedProject(tp, "Matrix other");
  spareOwned = [await ownedProject(tp, "Spare 1", target.owner), await ownedProject(tp, "Spare 2", target.owner)];
  const T = target.keys;
  const otherUser = await signUp(tp, other.keys);
  const anonymous = await anonymousSignUp(tp, T);
  const restricted = await signUp(tp, T);
  await ok(api(tp, "PATCH", `/users/${restricted.userId}`, keyHeaders(T, "server"), { restricted_by_admin: true, restricted_by_admin_reason: "matrix" }), "restrict user");
  const withUser = (u: SignedIn, extra: Record<string, string> = {}) => () => ({ ...keyHeaders(T, "client"), "x-stack-access-token": u.accessToken, ...extra });
  principals = [
    { name: "no auth", headers: () => ({}), expect: (r) => (r.access === "none" ? { kind: "passes" } : refused(400, "ACCESS_TYPE_REQUIRED")) },
    ...(["client", "server", "admin"] as const).map((type): Principal => ({ name: `${type} key`, headers: () => keyHeaders(T, type), expect: (r) => byDeclaredAccess(r, type) })),
    ...(["client", "server", "admin"] as const).map((type): Principal => ({
      name: `owner's admin access token as ${type}`,
      headers: () => ownerHeaders(T.projectId, target.owner.accessToken, type),
      expect: (r) => byDeclaredAccess(r, type),
    })),
    { name: "non-owner's admin access token", headers: (r) => ownerHeaders(T.projectId, other.owner.accessToken, someType(r)), expect: () => refused(401, "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN") },
    ...(["client", "server", "admin"] as const).map((type): Principal => ({
      name: `another project's ${type} key`,
      headers: () => ({ ...keyHeaders(other.keys, type), "x-stack-project-id": T.projectId }),
      expect: () => refused(401, { client: "INVALID_PUBLISHABLE_CLIENT_KEY", server: "INVALID_SECRET_SERVER_KEY", admin: "INVALID_SUPER_SECRET_ADMIN_KEY" }[type]),
    })),
    { name: "a user of another project", headers: withUser(otherUser), expect: () => refused(401, "INVALID_PROJECT_FOR_ACCESS_TOKEN") },
    { name: "an anonymous user (not admitted)", headers: withUser(anonymous), expect: () => refused(401, "ANONYMOUS_AUTHENTICATION_NOT_ALLOWED") },
    {
      name: "a restricted user (not admitted)",
      headers: withUser(restricted, { "x-hexclave-client-version": "js @stackframe/js@2.8.108" }),
      expect: () => refused(403, "RESTRICTED_USER_NOT_ALLOWED"),
    },
  ];
}, 240_000);
afterAll(async () => {
  await tp?.stop();
});

/** A request that passes the route's schema where it can: params, query and body from the route's schemas. */
function requestOf(route: RouteSpec): { path: string; body: unknown } {
  const paramSchemas = propertiesOf(route.schemas.params);
  const params = Object.fromEntries(paramNames(route).map((n) => [n, encodeURIComponent(String(sampleOf(paramSchemas[n])))]));
  const query = new URLSearchParams(Object.entries(sampleOf(route.schemas.query ?? { type: "object" }) as Record<string, unknown>).map(([k, v]) => [k, String(v)])).toString();
  const body = route.method === "GET" ? undefined : route.schemas.body ? sampleOf(route.schemas.body) : {};
  return { path: `${fillPath(route, params)}${query ? `?${query}` : ""}`, body };
}

/** A refusal by authentication: what no caller that the route admits may get. */
function isAuthRefusal(r: Reply): boolean {
  return r.code !== null && (knownErrorCodeIsA(r.code as never, "PROJECT_AUTHENTICATION_ERROR") || knownErrorCodeIsA(r.code as never, "SESSION_AUTHENTICATION_ERROR"));
}

function mismatch(route: RouteSpec, p: Principal, e: Expectation, r: Reply): string | undefined {
  const got = `${r.status} ${r.code ?? ""} ${r.text.slice(0, 160)}`;
  if (r.status >= 500) return `${routeName(route)} × ${p.name}: ${got}`;
  if (e.kind === "passes" && isAuthRefusal(r)) return `${routeName(route)} × ${p.name}: expected to get past authentication, got ${got}`;
  if (e.kind === "user-schema" && !(r.code === "SCHEMA_ERROR" && r.json?.error?.includes("auth.user must be defined"))) {
    return `${routeName(route)} × ${p.name}: expected SCHEMA_ERROR "auth.user must be defined", got ${got}`;
  }
  if (e.kind === "refused") {
    if (r.status !== e.status || r.code !== e.code) return `${routeName(route)} × ${p.name}: expected ${e.status} ${e.code}, got ${got}`;
    if (e.allowed && JSON.stringify(r.json?.details?.allowed_access_types) !== JSON.stringify(e.allowed)) {
      return `${routeName(route)} × ${p.name}: allowed_access_types ${JSON.stringify(r.json?.details?.allowed_access_types)}, declared ${JSON.stringify(e.allowed)}`;
    }
  }
  return undefined;
}

describe("access matrix", () => {
  it("answers every route × every kind of caller as the route's declared access says", async () => {
    const problems: string[] = [];
    let cells = 0;
    const destructive = (r: RouteSpec) => r.method === "DELETE" && r.path === "/internal/projects/current";
    for (const route of [...ROUTES.filter((r) => !destructive(r)), ...ROUTES.filter(destructive)]) {
      const { path, body } = requestOf(route);
      for (const p of principals) {
        let headers = p.headers(route);
        const e = p.expect(route);
        if (destructive(route) && e.kind === "passes") {
          // This caller may delete the project: let it delete a spare one with the same owner instead.
          const spare = spareOwned.pop()!;
          headers = p.name.startsWith("owner") ? ownerHeaders(spare.keys.projectId, target.owner.accessToken, "admin") : keyHeaders(spare.keys, "admin");
        }
        const r = await api(tp, route.method, path, headers, body);
        cells++;
        const problem = mismatch(route, p, e, r);
        if (problem) problems.push(problem);
      }
    }
    console.log(`access matrix: ${ROUTES.length} routes × ${principals.length} callers = ${cells} cells, ${problems.length} mismatches`);
    expect(problems).toEqual([]);
  }, 600_000);
});

describe("cross-project isolation", () => {
  it("never lets another project's keys read or change a resource by its id", async () => {
    const T = target.keys;
    const server = keyHeaders(T, "server");
    const u = await signUp(tp, T);
    const team = await ok(api(tp, "POST", "/teams", server, { display_name: "Isolated team", creator_user_id: u.userId }), "team");
    const key = await ok(api(tp, "POST", "/user-api-keys", server, { user_id: u.userId, description: "isolated", expires_at_millis: null }), "user api key");
    const invitation = await ok(api(tp, "POST", "/team-invitations/send-code", server, { team_id: team.id, email: "invitee@example.com", callback_url: "http://localhost:3000/handler/team-invitation" }), "invitation");
    const invitations = await ok(api(tp, "GET", `/team-invitations?team_id=${team.id}`, server), "invitations");
    const invitationId = invitation.id ?? invitations.items[0].id;
    const sessions = await ok(api(tp, "GET", `/auth/sessions?user_id=${u.userId}`, server), "sessions");
    const sessionId = sessions.items[0].id as string;
    await ok(api(tp, "PATCH", "/internal/config/override", keyHeaders(T, "admin"), { config_override_string: JSON.stringify({ "dataVault.stores.tokens": { displayName: "Tokens" } }) }), "vault store");
    await ok(api(tp, "POST", "/data-vault/stores/tokens/set", server, { hashed_key: "isolated-key", encrypted_value: "AQAsecret" }), "vault value");

    // Another project's server and admin keys, each on its own project (the only project they authenticate for).
    const attempts: [string, string, unknown?][] = [
      ["GET", `/users/${u.userId}`],
      ["PATCH", `/users/${u.userId}`, { display_name: "pwned" }],
      ["DELETE", `/users/${u.userId}`],
      ["GET", `/teams/${team.id}`],
      ["PATCH", `/teams/${team.id}`, { display_name: "pwned" }],
      ["DELETE", `/teams/${team.id}`],
      ["POST", `/team-memberships/${team.id}/${u.userId}`, {}],
      ["DELETE", `/team-memberships/${team.id}/${u.userId}`],
      ["GET", `/team-member-profiles/${team.id}/${u.userId}`],
      ["GET", `/user-api-keys/${key.id}?user_id=${u.userId}`],
      ["PATCH", `/user-api-keys/${key.id}?user_id=${u.userId}`, { revoked: true }],
      ["POST", "/user-api-keys/check", { api_key: key.value }],
      ["GET", `/team-invitations?team_id=${team.id}`],
      ["DELETE", `/team-invitations/${invitationId}?team_id=${team.id}`],
      ["GET", `/auth/sessions?user_id=${u.userId}`],
      ["DELETE", `/auth/sessions/${sessionId}?user_id=${u.userId}`],
      ["POST", "/data-vault/stores/tokens/get", { hashed_key: "isolated-key" }],
      ["POST", "/data-vault/stores/tokens/set", { hashed_key: "isolated-key", encrypted_value: "AQApwned" }],
      ["GET", `/contact-channels?user_id=${u.userId}`],
      ["GET", `/connected-accounts/${u.userId}`],
    ];
    const leaks: string[] = [];
    for (const type of ["server", "admin"] as const) {
      for (const [method, path, body] of attempts) {
        const r = await api(tp, method, path, keyHeaders(other.keys, type), body);
        const leaked = r.status < 300 && (r.text.includes(u.userId) || r.text.includes(team.id) || r.text.includes("AQAsecret") || method !== "GET");
        if (r.status >= 500 || leaked) leaks.push(`${type} ${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
    expect(leaks).toEqual([]);

    // Everything is still there, unchanged, for the owning project.
    expect((await ok(api(tp, "GET", `/users/${u.userId}`, server), "user")).display_name).not.toBe("pwned");
    expect((await ok(api(tp, "GET", `/teams/${team.id}`, server), "team")).display_name).toBe("Isolated team");
    expect((await ok(api(tp, "GET", `/user-api-keys/${key.id}?user_id=${u.userId}`, server), "key")).manually_revoked_at_millis ?? null).toBeNull();
    expect((await ok(api(tp, "GET", `/team-invitations?team_id=${team.id}`, server), "invitations")).items.map((i: { id: string }) => i.id)).toContain(invitationId);
    expect((await ok(api(tp, "GET", `/auth/sessions?user_id=${u.userId}`, server), "sessions")).items.map((s: { id: string }) => s.id)).toContain(sessionId);
    expect((await ok(api(tp, "POST", "/data-vault/stores/tokens/get", server, { hashed_key: "isolated-key" }), "vault")).encrypted_value).toBe("AQAsecret");
  }, 180_000);
});
