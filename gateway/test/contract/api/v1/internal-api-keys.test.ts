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

describe("/api/v1/internal/api-keys", () => {
  it("creates a key set whose full keys are shown once, then only their last four characters", async () => {
    const created = await call(stack, "POST", "/api/v1/internal/api-keys", {
      headers: admin(),
      body: { description: "ci", expires_at_millis: Date.now() + 3_600_000, has_publishable_client_key: true, has_secret_server_key: true, has_super_secret_admin_key: false },
    });
    expect(created.status).toBe(200);
    expect(created.json.publishable_client_key).toMatch(/^pck_[0-9a-z]{45}$/);
    expect(created.json.secret_server_key).toMatch(/^ssk_[0-9a-z]{45}$/);
    expect(created.json.super_secret_admin_key).toBeUndefined();
    expect(created.json.description).toBe("ci");

    const list = await call(stack, "GET", "/api/v1/internal/api-keys", { headers: admin() });
    expect(list.json.is_paginated).toBe(false);
    const listed = list.json.items.find((k: { id: string }) => k.id === created.json.id);
    expect(listed.publishable_client_key).toEqual({ last_four: created.json.publishable_client_key.slice(-4) });
    expect(listed.secret_server_key).toEqual({ last_four: created.json.secret_server_key.slice(-4) });
    expect(JSON.stringify(list.json)).not.toContain(created.json.secret_server_key);

    // The new key works at once.
    const headers = { "x-stack-project-id": stack.demo.projectId, "x-stack-access-type": "server", "x-stack-secret-server-key": created.json.secret_server_key };
    expect((await call(stack, "GET", "/api/v1/projects/current", { headers })).status).toBe(200);

    const got = await call(stack, "GET", `/api/v1/internal/api-keys/${created.json.id}`, { headers: admin() });
    expect(got.json.secret_server_key).toEqual({ last_four: created.json.secret_server_key.slice(-4) });
  });

  it("revokes a key set: every gateway replica refuses its keys once the event arrives", async () => {
    const created = await call(stack, "POST", "/api/v1/internal/api-keys", {
      headers: admin(),
      body: { description: "to revoke", expires_at_millis: null, has_publishable_client_key: true, has_secret_server_key: false, has_super_secret_admin_key: false },
    });
    const replica = await stack.startGatewayReplica();
    const headers = { "x-stack-project-id": stack.demo.projectId, "x-stack-access-type": "client", "x-stack-publishable-client-key": created.json.publishable_client_key };
    // Both replicas have the key cached as valid.
    expect((await call(stack, "GET", "/api/v1/projects/current", { headers })).status).toBe(200);
    expect((await call(replica.url, "GET", "/api/v1/projects/current", { headers })).status).toBe(200);

    const revoked = await call(stack, "PATCH", `/api/v1/internal/api-keys/${created.json.id}`, { headers: admin(), body: { revoked: true } });
    expect(revoked.status).toBe(200);
    expect(typeof revoked.json.manually_revoked_at_millis).toBe("number");
    const started = Date.now();
    for (const url of [stack.url, replica.url]) {
      for (;;) {
        const res = await call(url, "GET", "/api/v1/projects/current", { headers });
        if (res.status === 401) {
          expectKnownError(res, 401, "INVALID_PUBLISHABLE_CLIENT_KEY");
          break;
        }
        if (Date.now() - started > 1000) throw new Error(`replica ${url} still accepts a revoked key after 1 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });

  it("refuses expired key sets", async () => {
    const created = await call(stack, "POST", "/api/v1/internal/api-keys", {
      headers: admin(),
      body: { description: "short", expires_at_millis: Date.now() + 400, has_publishable_client_key: true, has_secret_server_key: false, has_super_secret_admin_key: false },
    });
    const headers = { "x-stack-project-id": stack.demo.projectId, "x-stack-access-type": "client", "x-stack-publishable-client-key": created.json.publishable_client_key };
    expect((await call(stack, "GET", "/api/v1/projects/current", { headers })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expectKnownError(await call(stack, "GET", "/api/v1/projects/current", { headers }), 401, "INVALID_PUBLISHABLE_CLIENT_KEY");
  });

  it("answers API_KEY_NOT_FOUND for unknown ids and keeps projects apart", async () => {
    expectKnownError(await call(stack, "GET", "/api/v1/internal/api-keys/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", { headers: admin() }), 404, "API_KEY_NOT_FOUND");
    const internalKeys = await call(stack, "GET", "/api/v1/internal/api-keys", { headers: headersFor(stack.internal, "admin") });
    const demoKeys = await call(stack, "GET", "/api/v1/internal/api-keys", { headers: admin() });
    const internalIds = new Set(internalKeys.json.items.map((k: { id: string }) => k.id));
    expect(demoKeys.json.items.some((k: { id: string }) => internalIds.has(k.id))).toBe(false);
    const foreign = internalKeys.json.items[0].id as string;
    expectKnownError(await call(stack, "GET", `/api/v1/internal/api-keys/${foreign}`, { headers: admin() }), 404, "API_KEY_NOT_FOUND");
  });
});
