import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
let db: pg.Pool;
beforeAll(async () => {
  stack = await startStack({ auth: true });
  db = new pg.Pool({ connectionString: stack.db.url, max: 2 });
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const INVALID = "This link to open the app as a user has expired or was already used. Ask for a new one from the dashboard.";
const admin = () => headersFor(stack.demo, "admin");
const client = () => headersFor(stack.demo, "client");

async function newUser(): Promise<string> {
  const res = await call(stack, "POST", "/api/v1/users", { headers: headersFor(stack.demo, "server"), body: { primary_email: `imp-${randomBytes(5).toString("hex")}@example.com` } });
  expect(res.status).toBe(201);
  return res.json.id;
}

async function ticketFor(userId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call(stack, "POST", "/api/v1/auth/impersonation-tickets", { headers: admin(), body: { user_id: userId, ...body } });
  expect(res.status, res.text).toBe(200);
  return res.json.ticket;
}

const exchange = (ticket: string, headers = client()) => call(stack, "POST", "/api/v1/auth/impersonation-tickets/exchange", { headers, body: { ticket } });

function expectInvalid(res: { status: number; text: string; json: any }): void {
  expect(res.status, res.text).toBe(400);
  expect(res.text).toContain(INVALID);
}

describe("/api/v1/auth/impersonation-tickets", () => {
  it("admins only: client and server access are refused", async () => {
    const userId = await newUser();
    for (const type of ["client", "server"] as const) {
      const res = await call(stack, "POST", "/api/v1/auth/impersonation-tickets", { headers: headersFor(stack.demo, type), body: { user_id: userId } });
      expectKnownError(res, 401, "INSUFFICIENT_ACCESS_TYPE");
    }
    const unknown = await call(stack, "POST", "/api/v1/auth/impersonation-tickets", { headers: admin(), body: { user_id: "6f1c9a7e-0000-4000-8000-000000000000" } });
    expectKnownError(unknown, 400, "USER_ID_DOES_NOT_EXIST");
  });

  it("a ticket lives 60 s, is stored only hashed, and opens one impersonation session of its user, listed for admins", async () => {
    const userId = await newUser();
    const res = await call(stack, "POST", "/api/v1/auth/impersonation-tickets", { headers: admin(), body: { user_id: userId, expires_in_millis: 600_000 } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["expires_at_millis", "ticket"]);
    const { ticket, expires_at_millis } = res.json as { ticket: string; expires_at_millis: number };
    expect(ticket).toMatch(/^[0-9a-z]{45}$/);
    expect(expires_at_millis - Date.now()).toBeGreaterThan(50_000);
    expect(expires_at_millis - Date.now()).toBeLessThanOrEqual(60_000);

    const stored = await db.query(`SELECT row_to_json(t)::text AS row, ticket_hash FROM auth.impersonation_tickets t WHERE user_id = $1`, [userId]);
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].row).not.toContain(ticket);
    expect(stored.rows[0].ticket_hash).toBe(createHash("sha256").update(ticket).digest("hex"));

    const first = await exchange(ticket);
    expect(first.status, first.text).toBe(200);
    expect(Object.keys(first.json).sort()).toEqual(["access_token", "refresh_token", "user_id"]);
    expect(first.json.user_id).toBe(userId);
    const me = await call(stack, "GET", "/api/v1/users/me", { headers: { ...client(), "x-stack-access-token": first.json.access_token } });
    expect(me.status).toBe(200);
    expect(me.json.id).toBe(userId);
    const refreshed = await call(stack, "POST", "/api/v1/auth/sessions/current/refresh", { headers: { ...client(), "x-stack-refresh-token": first.json.refresh_token } });
    expect(refreshed.status).toBe(200);

    expectInvalid(await exchange(ticket));
    expect((await db.query(`SELECT 1 FROM auth.impersonation_tickets WHERE user_id = $1`, [userId])).rows).toHaveLength(0);

    const listed = await call(stack, "GET", `/api/v1/auth/sessions?user_id=${userId}`, { headers: admin() });
    expect(listed.json.items).toHaveLength(1);
    expect(listed.json.items[0].is_impersonation).toBe(true);
    const session = await db.query(`SELECT is_impersonation, expires_at FROM auth.sessions WHERE user_id = $1`, [userId]);
    expect(session.rows[0].is_impersonation).toBe(true);
    const lifetime = (session.rows[0].expires_at as Date).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(500_000);
    expect(lifetime).toBeLessThanOrEqual(600_000);
    // Server access does not see impersonation sessions.
    const serverList = await call(stack, "GET", `/api/v1/auth/sessions?user_id=${userId}`, { headers: headersFor(stack.demo, "server") });
    expect(serverList.json.items).toHaveLength(0);
  });

  it("the session lasts an hour by default", async () => {
    const userId = await newUser();
    expect((await exchange(await ticketFor(userId))).status).toBe(200);
    const session = await db.query(`SELECT expires_at FROM auth.sessions WHERE user_id = $1`, [userId]);
    const lifetime = (session.rows[0].expires_at as Date).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(3_500_000);
    expect(lifetime).toBeLessThanOrEqual(3_600_000);
  });

  it("two concurrent exchanges of one ticket give one session", async () => {
    const userId = await newUser();
    const ticket = await ticketFor(userId);
    const results = await Promise.all([exchange(ticket), exchange(ticket), exchange(ticket)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    expect((await db.query(`SELECT 1 FROM auth.sessions WHERE user_id = $1`, [userId])).rows).toHaveLength(1);
  });

  it("expired, unknown, malformed and other projects' tickets fail with the same plain 400", async () => {
    const userId = await newUser();
    const expired = await ticketFor(userId);
    await db.query(`UPDATE auth.impersonation_tickets SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [userId]);
    expectInvalid(await exchange(expired));
    expectInvalid(await exchange(randomBytes(20).toString("hex")));
    expectInvalid(await exchange(""));
    const elsewhere = await ticketFor(userId);
    expectInvalid(await exchange(elsewhere, headersFor(stack.internal, "client")));
    // It was not used up by the wrong project.
    expect((await exchange(elsewhere)).status).toBe(200);
    expect((await db.query(`SELECT 1 FROM auth.sessions WHERE user_id = $1`, [userId])).rows).toHaveLength(1);
  });
});
