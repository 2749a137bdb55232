/**
 * The admin app's dashboard calls with a fake fetch: projects owned by a user of the internal project (list, create,
 * each with an admin app acting as that user), metrics, and transfer as the owner's own call on the internal project.
 */
import { describe, expect, it } from "vitest";
import { fakeAccessToken } from "../../core/test/fake-jwt.ts";
import { StackAdminApp, StackClientApp, TRANSFER_NEEDS_INTERNAL_USER_MESSAGE, type AdminMetrics, type CurrentInternalUser, type CurrentUser } from "./index.ts";

type Req = { method: string; path: string; query: URLSearchParams; body: any; headers: Record<string, string> };
type Handler = (req: Req) => Response | Promise<Response>;

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function fakeServer(routes: Record<string, Handler>) {
  const calls: Req[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const u = new URL(url);
    const path = decodeURIComponent(u.pathname).replace(/^\/api\/v1/, "");
    const method = (init.method ?? "GET").toUpperCase();
    const headers = { ...(init.headers as Record<string, string>) };
    const body = init.body === undefined ? undefined : JSON.parse(init.body as string);
    const req = { method, path, query: u.searchParams, body, headers };
    calls.push(req);
    const handler = routes[`${method} ${path}`];
    if (!handler) return new Response(`no route ${method} ${path}`, { status: 404 });
    return handler(req);
  };
  return { calls, fetch };
}

const OWNER_TOKEN = fakeAccessToken({ project_id: "internal", aud: "internal" });
const PROJECT_ID = "6f1c2e9a-3b4d-4e5f-8a9b-0c1d2e3f4a5b";

const userJson = {
  id: "owner-1",
  primary_email: "owner@example.com",
  primary_email_verified: true,
  display_name: "Olive Owner",
  signed_up_at_millis: 1,
  has_password: true,
  auth_with_email: true,
  oauth_providers: [],
  is_anonymous: false,
};

const adminProjectJson = (over: Record<string, unknown> = {}) => ({
  id: PROJECT_ID,
  display_name: "Shop",
  description: "",
  created_at_millis: 1_700_000_000_000,
  is_production_mode: false,
  owner_team_id: "team-1",
  config: {
    sign_up_enabled: true,
    credential_enabled: true,
    magic_link_enabled: false,
    passkey_enabled: false,
    client_team_creation_enabled: false,
    client_user_deletion_enabled: false,
    allow_localhost: true,
    allow_user_api_keys: false,
    allow_team_api_keys: false,
    create_team_on_sign_up: false,
    oauth_account_merge_strategy: "link_method",
    oauth_providers: [],
    domains: [{ domain: "https://shop.example.com", handler_path: "/handler" }],
    email_theme: "theme-1",
    team_creator_default_permissions: [],
    team_member_default_permissions: [],
    user_default_permissions: [],
  },
  ...over,
});

let ids = 0;
function internalApp(fetch: (u: string, i: RequestInit) => Promise<Response>, projectId = "internal") {
  return new StackClientApp({
    baseUrl: "https://api.example.com",
    projectId,
    publishableClientKey: "pck_internal",
    tokenStore: { accessToken: OWNER_TOKEN, refreshToken: "owner-rt" },
    noAutomaticPrefetch: true,
    uniqueIdentifier: `admin-test-${++ids}`,
    fetch,
  });
}

async function owner(fetch: (u: string, i: RequestInit) => Promise<Response>): Promise<CurrentInternalUser> {
  return (await internalApp(fetch).getUser({ or: "throw" })) as CurrentInternalUser;
}

describe("projects owned by a user of the internal project", () => {
  it("listOwnedProjects reads GET /internal/projects with the user's session; each project's app acts as the owner", async () => {
    const { calls, fetch } = fakeServer({
      "GET /users/me": () => json(userJson),
      "GET /internal/projects": () => json({ items: [adminProjectJson(), adminProjectJson({ id: "p-2", display_name: "Blog", is_production_mode: true })] }),
      "GET /users": () => json({ items: [], pagination: { next_cursor: null } }),
    });
    const projects = await (await owner(fetch)).listOwnedProjects();
    const list = calls.find((c) => c.path === "/internal/projects")!;
    expect(list.headers["x-stack-project-id"]).toBe("internal");
    expect(list.headers["x-stack-access-type"]).toBe("client");
    expect(list.headers["x-stack-access-token"]).toBe(OWNER_TOKEN);
    expect(projects.map((p) => [p.id, p.displayName, p.isProductionMode])).toEqual([
      [PROJECT_ID, "Shop", false],
      ["p-2", "Blog", true],
    ]);
    expect(projects[0]!.config.domains).toEqual([{ domain: "https://shop.example.com", handlerPath: "/handler" }]);
    expect(projects[0]!.app).toBeInstanceOf(StackAdminApp);
    expect(projects[0]!.app.projectId).toBe(PROJECT_ID);

    // The owned project's admin app: the project's id, the owner's token as admin access token, no keys.
    await projects[0]!.app.listUsers({ limit: 1 });
    const users = calls.find((c) => c.path === "/users")!;
    expect(users.headers["x-stack-project-id"]).toBe(PROJECT_ID);
    expect(users.headers["x-stack-access-type"]).toBe("server");
    expect(users.headers["x-stack-admin-access-token"]).toBe(OWNER_TOKEN);
    expect(users.headers["x-stack-secret-server-key"]).toBe("");
    expect(users.headers["x-stack-access-token"]).toBeUndefined();
  });

  it("createProject posts the owner team and the options as the wire's snake_case body", async () => {
    const { calls, fetch } = fakeServer({
      "GET /users/me": () => json(userJson),
      "POST /internal/projects": (req) => json(adminProjectJson({ display_name: req.body.display_name, description: req.body.description }), 201),
      "PATCH /internal/projects/current": () => json(adminProjectJson({ display_name: "Shop 2" })),
    });
    const project = await (await owner(fetch)).createProject({
      displayName: "Shop",
      teamId: "team-1",
      description: "Our shop",
      config: { allowLocalhost: false, domains: [{ domain: "https://shop.example.com", handlerPath: "/handler" }] },
    });
    const post = calls.find((c) => c.method === "POST")!;
    expect(post.headers["x-stack-access-token"]).toBe(OWNER_TOKEN);
    expect(post.body).toEqual({
      display_name: "Shop",
      description: "Our shop",
      owner_team_id: "team-1",
      config: { allow_localhost: false, domains: [{ domain: "https://shop.example.com", handler_path: "/handler" }] },
    });
    expect(project.displayName).toBe("Shop");
    expect(project.description).toBe("Our shop");

    await project.update({ displayName: "Shop 2" });
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.headers["x-stack-project-id"]).toBe(PROJECT_ID);
    expect(patch.headers["x-stack-access-type"]).toBe("admin");
    expect(patch.headers["x-stack-admin-access-token"]).toBe(OWNER_TOKEN);
    expect(patch.body).toMatchObject({ display_name: "Shop 2" });
  });

  it("users of other projects do not get the internal user's calls", async () => {
    const { fetch } = fakeServer({ "GET /users/me": () => json(userJson) });
    const user = (await internalApp(fetch, "p1").getUser({ or: "throw" })) as Partial<CurrentInternalUser>;
    expect(user.listOwnedProjects).toBeUndefined();
    expect(user.createProject).toBeUndefined();
  });

  it("server errors of the listing reach the caller as known errors", async () => {
    const { fetch } = fakeServer({
      "GET /users/me": () => json(userJson),
      "GET /internal/projects": () =>
        new Response(JSON.stringify({ code: "EXPECTED_INTERNAL_PROJECT", error: "The project ID is expected to be internal." }), {
          status: 400,
          headers: { "content-type": "application/json", "x-stack-known-error": "EXPECTED_INTERNAL_PROJECT" },
        }),
    });
    await expect((await owner(fetch)).listOwnedProjects()).rejects.toMatchObject({ errorCode: "EXPECTED_INTERNAL_PROJECT" });
  });
});

describe("admin app: metrics and transfer", () => {
  const adminApp = (fetch: (u: string, i: RequestInit) => Promise<Response>) =>
    new StackAdminApp({ baseUrl: "https://api.example.com", projectId: PROJECT_ID, superSecretAdminKey: "sak_1", secretServerKey: "ssk_1", tokenStore: null, uniqueIdentifier: `admin-test-${++ids}`, fetch });

  const metrics: AdminMetrics = {
    total_users: 3,
    daily_users: [{ date: "2026-01-01", activity: 2 }],
    daily_active_users: [{ date: "2026-01-01", activity: 1 }],
    users_by_country: { CH: 2 },
    recently_registered: [],
    recently_active: [],
    login_methods: [{ method: "password", count: 3 }],
  };

  it("getActivityReport reads GET /internal/metrics/activity with the range and granularity", async () => {
    const report = { granularity: "week", from: "2026-11-20", to: "2026-11-26", buckets: [], retention: [] };
    const { calls, fetch } = fakeServer({ "GET /internal/metrics/activity": () => json(report) });
    expect(await adminApp(fetch).getActivityReport({ days: 7, granularity: "week" })).toEqual(report);
    expect(Object.fromEntries(calls[0]!.query)).toEqual({ days: "7", granularity: "week" });
    expect(calls[0]!.headers["x-stack-access-type"]).toBe("admin");
  });

  it("getMetrics reads GET /internal/metrics as admin, anonymous users only when asked", async () => {
    const { calls, fetch } = fakeServer({ "GET /internal/metrics": () => json(metrics) });
    const app = adminApp(fetch);
    expect(await app.getMetrics()).toEqual(metrics);
    await app.getMetrics(true);
    expect(calls.map((c) => c.query.get("include_anonymous"))).toEqual([null, "true"]);
    expect(calls[0]!.headers["x-stack-access-type"]).toBe("admin");
    expect(calls[0]!.headers["x-stack-super-secret-admin-key"]).toBe("sak_1");
  });

  it("transfer(user, team) is the owner's own call on the internal project, with their session", async () => {
    const { calls, fetch } = fakeServer({
      "GET /users/me": () => json(userJson),
      "GET /internal/projects/current": () => json(adminProjectJson()),
      "POST /internal/projects/transfer": () => json({ success: "true" }),
    });
    const user = await owner(fetch);
    const project = await adminApp(fetch).getProject();
    await project.transfer(user, "team-2");
    const transfer = calls.find((c) => c.path === "/internal/projects/transfer")!;
    expect(transfer.body).toEqual({ project_id: PROJECT_ID, new_team_id: "team-2" });
    expect(transfer.headers["x-stack-project-id"]).toBe("internal");
    expect(transfer.headers["x-stack-publishable-client-key"]).toBe("pck_internal");
    expect(transfer.headers["x-stack-access-token"]).toBe(OWNER_TOKEN);
    expect(transfer.headers["x-stack-super-secret-admin-key"]).toBeUndefined();
  });

  it("internal key sets without an expiry never expire; expired and revoked ones say why", async () => {
    const { fetch } = fakeServer({
      "GET /internal/api-keys": () =>
        json({
          items: [
            { id: "k1", description: "platform", created_at_millis: 1, expires_at_millis: null, publishable_client_key: { last_four: "abcd" } },
            { id: "k2", description: "old", created_at_millis: 1, expires_at_millis: 2, secret_server_key: { last_four: "efgh" } },
            { id: "k3", description: "revoked", created_at_millis: 1, expires_at_millis: Date.now() + 60_000, manually_revoked_at_millis: 5 },
          ],
        }),
    });
    const keys = await adminApp(fetch).listInternalApiKeys();
    expect(keys.map((k) => [k.expiresAt?.getTime() ?? null, k.isValid(), k.whyInvalid()])).toEqual([
      [null, true, null],
      [2, false, "expired"],
      [expect.any(Number), false, "manually-revoked"],
    ]);
    expect(keys[0]!.publishableClientKey).toEqual({ lastFour: "abcd" });
  });

  it("transfer refuses a user that is not a signed-in user of an app", async () => {
    const { calls, fetch } = fakeServer({ "GET /internal/projects/current": () => json(adminProjectJson()) });
    const project = await adminApp(fetch).getProject();
    await expect(project.transfer({ id: "x" } as unknown as CurrentUser, "team-2")).rejects.toThrow(TRANSFER_NEEDS_INTERNAL_USER_MESSAGE);
    expect(calls.filter((c) => c.path === "/internal/projects/transfer")).toHaveLength(0);
  });
});
