import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BODY_LIMIT } from "../../../../src/config.ts";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe("request handling common to every route", () => {
  it("answers malformed JSON on every POST/PATCH route with BODY_PARSING_ERROR, never a 500", async () => {
    const routes = [
      ["POST", "/api/v1/internal/api-keys"],
      ["PATCH", "/api/v1/internal/projects/current"],
      ["POST", "/api/v1/internal/projects"],
      ["PATCH", "/api/v1/internal/config/override"],
    ] as const;
    for (const [method, path] of routes) {
      const res = await call(stack, method, path, { headers: headersFor(stack.demo, "admin"), rawBody: '{"description": ' });
      expectKnownError(res, 400, "BODY_PARSING_ERROR");
      expect(res.json.error).toBe("Invalid JSON in request body");
      expect(res.json.details).toBeUndefined();
    }
    const unknownType = await call(stack, "POST", "/api/v1/internal/api-keys", { headers: headersFor(stack.demo, "admin"), rawBody: "<x/>", contentType: "application/xml" });
    expectKnownError(unknownType, 400, "BODY_PARSING_ERROR");
    expect(unknownType.json.error).toBe("Unknown content type in request body: application/xml");
  });

  it("reports every schema problem in the contract's SCHEMA_ERROR format, unknown keys included", async () => {
    const res = await call(stack, "POST", "/api/v1/internal/api-keys", {
      headers: headersFor(stack.demo, "admin"),
      body: { description: "x", has_publishable_client_key: true, has_secret_server_key: false, extra: 1, other: 2 },
    });
    expectKnownError(res, 400, "SCHEMA_ERROR");
    expect(res.json.error).toBe(res.json.details.message);
    const lines = (res.json.error as string).split("\n");
    expect(lines[0]).toBe("Request validation failed on POST /api/v1/internal/api-keys:");
    expect(lines).toContain("  - body contains unknown properties: extra, other");
    expect(lines.some((l) => l.includes("body.expires_at_millis"))).toBe(true);
    expect(lines.some((l) => l.includes("body.has_super_secret_admin_key"))).toBe(true);
  });

  it("checks the access type before the body", async () => {
    const res = await call(stack, "POST", "/api/v1/internal/api-keys", { headers: headersFor(stack.demo, "client"), body: { nonsense: true } });
    expectKnownError(res, 401, "INSUFFICIENT_ACCESS_TYPE");
    expect(res.json.details).toEqual({ actual_access_type: "client", allowed_access_types: ["admin"] });
    expect(res.json.error).toBe("The x-stack-access-type header must be 'admin', but was 'client'.");
  });

  it("serves the root text, rejecting query parameters", async () => {
    const none = await call(stack, "GET", "/api/v1");
    expect(none.status).toBe(200);
    expect(none.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(none.text).toMatch(/\n\nAuthentication: None$/);
    const client = await call(stack, "GET", "/api/v1/", { headers: headersFor(stack.demo, "client") });
    expect(client.text).toContain(`Authentication: Client\n  Project: ${stack.demo.projectId}\n  User: None`);
    const query = await call(stack, "GET", "/api/v1?foo=bar");
    expectKnownError(query, 400, "SCHEMA_ERROR");
    expect(query.json.error).toContain("query contains unknown properties: foo");
  });

  it("answers unknown paths with a plain-text 404 and unsupported methods with 405", async () => {
    const missing = await call(stack, "GET", "/api/v1/no-such-thing");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(missing.headers.get("x-stack-known-error")).toBeNull();
    const wrongMethod = await call(stack, "PUT", "/api/v1/projects/current");
    expect(wrongMethod.status).toBe(405);
  });

  it("answers CORS preflights for any /api path and puts CORS and request-id headers on responses", async () => {
    const pre = await fetch(`${stack.url}/api/v1/whatever`, { method: "OPTIONS" });
    expect(pre.status).toBe(200);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    const allowed = pre.headers.get("access-control-allow-headers")!;
    for (const h of ["x-stack-project-id", "x-hexclave-project-id", "x-stack-access-token", "x-hexclave-publishable-client-key", "content-type"]) {
      expect(allowed).toContain(h);
    }
    expect(pre.headers.get("access-control-expose-headers")).toContain("x-stack-known-error");
    const res = await call(stack, "GET", "/api/v1/projects/current", { headers: headersFor(stack.demo, "client") });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    // The contract (headers-and-auth.md §8): normal answers carry the preflight's CORS headers too.
    expect(res.headers.get("access-control-allow-headers")).toBe(allowed);
    expect(res.headers.get("access-control-allow-methods")).toBe("GET, POST, PUT, PATCH, DELETE, OPTIONS");
    expect(res.headers.get("access-control-max-age")).toBe("86400");
    expect(res.headers.get("access-control-expose-headers")).toContain("x-stack-known-error");
    expect(res.headers.get("x-stack-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("cache-control")).toBe("no-store, max-age=0");
  });

  it("accepts the largest legal body (two 1,000,000-character image URLs) and refuses anything much larger", async () => {
    const big = `data:image/png;base64,${"A".repeat(1_000_000 - 22)}`;
    const ok = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: headersFor(stack.demo, "admin"),
      body: { logo_url: big, full_logo_url: big, description: "big logos" },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.logo_url).toHaveLength(1_000_000);
    const tooBig = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: headersFor(stack.demo, "admin"),
      rawBody: JSON.stringify({ description: "x".repeat(DEFAULT_BODY_LIMIT) }),
    });
    expect(tooBig.status).toBe(413);
  });

  it("publishes an OpenAPI document generated from the route schemas", async () => {
    const res = await call(stack, "GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.json.openapi).toMatch(/^3\./);
    expect(Object.keys(res.json.paths)).toEqual(expect.arrayContaining(["/api/v1/projects/current", "/api/v1/internal/api-keys", "/api/v1/internal/api-keys/{api_key_id}"]));
    const create = res.json.paths["/api/v1/internal/api-keys"].post;
    expect(create.requestBody.content["application/json"].schema.properties.expires_at_millis).toBeDefined();
    expect(Object.keys(res.json.paths).some((p) => p.startsWith("/api/latest"))).toBe(false);
  });
});
