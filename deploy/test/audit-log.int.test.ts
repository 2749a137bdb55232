/**
 * The audit log through the real platform (six service processes + gateway): admin- and server-key writes leave
 * entries with the right actor, resource, action, before/after (secrets removed), request id and IP; client writes
 * leave none; the read API filters and pages, and the export's lines parse.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { callDemo, demoHeaders, type Access, type ApiAnswer } from "./platform-api.ts";

let tp: TestPlatform;
beforeAll(async () => {
  tp = await startTestPlatform();
}, 180_000);
afterAll(async () => {
  await tp?.stop();
});

const call = (method: string, path: string, access: Access, body?: unknown): Promise<ApiAnswer> => callDemo(tp, method, path, access, body);

async function raw(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  return fetch(`${tp.gatewayUrl}/api/v1${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function entries(query = ""): Promise<any[]> {
  const res = await call("GET", `/internal/audit-log?limit=500${query}`, "admin");
  expect(res.status, res.text).toBe(200);
  return res.json.items;
}

describe("audit log", () => {
  let userId = "";
  let serverRequestId = "";
  let createdKeySecret = "";

  it("records a server-key write with actor, resource, after, request id and IP", async () => {
    const res = await raw("POST", "/users", demoHeaders(tp, "server"), { primary_email: "audited@example.com", display_name: "Audited", password: "Sup3r-Secret-Pass!" });
    expect(res.status).toBe(201);
    userId = ((await res.json()) as { id: string }).id;
    serverRequestId = res.headers.get("x-stack-request-id") ?? "";
    expect(serverRequestId).not.toBe("");

    const [e] = await entries(`&resource_type=user&resource_id=${userId}`);
    expect(e).toMatchObject({
      action: "user.create",
      resource_type: "user",
      resource_id: userId,
      before: null,
      request_id: serverRequestId,
      request_line: "POST /api/v1/users",
      actor: { type: "server_key", project_id: tp.projects.demo.project_id },
    });
    expect(e.actor.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(e.actor.ip).toMatch(/127\.0\.0\.1/);
    expect(e.after).toMatchObject({ id: userId, display_name: "Audited", primary_email: "audited@example.com" });
    expect(JSON.stringify(e)).not.toContain("Sup3r-Secret-Pass!");
    expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("records an admin-key update with before and after", async () => {
    const res = await call("PATCH", `/users/${userId}`, "admin", { display_name: "Renamed" });
    expect(res.status, res.text).toBe(200);
    const [e] = await entries(`&resource_id=${userId}&action=user.update`);
    expect(e.actor.type).toBe("admin_key");
    expect(e.before.display_name).toBe("Audited");
    expect(e.after.display_name).toBe("Renamed");
  });

  it("keeps secrets of a created API key out of the entry", async () => {
    const res = await call("POST", "/internal/api-keys", "admin", {
      description: "audited key",
      expires_at_millis: Date.now() + 86_400_000,
      has_publishable_client_key: false,
      has_secret_server_key: true,
      has_super_secret_admin_key: false,
    });
    expect(res.status, res.text).toBe(200);
    createdKeySecret = res.json.secret_server_key;
    expect(createdKeySecret).toMatch(/^ssk_/);
    const [e] = await entries(`&resource_type=api_key&resource_id=${res.json.id}`);
    expect(e.action).toBe("api_key.create");
    expect(e.after.description).toBe("audited key");
    expect(e.after).toHaveProperty("secret_server_key", "[redacted]");
    expect(JSON.stringify(e)).not.toContain(createdKeySecret);
  });

  it("records deletes with the last known state as before", async () => {
    const res = await call("DELETE", `/users/${userId}`, "server");
    expect(res.status, res.text).toBe(200);
    const [e] = await entries(`&resource_id=${userId}&action=user.delete`);
    expect(e).toMatchObject({ actor: { type: "server_key" }, after: null });
    expect(e.before.display_name).toBe("Renamed");
  });

  it("does not record client writes", async () => {
    const before = (await entries()).length;
    const signUp = await call("POST", "/auth/password/sign-up", "client", { email: "client-writer@example.com", password: "Client-Pass-123!" });
    expect(signUp.status, signUp.text).toBe(200);
    const res = await raw("PATCH", "/users/me", { ...demoHeaders(tp, "client"), "x-stack-access-token": signUp.json.access_token }, { display_name: "Client did it" });
    expect(res.status).toBe(200);
    const after = await entries();
    expect(after.length).toBe(before);
    expect(JSON.stringify(after)).not.toContain("Client did it");
  });

  it("filters by actor type and pages with a cursor; the export's lines parse", async () => {
    const all = await entries();
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all.map((e) => e.seq)).toEqual([...all.map((e) => e.seq)].sort((a, b) => b - a));
    const server = await entries("&actor_type=server_key");
    expect(server.length).toBeGreaterThan(0);
    expect(server.every((e) => e.actor.type === "server_key")).toBe(true);

    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const res: ApiAnswer = await call("GET", `/internal/audit-log?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, "admin");
      expect(res.status).toBe(200);
      paged.push(...res.json.items.map((e: { seq: number }) => e.seq));
      cursor = res.json.pagination.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all.map((e) => e.seq));

    const exp = await raw("GET", "/internal/audit-log/export?actor_type=server_key", demoHeaders(tp, "admin"));
    expect(exp.status).toBe(200);
    expect(exp.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    const lines = (await exp.text()).split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(lines.map((e) => e.id)).toEqual(server.map((e) => e.id));

    expect((await call("GET", "/internal/audit-log", "server")).status).toBe(401);
    expect((await call("GET", "/internal/audit-log?cursor=nope", "admin")).status).toBe(400);
    expect((await call("GET", "/internal/audit-log?actor_type=robot", "admin")).status).toBe(400);
  });
});
