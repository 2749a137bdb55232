/**
 * Config by level (latest-sdk.md D) through the real platform (six service processes + gateway): the levelled
 * override routes, reset-keys, the config source, who may call them, the seed-era unlevelled PATCH (= environment),
 * and both published SDKs' admin `updateConfig` (2.8.108 → PATCH .../environment, 2.8.41 → the unlevelled route).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { callDemo, demoHeaders, demoSdkOptions, type Access, type ApiAnswer } from "./platform-api.ts";

let tp: TestPlatform;
beforeAll(async () => {
  tp = await startTestPlatform();
});
afterAll(async () => {
  await tp?.stop();
});

const headers = (access: Access): Record<string, string> => demoHeaders(tp, access);
const call = (method: string, path: string, access: Access, body?: unknown): Promise<ApiAnswer> => callDemo(tp, method, path, access, body);

const rendered = async (): Promise<any> => JSON.parse((await call("GET", "/internal/config", "admin")).json.config_string);
const level = async (name: string): Promise<any> => {
  const res = await call("GET", `/internal/config/override/${name}`, "admin");
  expect(res.status).toBe(200);
  return JSON.parse(res.json.config_string);
};

describe("config by level", () => {
  it("renders project < branch < environment, each level read and written on its own", async () => {
    // (the demo project's seed writes its settings at the environment level; these keys are not among them)
    expect(await level("project")).toEqual({});
    expect(await level("branch")).toEqual({});

    const projectDoc = { "auth.passkey.allowSignIn": true, "users.allowClientUserDeletion": true, "payments.items.gems": { displayName: "Gems", customerType: "user" } };
    const put = await call("PUT", "/internal/config/override/project", "admin", { config_string: JSON.stringify(projectDoc) });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({});
    expect(await level("project")).toEqual(projectDoc); // a replaced level reads back as written
    let r = await rendered();
    expect(r.auth.passkey.allowSignIn).toBe(true);
    expect(r.payments.items.gems).toEqual({ displayName: "Gems", customerType: "user" });

    // branch overrides project at the same path
    expect((await call("PATCH", "/internal/config/override/branch", "admin", { config_override_string: JSON.stringify({ auth: { passkey: { allowSignIn: false } } }) })).status).toBe(200);
    expect((await rendered()).auth.passkey.allowSignIn).toBe(false);
    // environment overrides both; its null deletes what a lower level set
    expect(
      (await call("PATCH", "/internal/config/override/environment", "admin", { config_override_string: JSON.stringify({ "auth.passkey.allowSignIn": true, "payments.items.gems": null }) }))
        .status,
    ).toBe(200);
    r = await rendered();
    expect(r.auth.passkey.allowSignIn).toBe(true);
    expect(r.payments.items.gems).toBeUndefined();
    expect(r.users.allowClientUserDeletion).toBe(true);

    expect(await level("branch")).toEqual({ auth: { passkey: { allowSignIn: false } } });
    expect((await level("environment")).auth.passkey).toEqual({ allowSignIn: true });

    // the client view of the project follows the rendered config (gateway cache updated)
    const current = await call("GET", "/projects/current", "client");
    expect(current.json.config.passkey_enabled).toBe(true);
    expect(current.json.config.client_user_deletion_enabled).toBe(true);

    // reset-keys removes a key and everything below it from one level only
    expect((await call("POST", "/internal/config/override/environment/reset-keys", "admin", { keys: ["auth.passkey", "payments.items.gems"] })).status).toBe(200);
    r = await rendered();
    expect(r.auth.passkey.allowSignIn).toBe(false); // the branch's value shows again
    expect(r.payments.items.gems).toEqual({ displayName: "Gems", customerType: "user" });
    expect(r.auth.password.allowSignIn).toBe(true); // the environment's other auth keys stay
    expect((await call("POST", "/internal/config/override/branch/reset-keys", "admin", { keys: ["auth.passkey.allowSignIn"] })).status).toBe(200);
    expect((await rendered()).auth.passkey.allowSignIn).toBe(true); // now the project's
    expect(await level("branch")).toEqual({});

    // PUT replaces the whole level
    expect((await call("PUT", "/internal/config/override/project", "admin", { config_string: "{}" })).status).toBe(200);
    r = await rendered();
    expect(r.auth.passkey.allowSignIn).toBe(false);
    expect(r.users.allowClientUserDeletion).toBe(false);
    expect(r.payments.items.gems).toBeUndefined();
  });

  it("the seed-era unlevelled PATCH writes the environment level", async () => {
    expect((await call("PATCH", "/internal/config/override", "admin", { config_override_string: JSON.stringify({ "dataVault.stores.old": { displayName: "Old" } }) })).status).toBe(200);
    expect((await level("environment")).dataVault).toEqual({ stores: { old: { displayName: "Old" } } });
    expect(await level("project")).toEqual({});
  });

  it("the branch config source: unlinked until pushed, set by PUT branch, unlinked by DELETE (config kept)", async () => {
    expect((await call("GET", "/internal/config/source", "admin")).json).toEqual({ source: { type: "unlinked" } });
    const source = { type: "pushed-from-github", owner: "acme", repo: "app", branch: "main", commit_hash: "abc123", config_file_path: "stack.config.ts" };
    const put = await call("PUT", "/internal/config/override/branch", "admin", { config_string: JSON.stringify({ "auth.otp.allowSignIn": true }), source });
    expect(put.status).toBe(200);
    expect((await call("GET", "/internal/config/source", "admin")).json).toEqual({ source });
    expect((await call("DELETE", "/internal/config/source", "admin")).status).toBe(200);
    expect((await call("GET", "/internal/config/source", "admin")).json).toEqual({ source: { type: "unlinked" } });
    expect((await rendered()).auth.otp.allowSignIn).toBe(true);
    expect((await call("PUT", "/internal/config/override/branch", "admin", { config_string: "{}", source: { type: "pushed-from-unknown" } })).status).toBe(200);
    expect((await call("GET", "/internal/config/source", "admin")).json).toEqual({ source: { type: "pushed-from-unknown" } });
  });

  it("server access may use the branch level only; client access none of it", async () => {
    const server = await call("PATCH", "/internal/config/override/branch", "server", { config_override_string: JSON.stringify({ "auth.passkey.allowSignIn": true }) });
    expect(server.status).toBe(200);
    expect(JSON.parse((await call("GET", "/internal/config/override/branch", "server")).json.config_string)).toEqual({ auth: { passkey: { allowSignIn: true } } });
    expect((await call("POST", "/internal/config/override/branch/reset-keys", "server", { keys: ["auth"] })).status).toBe(200);
    for (const lvl of ["project", "environment"]) {
      const denied = await call("PATCH", `/internal/config/override/${lvl}`, "server", { config_override_string: "{}" });
      expect(denied.status).toBe(401);
      expect(denied.code).toBe("INSUFFICIENT_ACCESS_TYPE");
      expect((await call("GET", `/internal/config/override/${lvl}`, "server")).code).toBe("INSUFFICIENT_ACCESS_TYPE");
    }
    expect((await call("GET", "/internal/config/source", "server")).code).toBe("INSUFFICIENT_ACCESS_TYPE");
    expect((await call("GET", "/internal/config/override/branch", "client")).code).toBe("INSUFFICIENT_ACCESS_TYPE");
  });

  it("secrets written at any level are sealed at rest and read back in clear by admins", async () => {
    const secret = "level-secret-" + Math.random().toString(36).slice(2);
    const doc = { "auth.oauth.providers.github": { type: "github", isShared: false, clientId: "cid", clientSecret: secret, allowSignIn: false } };
    for (const lvl of ["project", "branch"]) {
      expect((await call("PUT", `/internal/config/override/${lvl}`, "admin", { config_string: JSON.stringify(doc) })).status).toBe(200);
      expect(JSON.stringify(await level(lvl))).toContain(secret);
    }
    const db = new pg.Client({ connectionString: tp.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT project_config_override::text AS p, branch_config_override::text AS b FROM identity.projects WHERE id = $1`, [tp.projects.demo.project_id]);
      expect(rows[0].p).not.toContain(secret);
      expect(rows[0].b).not.toContain(secret);
      expect(rows[0].p).toContain("vsb1.");
    } finally {
      await db.end();
    }
    for (const lvl of ["project", "branch"]) await call("PUT", `/internal/config/override/${lvl}`, "admin", { config_string: "{}" });
  });

  it("bad input gets a 400, never a 5xx", async () => {
    const unknownLevel = await call("GET", "/internal/config/override/tenant", "admin");
    expect(unknownLevel.status).toBe(400);
    const notJson = await call("PATCH", "/internal/config/override/environment", "admin", { config_override_string: "{nope" });
    expect(notJson.status).toBe(400);
    expect(notJson.text).toContain("config_override_string is not valid JSON");
    const array = await call("PUT", "/internal/config/override/project", "admin", { config_string: "[1]" });
    expect(array.status).toBe(400);
    const unknownKey = await call("PUT", "/internal/config/override/project", "admin", { config_string: JSON.stringify({ "auth.nope": true }) });
    expect(unknownKey.status).toBe(400);
    const wrongType = await call("PATCH", "/internal/config/override/branch", "admin", { config_override_string: JSON.stringify({ "auth.allowSignUp": "yes" }) });
    expect(wrongType.status).toBe(400);
    const missing = await call("PUT", "/internal/config/override/branch", "admin", {});
    expect(missing.status).toBe(400);
    expect(missing.code).toBe("SCHEMA_ERROR");
    const badSource = await call("PUT", "/internal/config/override/branch", "admin", { config_string: "{}", source: { type: "pushed-from-github" } });
    expect(badSource.status).toBe(400);
    const badKeys = await call("POST", "/internal/config/override/branch/reset-keys", "admin", { keys: "auth" });
    expect(badKeys.status).toBe(400);
    expect(badKeys.code).toBe("SCHEMA_ERROR");
    // nothing was written by the refused requests
    expect(await level("project")).toEqual({});
  });
});

it("every config route is in the OpenAPI document", async () => {
  const doc = (await (await fetch(`${tp.gatewayUrl}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const level = doc.paths["/api/v1/internal/config/override/{level}"]!;
  expect(Object.keys(level).sort()).toEqual(["get", "patch", "put"]);
  expect(doc.paths["/api/v1/internal/config/override/{level}/reset-keys"]?.post).toBeDefined();
  expect(Object.keys(doc.paths["/api/v1/internal/config/source"]!).sort()).toEqual(["delete", "get"]);
  expect(doc.paths["/api/v1/internal/config/override"]?.patch).toBeDefined();
});

describe("admin SDKs update the config", () => {
  const options = () => demoSdkOptions(tp);

  it("@stackframe/js 2.8.108: project.updateConfig → PATCH /internal/config/override/environment; levelled reads and pushes", async () => {
    const app = new latest.StackAdminApp(options());
    const project = await app.getProject();
    await project.updateConfig({ "dataVault.stores.latest": { displayName: "From 2.8.108" } } as never);
    expect((await level("environment")).dataVault.stores.latest).toEqual({ displayName: "From 2.8.108" });
    const p = project as any;
    await p.pushConfig({ "auth.passkey.allowSignIn": true }, { source: { type: "pushed-from-unknown" } });
    expect(await p.getConfigOverride("branch")).toEqual({ "auth.passkey.allowSignIn": true });
    expect((await rendered()).auth.passkey.allowSignIn).toBe(true);
    expect(await p.getPushedConfigSource()).toEqual({ type: "pushed-from-unknown" });
    await p.resetConfigOverrideKeys("branch", ["auth.passkey"]);
    expect(await p.getConfigOverride("branch")).toEqual({});
    expect((await rendered()).auth.passkey.allowSignIn).toBe(false);
    await p.replaceConfigOverride("project", { "users.allowClientUserDeletion": true });
    expect((await rendered()).users.allowClientUserDeletion).toBe(true);
    await p.replaceConfigOverride("project", {});
  });

  it("@stackframe/js 2.8.41: project.updateConfig → the unlevelled PATCH (environment)", async () => {
    const app = new v2841.StackAdminApp(options());
    const project = await app.getProject();
    await project.updateConfig({ "dataVault.stores.seed": { displayName: "From 2.8.41" } } as never);
    expect((await level("environment")).dataVault.stores.seed).toEqual({ displayName: "From 2.8.41" });
    expect((await rendered()).dataVault.stores.seed).toEqual({ displayName: "From 2.8.41" });
  });
});
