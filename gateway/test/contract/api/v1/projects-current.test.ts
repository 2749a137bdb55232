import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe("GET /api/v1/projects/current and request authentication", () => {
  it("returns the client view of the project for each access type with its own key", async () => {
    for (const type of ["client", "server", "admin"] as const) {
      const res = await call(stack, "GET", "/api/v1/projects/current", { headers: headersFor(stack.demo, type) });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(res.json).toEqual({
        id: stack.demo.projectId,
        display_name: "Demo Project",
        config: {
          sign_up_enabled: true,
          credential_enabled: true,
          magic_link_enabled: true,
          passkey_enabled: false,
          client_team_creation_enabled: true,
          client_user_deletion_enabled: false,
          allow_user_api_keys: false,
          allow_team_api_keys: false,
          enabled_oauth_providers: [],
          // The current SDK reads these (issue 13, latest-sdk.md B).
          allow_localhost: true,
          domains: [],
        },
      });
    }
  });

  it("accepts the x-hexclave- header prefix of newer SDKs", async () => {
    const res = await call(stack, "GET", "/api/v1/projects/current", { headers: headersFor(stack.demo, "client", "x-hexclave-") });
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(stack.demo.projectId);
  });

  it("refuses a wrong key with 401, the code and the known-error header", async () => {
    const res = await call(stack, "GET", "/api/v1/projects/current", {
      headers: { ...headersFor(stack.demo, "client"), "x-stack-publishable-client-key": "pck_wrong" },
    });
    expectKnownError(res, 401, "INVALID_PUBLISHABLE_CLIENT_KEY");
    expect(res.json.details).toEqual({ project_id: stack.demo.projectId });
    expect(typeof res.json.error).toBe("string");
    expect(Object.keys(res.json)).toEqual(["code", "details", "error"]);
  });

  it("checks each access type only against its own key", async () => {
    const server = await call(stack, "GET", "/api/v1/projects/current", {
      headers: { ...headersFor(stack.demo, "server"), "x-stack-secret-server-key": stack.demo.superSecretAdminKey },
    });
    expectKnownError(server, 401, "INVALID_SECRET_SERVER_KEY");
    const admin = await call(stack, "GET", "/api/v1/projects/current", {
      headers: { ...headersFor(stack.demo, "admin"), "x-stack-super-secret-admin-key": stack.demo.secretServerKey },
    });
    expectKnownError(admin, 401, "INVALID_SUPER_SECRET_ADMIN_KEY");
    // Another project's key is not valid here.
    const other = await call(stack, "GET", "/api/v1/projects/current", {
      headers: { ...headersFor(stack.demo, "client"), "x-stack-publishable-client-key": stack.internal.publishableClientKey },
    });
    expectKnownError(other, 401, "INVALID_PUBLISHABLE_CLIENT_KEY");
  });

  it("answers each missing or invalid header with the contract's error", async () => {
    const p = stack.demo.projectId;
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: { "x-stack-access-type": "client" } }), 400, "ACCESS_TYPE_WITHOUT_PROJECT_ID");
    expectKnownError(
      await call(stack, "GET", "/api/v1/projects/current", { headers: { "x-stack-project-id": p, "x-stack-publishable-client-key": stack.demo.publishableClientKey } }),
      400,
      "PROJECT_KEY_WITHOUT_ACCESS_TYPE",
    );
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: { "x-stack-project-id": p } }), 400, "ACCESS_TYPE_REQUIRED");
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: { "x-stack-project-id": p, "x-stack-access-type": "root" } }), 400, "INVALID_ACCESS_TYPE");
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: { "x-stack-project-id": p, "x-stack-access-type": "client" } }), 401, "CLIENT_AUTHENTICATION_REQUIRED");
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: { "x-stack-project-id": p, "x-stack-access-type": "server", "x-stack-secret-server-key": "" } }), 401, "SERVER_AUTHENTICATION_REQUIRED");
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: { "x-stack-project-id": p, "x-stack-access-type": "admin" } }), 401, "ADMIN_AUTHENTICATION_REQUIRED");
    const unknown = await call(stack, "GET", "/api/v1/projects/current", { headers: { ...headersFor(stack.demo, "client"), "x-stack-project-id": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" } });
    expectKnownError(unknown, 400, "CURRENT_PROJECT_NOT_FOUND");
    expect(unknown.json.details).toEqual({ project_id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" });
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: { ...headersFor(stack.demo, "client"), "x-stack-project-id": "not-a-uuid" } }), 400, "CURRENT_PROJECT_NOT_FOUND");
    const branch = await call(stack, "GET", "/api/v1/projects/current", { headers: { ...headersFor(stack.demo, "client"), "x-stack-branch-id": "dev" } });
    expectKnownError(branch, 400, "BRANCH_DOES_NOT_EXIST");
    expect(branch.json.details).toEqual({ branch_id: "dev" });
  });

  it("refuses an access token it cannot verify as unparsable", async () => {
    const res = await call(stack, "GET", "/api/v1/projects/current", { headers: { ...headersFor(stack.demo, "client"), "x-stack-access-token": "garbage" } });
    expectKnownError(res, 401, "UNPARSABLE_ACCESS_TOKEN");
  });

  it("answers 200 with x-stack-actual-status when the SDK asks to override error statuses", async () => {
    const res = await call(stack, "GET", "/api/v1/projects/current", {
      headers: { ...headersFor(stack.demo, "client"), "x-stack-publishable-client-key": "pck_wrong", "x-stack-override-error-status": "true" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-stack-actual-status")).toBe("401");
    expect(res.headers.get("x-stack-known-error")).toBe("INVALID_PUBLISHABLE_CLIENT_KEY");
    expect(res.json.code).toBe("INVALID_PUBLISHABLE_CLIENT_KEY");
  });

  it("is also served under /api/latest", async () => {
    const res = await call(stack, "GET", "/api/latest/projects/current", { headers: headersFor(stack.demo, "client") });
    expect(res.status).toBe(200);
  });
});
