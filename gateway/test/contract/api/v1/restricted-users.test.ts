/**
 * Restricted users (issue 13, latest-sdk.md B): anonymous users, unverified users where the project requires verified
 * e-mails, and users an administrator restricted; the current SDK's user fields and list filters; the restriction in
 * access tokens and on requests (RESTRICTED_USER_NOT_ALLOWED).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { signUp } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");
const admin = () => headersFor(stack.demo, "admin");
const email = () => `restricted-${randomBytes(4).toString("hex")}@example.com`;

async function setRequireEmailVerification(on: boolean): Promise<void> {
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", {
    headers: admin(),
    body: { config_override_string: JSON.stringify({ "onboarding.requireEmailVerification": on }) },
  });
  expect(res.status).toBe(200);
}

function claimsOf(accessToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;
}

async function refresh(refreshToken: string): Promise<string> {
  const res = await call(stack, "POST", "/api/v1/auth/sessions/current/refresh", {
    headers: { ...headersFor(stack.demo, "client"), "x-stack-refresh-token": refreshToken },
  });
  expect(res.status).toBe(200);
  return res.json.access_token as string;
}

describe("restricted users (issue 13)", () => {
  it("lets a server restrict a user with a public reason and private details, shows them by access type, and lifts it", async () => {
    const created = await call(stack, "POST", "/api/v1/users", {
      headers: server(),
      body: {
        primary_email: email(),
        primary_email_auth_enabled: true,
        restricted_by_admin: true,
        restricted_by_admin_reason: "Payment overdue",
        restricted_by_admin_private_details: "chargeback #42",
        country_code: "de",
        risk_scores: { sign_up: { bot: 12, free_trial_abuse: 80 } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      is_restricted: true,
      restricted_reason: { type: "restricted_by_administrator" },
      restricted_by_admin: true,
      restricted_by_admin_reason: "Payment overdue",
      restricted_by_admin_private_details: "chargeback #42",
      country_code: "DE",
      risk_scores: { sign_up: { bot: 12, free_trial_abuse: 80 } },
    });
    const id = created.json.id as string;

    // Left out of the listing by default; include_restricted and include_anonymous bring them in.
    const ids = async (query: string) => ((await call(stack, "GET", `/api/v1/users?${query}`, { headers: server() })).json.items as { id: string }[]).map((u) => u.id);
    expect(await ids("limit=1000")).not.toContain(id);
    expect(await ids("include_restricted=true")).toContain(id);
    expect(await ids("include_anonymous=true")).toContain(id);

    // The reason alone, without the restriction, is refused; lifting the restriction clears reason and details.
    const bad = await call(stack, "PATCH", `/api/v1/users/${id}`, { headers: server(), body: { restricted_by_admin: false, restricted_by_admin_reason: "x" } });
    expect([bad.status, bad.text]).toEqual([400, "restricted_by_admin_reason requires restricted_by_admin=true"]);
    const lifted = await call(stack, "PATCH", `/api/v1/users/${id}`, { headers: server(), body: { restricted_by_admin: false } });
    expect(lifted.json).toMatchObject({ is_restricted: false, restricted_reason: null, restricted_by_admin: false, restricted_by_admin_reason: null, restricted_by_admin_private_details: null });
    expect(await ids("limit=1000")).toContain(id);

    // Bad input: known errors or the contract's 400 texts.
    expectKnownError(await call(stack, "PATCH", `/api/v1/users/${id}`, { headers: server(), body: { risk_scores: { sign_up: { bot: 101, free_trial_abuse: 0 } } } }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "PATCH", `/api/v1/users/${id}`, { headers: server(), body: { country_code: "Germany" } }), 400, "SCHEMA_ERROR");
    const withDetails = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { restricted_by_admin_private_details: "y" } });
    expect([withDetails.status, withDetails.text]).toEqual([400, "restricted_by_admin_private_details requires restricted_by_admin=true"]);
  });

  it("refuses a restricted user's token unless the request admits restricted users, and puts the restriction in its claims", async () => {
    const user = await signUp(stack);
    expect(claimsOf(user.accessToken)).toMatchObject({ is_restricted: false, restricted_reason: null });
    await call(stack, "PATCH", `/api/v1/users/${user.userId}`, { headers: server(), body: { restricted_by_admin: true, restricted_by_admin_reason: "Spam" } });

    const denied = await call(stack, "GET", "/api/v1/users/me", { headers: user.headers });
    expectKnownError(denied, 403, "RESTRICTED_USER_NOT_ALLOWED");
    expect(denied.json.details).toEqual({ restricted_reason: { type: "restricted_by_administrator" } });
    for (const allow of ["x-stack-allow-restricted-user", "x-hexclave-allow-restricted-user", "x-stack-allow-anonymous-user", "x-hexclave-allow-anonymous-user"]) {
      const me = await call(stack, "GET", "/api/v1/users/me", { headers: { ...user.headers, [allow]: "true" } });
      expect(me.status, allow).toBe(200);
      expect(me.json).toMatchObject({ id: user.userId, is_restricted: true, restricted_reason: { type: "restricted_by_administrator" }, restricted_by_admin_reason: "Spam" });
      // A client never sees the private details.
      expect(me.json).not.toHaveProperty("restricted_by_admin_private_details");
    }

    const token = await refresh(user.refreshToken);
    expect(claimsOf(token)).toMatchObject({ is_restricted: true, restricted_reason: { type: "restricted_by_administrator" } });
  });

  it("restricts unverified users where the project requires verified e-mails, and anonymous users always", async () => {
    const unverified = await signUp(stack);
    const verified = await call(stack, "POST", "/api/v1/users", { headers: server(), body: { primary_email: email(), primary_email_verified: true } });
    await setRequireEmailVerification(true);
    try {
      const me = await call(stack, "GET", "/api/v1/users/me", { headers: { ...unverified.headers, "x-stack-allow-restricted-user": "true" } });
      expect(me.json).toMatchObject({ is_restricted: true, restricted_reason: { type: "email_not_verified" } });
      expectKnownError(await call(stack, "GET", "/api/v1/users/me", { headers: unverified.headers }), 403, "RESTRICTED_USER_NOT_ALLOWED");
      expect(claimsOf(await refresh(unverified.refreshToken))).toMatchObject({ is_restricted: true, restricted_reason: { type: "email_not_verified" } });

      const listed = async (query: string) => ((await call(stack, "GET", `/api/v1/users?${query}`, { headers: server() })).json.items as { id: string }[]).map((u) => u.id);
      const plain = await listed("limit=1000");
      expect(plain).toContain(verified.json.id);
      expect(plain).not.toContain(unverified.userId);
      expect(await listed("include_restricted=true")).toContain(unverified.userId);

      const anon = await call(stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: headersFor(stack.demo, "client") });
      expect(claimsOf(anon.json.access_token)).toMatchObject({ is_anonymous: true, is_restricted: true, restricted_reason: { type: "anonymous" } });
      const anonMe = await call(stack, "GET", "/api/v1/users/me", {
        headers: { ...headersFor(stack.demo, "client"), "x-stack-access-token": anon.json.access_token, "x-stack-allow-anonymous-user": "true" },
      });
      expect(anonMe.json).toMatchObject({ is_anonymous: true, is_restricted: true, restricted_reason: { type: "anonymous" } });
      expect(await listed("include_restricted=true")).not.toContain(anon.json.user_id);
      const onlyAnonymous = await listed("include_anonymous=true&only_anonymous=true");
      expect(onlyAnonymous).toContain(anon.json.user_id);
      expect(onlyAnonymous).not.toContain(verified.json.id);
      const bad = await call(stack, "GET", "/api/v1/users?only_anonymous=true", { headers: server() });
      expect([bad.status, bad.text]).toEqual([400, "only_anonymous=true requires include_anonymous=true"]);
    } finally {
      await setRequireEmailVerification(false);
    }
    const after = await call(stack, "GET", "/api/v1/users/me", { headers: unverified.headers });
    expect(after.json).toMatchObject({ is_restricted: false, restricted_reason: null });
  });

  it("accepts include_restricted on the JWKS and primary_email from a client's own update", async () => {
    const jwks = await call(stack, "GET", `/api/v1/projects/${stack.demo.projectId}/.well-known/jwks.json?include_restricted=true`);
    expect(jwks.status).toBe(200);
    expect((jwks.json.keys as unknown[]).length).toBeGreaterThan(0);
    expectKnownError(await call(stack, "GET", `/api/v1/projects/${stack.demo.projectId}/.well-known/jwks.json?include_restricted=maybe`), 400, "SCHEMA_ERROR");

    const user = await signUp(stack);
    const address = email();
    const updated = await call(stack, "PATCH", "/api/v1/users/me", { headers: user.headers, body: { primary_email: address } });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ primary_email: address, primary_email_verified: false, is_restricted: false });
    expect(updated.json).not.toHaveProperty("restricted_by_admin_private_details");
    expectKnownError(await call(stack, "PATCH", "/api/v1/users/me", { headers: user.headers, body: { primary_email: "not an e-mail" } }), 400, "SCHEMA_ERROR");
    const serverOnly = await call(stack, "PATCH", "/api/v1/users/me", { headers: user.headers, body: { restricted_by_admin: false } });
    expectKnownError(serverOnly, 400, "SCHEMA_ERROR");
  });

  it("lists users by last activity, pages that order, and filters by team", async () => {
    const a = await signUp(stack);
    const b = await signUp(stack);
    // Activity of a (its refresh counts as use), after b signed up.
    await new Promise((r) => setTimeout(r, 20));
    await refresh(a.refreshToken);
    const order = async (desc: boolean) => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { json: { items: { id: string }[]; pagination: { next_cursor: string | null } } } = await call(
          stack,
          "GET",
          `/api/v1/users?order_by=last_active_at&desc=${desc}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
          { headers: server() },
        );
        out.push(...page.json.items.map((u) => u.id));
        cursor = page.json.pagination.next_cursor;
      } while (cursor);
      return out;
    };
    const asc = await order(false);
    const desc = await order(true);
    expect(desc).toEqual([...asc].reverse());
    expect(new Set(asc).size).toBe(asc.length);
    expect(asc).toContain(a.userId);
    expectKnownError(await call(stack, "GET", "/api/v1/users?order_by=first_name", { headers: server() }), 400, "SCHEMA_ERROR");

    const team = await call(stack, "POST", "/api/v1/teams", { headers: server(), body: { display_name: "Filter team", creator_user_id: b.userId } });
    const members = (await call(stack, "GET", `/api/v1/users?team_id=${team.json.id}`, { headers: server() })).json.items as { id: string }[];
    expect(members.map((u) => u.id)).toEqual([b.userId]);
  });
});
