import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

const admin = () => headersFor(stack.demo, "admin");

describe("/api/v1/internal/projects/current", () => {
  it("reads the admin project shape with its whole config", async () => {
    const res = await call(stack, "GET", "/api/v1/internal/projects/current", { headers: admin() });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: stack.demo.projectId,
      display_name: "Demo Project",
      description: "",
      logo_url: null,
      full_logo_url: null,
      is_production_mode: false,
      owner_team_id: null,
    });
    expect(typeof res.json.created_at_millis).toBe("number");
    expect(res.json.config).toMatchObject({
      allow_localhost: true,
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: true,
      passkey_enabled: false,
      oauth_account_merge_strategy: "link_method",
      domains: [],
      email_config: { type: "shared" },
      team_creator_default_permissions: [{ id: "team_admin" }],
      team_member_default_permissions: [{ id: "team_member" }],
      user_default_permissions: [],
    });
  });

  it("updates fields and config; clients see the change at once", async () => {
    const res = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: admin(),
      body: {
        display_name: "Renamed",
        description: "about",
        config: { sign_up_enabled: false, allow_user_api_keys: true, domains: [{ domain: "https://app.example.com", handler_path: "/handler" }] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json.display_name).toBe("Renamed");
    expect(res.json.config.sign_up_enabled).toBe(false);
    expect(res.json.config.domains).toEqual([{ domain: "https://app.example.com", handler_path: "/handler" }]);
    const client = await call(stack, "GET", "/api/v1/projects/current", { headers: headersFor(stack.demo, "client") });
    expect(client.json.display_name).toBe("Renamed");
    expect(client.json.config.sign_up_enabled).toBe(false);
    expect(client.json.config.allow_user_api_keys).toBe(true);
  });

  it("refuses an invalid trusted domain with a 400 and changes nothing", async () => {
    const res = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: admin(),
      body: { display_name: "Should not stick", config: { domains: [{ domain: "https://exa..mple.com", handler_path: "/handler" }] } },
    });
    expect(res.status).toBe(400);
    expect(res.json?.code ?? "text").not.toBe("INTERNAL");
    const after = await call(stack, "GET", "/api/v1/internal/projects/current", { headers: admin() });
    expect(after.json.display_name).not.toBe("Should not stick");
  });

  it("keeps the SMTP password encrypted at rest and returns it to admins", async () => {
    const password = `smtp-${Date.now()}-secret`;
    const res = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: admin(),
      body: { config: { email_config: { type: "standard", host: "smtp.example.com", port: 587, username: "u", password, sender_name: "Me", sender_email: "me@example.com" } } },
    });
    expect(res.status).toBe(200);
    expect(res.json.config.email_config).toMatchObject({ type: "standard", host: "smtp.example.com", port: 587, password });
    const { rows } = await stack.identity.ctx.pool.query("SELECT config_override::text AS doc FROM projects WHERE id = $1", [stack.demo.projectId]);
    expect(rows[0].doc).not.toContain(password);
    expect(rows[0].doc).toContain("vsb1.");
  });

  it("is admin-only", async () => {
    expectKnownError(await call(stack, "GET", "/api/v1/internal/projects/current", { headers: headersFor(stack.demo, "server") }), 401, "INSUFFICIENT_ACCESS_TYPE");
  });

  it("GET/POST /internal/projects need a signed-in user of the internal project", async () => {
    expectKnownError(await call(stack, "GET", "/api/v1/internal/projects", { headers: headersFor(stack.demo, "client") }), 401, "EXPECTED_INTERNAL_PROJECT");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/projects", { headers: headersFor(stack.internal, "client") }), 401, "USER_AUTHENTICATION_REQUIRED");
  });

  it("deletes a project; its keys stop working", async () => {
    const created = await stack.identity.ctx.pool.query("SELECT 1");
    expect(created.rowCount).toBe(1);
    const del = await call(stack, "DELETE", "/api/v1/internal/projects/current", { headers: admin() });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ success: true });
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers: headersFor(stack.demo, "client") }), 400, "CURRENT_PROJECT_NOT_FOUND");
    const internal = await call(stack, "DELETE", "/api/v1/internal/projects/current", { headers: headersFor(stack.internal, "admin") });
    expect(internal.status).toBe(400);
  });
});

describe("/api/v1/internal/config", () => {
  it("renders the layered config and deep-merges overrides with dotted keys", async () => {
    const keys = stack.internal;
    const before = await call(stack, "GET", "/api/v1/internal/config", { headers: headersFor(keys, "admin") });
    expect(before.status).toBe(200);
    const config = JSON.parse(before.json.config_string);
    expect(config.auth.allowSignUp).toBe(true);
    const patch = await call(stack, "PATCH", "/api/v1/internal/config/override", {
      headers: headersFor(keys, "admin"),
      body: { config_override_string: JSON.stringify({ "payments.items.credits": { displayName: "Credits", customerType: "user" }, dataVault: { stores: { notes: { displayName: "Notes" } } } }) },
    });
    expect(patch.status).toBe(200);
    expect(patch.json).toEqual({});
    const after = JSON.parse((await call(stack, "GET", "/api/v1/internal/config", { headers: headersFor(keys, "admin") })).json.config_string);
    expect(after.payments.items.credits).toEqual({ displayName: "Credits", customerType: "user" });
    expect(after.dataVault.stores.notes.displayName).toBe("Notes");
    expect(after.auth.allowSignUp).toBe(true);
    const bad = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: headersFor(keys, "admin"), body: { config_override_string: "{not json" } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });
});
