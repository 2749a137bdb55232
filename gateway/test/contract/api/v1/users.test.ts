import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");
const tag = randomBytes(3).toString("hex");

describe("/api/v1/users", () => {
  it("creates users (201, server shape) and pages through them with cursors", async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call(stack, "POST", "/api/v1/users", {
        headers: server(),
        body: { primary_email: `list-${tag}-${i}@example.com`, display_name: `Lister ${tag} ${i}`, server_metadata: { i }, primary_email_auth_enabled: true },
      });
      expect(res.status).toBe(201);
      expect(res.json).toMatchObject({ primary_email: `list-${tag}-${i}@example.com`, server_metadata: { i }, is_anonymous: false, has_password: false, auth_with_email: false });
      expect(Object.keys(res.json)).toEqual(expect.arrayContaining(["last_active_at_millis", "primary_email_auth_enabled", "selected_team", "oauth_providers", "risk_scores"]));
      created.push(res.json.id);
    }
    const page1 = await call(stack, "GET", `/api/v1/users?limit=2&query=${tag}`, { headers: server() });
    expect(page1.json.is_paginated).toBe(true);
    expect(page1.json.items.map((u: { id: string }) => u.id)).toEqual(created.slice(0, 2));
    const cursor = page1.json.pagination.next_cursor;
    expect(cursor).toBe(created[2]);
    const page2 = await call(stack, "GET", `/api/v1/users?limit=2&query=${tag}&cursor=${cursor}`, { headers: server() });
    expect(page2.json.items.map((u: { id: string }) => u.id)).toEqual(created.slice(2, 4));
    const desc = await call(stack, "GET", `/api/v1/users?limit=10&query=${tag}&desc=true`, { headers: server() });
    expect(desc.json.items.map((u: { id: string }) => u.id)).toEqual([...created].reverse());
    expect(desc.json.pagination.next_cursor).toBeNull();
    const byEmail = await call(stack, "GET", `/api/v1/users?query=${encodeURIComponent(`LIST-${tag}-3@`)}`, { headers: server() });
    expect(byEmail.json.items.map((u: { id: string }) => u.id)).toEqual([created[3]]);
  });

  it("hides anonymous users unless asked, and validates query parameters", async () => {
    const anon = await call(stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: headersFor(stack.demo, "client") });
    const id = anon.json.user_id as string;
    const without = await call(stack, "GET", `/api/v1/users?query=${id}`, { headers: server() });
    expect(without.json.items).toEqual([]);
    const withAnon = await call(stack, "GET", `/api/v1/users?query=${id}&include_anonymous=true`, { headers: server() });
    expect(withAnon.json.items.map((u: { id: string }) => u.id)).toEqual([id]);
    expectKnownError(await call(stack, "GET", "/api/v1/users?limit=0", { headers: server() }), 400, "SCHEMA_ERROR");
    // A cap on the page size (issue 18): 1000 is the largest page, above it the contract's schema error.
    expect((await call(stack, "GET", "/api/v1/users?limit=1000", { headers: server() })).status).toBe(200);
    const overCap = await call(stack, "GET", "/api/v1/users?limit=1001", { headers: server() });
    expectKnownError(overCap, 400, "SCHEMA_ERROR");
    expect(overCap.json.error).toContain("query.limit must be less than or equal to 1000");
    expectKnownError(await call(stack, "GET", "/api/v1/users?cursor=nope", { headers: server() }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/users?color=red", { headers: server() }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/users", { headers: headersFor(stack.demo, "client") }), 401, "INSUFFICIENT_ACCESS_TYPE");
  });

  it("keeps the three metadata levels apart and answers the contract's user errors", async () => {
    const email = `meta-${tag}@example.com`;
    const su = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: headersFor(stack.demo, "client"),
      body: { email, password: "metadata password", verification_callback_url: "http://localhost:3000/handler/email-verification" },
    });
    const me = { ...headersFor(stack.demo, "client"), "x-stack-access-token": su.json.access_token };
    const patched = await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { client_metadata: { a: 1 }, display_name: "" } });
    expect(patched.json).toMatchObject({ client_metadata: { a: 1 }, display_name: null });
    expect(patched.json.server_metadata).toBeUndefined();
    const clientWritesServer = await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { server_metadata: { admin: true } } });
    expectKnownError(clientWritesServer, 400, "SCHEMA_ERROR");
    expect(clientWritesServer.json.error).toContain("body contains unknown properties: server_metadata");
    const serverWrites = await call(stack, "PATCH", `/api/v1/users/${su.json.user_id}`, { headers: server(), body: { client_read_only_metadata: { plan: "pro" }, server_metadata: { note: "vip" } } });
    expect(serverWrites.json).toMatchObject({ client_metadata: { a: 1 }, client_read_only_metadata: { plan: "pro" }, server_metadata: { note: "vip" } });
    const clientView = await call(stack, "GET", "/api/v1/users/me", { headers: me });
    expect(clientView.json.client_read_only_metadata).toEqual({ plan: "pro" });
    expect(clientView.json.server_metadata).toBeUndefined();
    const tooLong = await call(stack, "PATCH", "/api/v1/users/me", { headers: me, body: { display_name: "x".repeat(257) } });
    expectKnownError(tooLong, 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/users/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", { headers: server() }), 404, "USER_NOT_FOUND");
    expectKnownError(await call(stack, "GET", "/api/v1/users/me", { headers: headersFor(stack.demo, "client") }), 400, "CANNOT_GET_OWN_USER_WITHOUT_USER");
    expectKnownError(
      await call(stack, "POST", "/api/v1/auth/sessions", { headers: server(), body: { user_id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" } }),
      400,
      "USER_ID_DOES_NOT_EXIST",
    );
    // Setting a password from the server signs the user out everywhere.
    await call(stack, "PATCH", `/api/v1/users/${su.json.user_id}`, { headers: server(), body: { password: "set by the server" } });
    const refresh = await call(stack, "POST", "/api/v1/auth/sessions/current/refresh", { headers: { ...headersFor(stack.demo, "client"), "x-stack-refresh-token": su.json.refresh_token } });
    expectKnownError(refresh, 401, "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  });

  it("imports a bcrypt hash: the user signs in with the original password", async () => {
    // bcrypt (cost 10) of "imported password", made with @node-rs/bcrypt.
    const hash = "$2b$10$uZJ/SqEKEgAZZIuKFMmIy.XxqibxKBYo/MlpiGs9KtWVua8/nQLX2";
    const email = `bcrypt-${tag}@example.com`;
    const res = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { primary_email: email, primary_email_auth_enabled: true, password_hash: hash } });
    expect(res.status).toBe(201);
    expect(res.json.has_password).toBe(true);
    const client = headersFor(stack.demo, "client");
    expectKnownError(await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client, body: { email, password: "not it at all" } }), 400, "EMAIL_PASSWORD_MISMATCH");
    expect((await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client, body: { email, password: "imported password" } })).status).toBe(200);
    // Re-hashed to argon2id on that sign-in: it keeps working.
    expect((await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: client, body: { email, password: "imported password" } })).status).toBe(200);
    const bad = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { primary_email: `badhash-${tag}@example.com`, password_hash: "md5:abc" } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });
});

describe("/api/v1/users filters of the dashboard's users table (issue 21, Vestibule extensions)", () => {
  it("filters by verified e-mail, two-factor, sign-in method, sign-up dates and restriction; rejects bad values with 400", async () => {
    const ft = `filter-${tag}`;
    const make = async (body: Record<string, unknown>) => {
      const res = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { display_name: `${ft} ${Object.keys(body).join(" ")}`, ...body } });
      expect(res.status).toBe(201);
      return res.json.id as string;
    };
    const verified = await make({ primary_email: `${ft}-v@example.com`, primary_email_verified: true, password: "correct-horse-battery-7" });
    const mfa = await make({ primary_email: `${ft}-m@example.com`, totp_secret_base64: Buffer.from("12345678901234567890").toString("base64") });
    const restricted = await make({ restricted_by_admin: true, otp_auth_enabled: false });
    const ids = async (q: string) => {
      const res = await call(stack, "GET", `/api/v1/users?query=${ft}&include_restricted=true&${q}`, { headers: server() });
      expect(res.status).toBe(200);
      return res.json.items.map((u: { id: string }) => u.id);
    };
    expect(await ids("email_verified=true")).toEqual([verified]);
    expect(await ids("email_verified=false")).toEqual([mfa, restricted]);
    expect(await ids("has_mfa=true")).toEqual([mfa]);
    expect(await ids("auth_method=password")).toEqual([verified]);
    expect(await ids("only_restricted=true")).toEqual([restricted]);
    const at = (await call(stack, "GET", `/api/v1/users/${mfa}`, { headers: server() })).json.signed_up_at_millis as number;
    expect(await ids(`signed_up_after_millis=${at}`)).toEqual([mfa, restricted]);
    expect(await ids(`signed_up_before_millis=${at}`)).toEqual([verified]);
    for (const bad of ["email_verified=yes", "has_mfa=1", "auth_method=magic", "signed_up_after_millis=-1", "signed_up_before_millis=abc", "signed_up_after_millis=1e20", "only_restricted=maybe"]) {
      expectKnownError(await call(stack, "GET", `/api/v1/users?${bad}`, { headers: server() }), 400, "SCHEMA_ERROR");
    }
  });
});

describe("text PostgreSQL cannot store (issue 12)", () => {
  it("answers NUL in any string parameter with a SCHEMA_ERROR naming it, never a 500, and stores nothing", async () => {
    const search = await call(stack, "GET", "/api/v1/users?query=%00", { headers: server() });
    expectKnownError(search, 400, "SCHEMA_ERROR");
    expect(search.json.error).toContain("query.query must not contain NUL characters");

    const email = `nul-${tag}@example.com`;
    const create = await call(stack, "POST", "/api/v1/users", {
      headers: server(),
      body: { primary_email: email, display_name: "a\u0000b", server_metadata: { nested: ["ok", "x\u0000"], ["k\u0000"]: 1 } },
    });
    expectKnownError(create, 400, "SCHEMA_ERROR");
    expect(create.json.error).toContain("body.display_name must not contain NUL characters");
    expect(create.json.error).toContain("body.server_metadata.nested[1] must not contain NUL characters");
    expect(create.json.error).toContain("body.server_metadata.k\\u0000 must not contain NUL characters");
    const none = await call(stack, "GET", `/api/v1/users?query=${encodeURIComponent(email)}`, { headers: server() });
    expect(none.json.items).toEqual([]);

    const param = await call(stack, "GET", "/api/v1/users/%00", { headers: server() });
    expectKnownError(param, 400, "SCHEMA_ERROR");
    const signIn = await call(stack, "POST", "/api/v1/auth/password/sign-in", { headers: headersFor(stack.demo, "client"), body: { email: "a@b.co", password: "pass\u0000word" } });
    expectKnownError(signIn, 400, "SCHEMA_ERROR");
  });
});
