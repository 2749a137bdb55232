/**
 * Shapes of the current published SDK on endpoints that exist in both generations, and its small new endpoints
 * (issue 13, latest-sdk.md B and C): teams paging, invitations by recipient and accepted by id, CLI anonymous
 * sessions and modes, bot-challenge fields, project fields, permission-definition paging, feature/version checks,
 * component versions and AI-chat threads.
 */
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { codeOf, signUp, waitForMail } from "../../../teams-support.ts";
import { checkVersion, COMPONENT_VERSIONS } from "../../../../src/routes/v1/platform-info.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true, env: { VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT: "off" } });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const server = () => headersFor(stack.demo, "server");
const admin = () => headersFor(stack.demo, "admin");
const callback = "http://localhost:3000/handler/team-invitation";

async function configOverride(override: Record<string, unknown>): Promise<void> {
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin(), body: { config_override_string: JSON.stringify(override) } });
  expect(res.status).toBe(200);
}

/** Signs up a user and verifies its e-mail through the server API (invitations go to verified addresses). */
async function verifiedUser() {
  const user = await signUp(stack);
  await call(stack, "PATCH", `/api/v1/users/${user.userId}`, { headers: server(), body: { primary_email_verified: true } });
  return user;
}

describe("teams list paging (issue 13)", () => {
  it("pages a project's teams by creation order with cursor, limit, query and desc; unpaged listing unchanged", async () => {
    const tag = randomBytes(3).toString("hex");
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await call(stack, "POST", "/api/v1/teams", { headers: server(), body: { display_name: `Paged ${tag} ${i}` } })).json.id);
    }
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { json: { items: { id: string }[]; is_paginated: boolean; pagination: { next_cursor: string | null } } } = await call(
        stack,
        "GET",
        `/api/v1/teams?query=${tag}&limit=2&order_by=created_at${cursor ? `&cursor=${cursor}` : ""}`,
        { headers: server() },
      );
      expect(res.json.is_paginated).toBe(true);
      pages.push(...res.json.items.map((t) => t.id));
      cursor = res.json.pagination.next_cursor;
    } while (cursor);
    expect(pages).toEqual(made);
    const desc = await call(stack, "GET", `/api/v1/teams?query=${tag}&desc=true`, { headers: server() });
    expect(desc.json.items.map((t: { id: string }) => t.id)).toEqual([...made].reverse());
    const byId = await call(stack, "GET", `/api/v1/teams?query=${made[3]}`, { headers: server() });
    expect(byId.json.items.map((t: { id: string }) => t.id)).toEqual([made[3]]);
    // LIKE wildcards in a query are plain characters.
    expect((await call(stack, "GET", `/api/v1/teams?query=${encodeURIComponent(`%_${tag}`)}`, { headers: server() })).json.items).toEqual([]);
    const plain = await call(stack, "GET", "/api/v1/teams", { headers: server() });
    expect(plain.json.is_paginated).toBe(false);
    expect(plain.json).not.toHaveProperty("pagination");
    expectKnownError(await call(stack, "GET", "/api/v1/teams?limit=0", { headers: server() }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/teams?cursor=nope", { headers: server() }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/teams?order_by=display_name", { headers: server() }), 400, "SCHEMA_ERROR");
  });
});

describe("team invitations by recipient (issue 13)", () => {
  it("lists a user's invitations with the team's name and accepts one by id; other addresses and restricted users are refused", async () => {
    const owner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Invited Team" } })).json;
    const invitee = await verifiedUser();
    const other = await verifiedUser();
    await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: server(), body: { team_id: team.id, email: invitee.email, callback_url: callback } });
    await waitForMail(stack, invitee.email, (m) => m.template === "team_invitation");

    const mine = await call(stack, "GET", "/api/v1/team-invitations?user_id=me", { headers: invitee.headers });
    expect(mine.json).toEqual({
      items: [{ id: expect.any(String), team_id: team.id, team_display_name: "Invited Team", expires_at_millis: expect.any(Number), recipient_email: invitee.email }],
      is_paginated: false,
    });
    const invitationId = mine.json.items[0].id as string;
    expect((await call(stack, "GET", `/api/v1/team-invitations?user_id=${invitee.userId}`, { headers: server() })).json.items.map((i: { id: string }) => i.id)).toEqual([invitationId]);
    expect((await call(stack, "GET", "/api/v1/team-invitations?user_id=me", { headers: other.headers })).json.items).toEqual([]);
    expectKnownError(await call(stack, "GET", `/api/v1/team-invitations?user_id=${invitee.userId}`, { headers: other.headers }), 400, "CANNOT_GET_OWN_USER_WITHOUT_USER");

    // Someone else, and a user the administrator restricted, cannot take it.
    expectKnownError(await call(stack, "POST", `/api/v1/team-invitations/${invitationId}/accept?user_id=me`, { headers: other.headers }), 403, "TEAM_INVITATION_EMAIL_MISMATCH");
    await call(stack, "PATCH", `/api/v1/users/${invitee.userId}`, { headers: server(), body: { restricted_by_admin: true } });
    const restricted = await call(stack, "POST", `/api/v1/team-invitations/${invitationId}/accept?user_id=me`, {
      headers: { ...invitee.headers, "x-stack-allow-restricted-user": "true" },
    });
    expectKnownError(restricted, 403, "TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED");
    expect(restricted.json.details).toEqual({ restricted_reason: { type: "restricted_by_administrator" } });
    await call(stack, "PATCH", `/api/v1/users/${invitee.userId}`, { headers: server(), body: { restricted_by_admin: false } });

    const accepted = await call(stack, "POST", `/api/v1/team-invitations/${invitationId}/accept?user_id=me`, { headers: invitee.headers });
    expect([accepted.status, accepted.json]).toEqual([200, {}]);
    expect((await call(stack, "GET", "/api/v1/teams?user_id=me", { headers: invitee.headers })).json.items.map((t: { id: string }) => t.id)).toContain(team.id);
    expectKnownError(await call(stack, "POST", `/api/v1/team-invitations/${invitationId}/accept?user_id=me`, { headers: invitee.headers }), 404, "VERIFICATION_CODE_NOT_FOUND");
    expect((await call(stack, "GET", "/api/v1/team-invitations?user_id=me", { headers: invitee.headers })).json.items).toEqual([]);

    // Bad input.
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/not-a-uuid/accept?user_id=me", { headers: invitee.headers }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "POST", `/api/v1/team-invitations/${invitationId}/accept`, { headers: invitee.headers }), 400, "SCHEMA_ERROR");
    const both = await call(stack, "GET", `/api/v1/team-invitations?user_id=me&team_id=${team.id}`, { headers: invitee.headers });
    expect([both.status, both.text]).toEqual([400, "Give either team_id or user_id, not both."]);
  });

  it("lets a server accept for a user by id", async () => {
    const owner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Server accepts" } })).json;
    const invitee = await verifiedUser();
    await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: server(), body: { team_id: team.id, email: invitee.email, callback_url: callback } });
    const code = codeOf(await waitForMail(stack, invitee.email, (m) => m.template === "team_invitation"));
    expect(code).toHaveLength(45);
    const [invitation] = (await call(stack, "GET", `/api/v1/team-invitations?user_id=${invitee.userId}`, { headers: server() })).json.items;
    const res = await call(stack, "POST", `/api/v1/team-invitations/${invitation.id}/accept?user_id=${invitee.userId}`, { headers: server() });
    expect([res.status, res.json]).toEqual([200, {}]);
    expect((await call(stack, "GET", `/api/v1/users?team_id=${team.id}`, { headers: server() })).json.items.map((u: { id: string }) => u.id)).toContain(invitee.userId);
  });
});

describe("CLI login with an anonymous session (issue 13)", () => {
  it("checks and claims the CLI's anonymous session, and completes with mode complete", async () => {
    const anon = await call(stack, "POST", "/api/v1/auth/anonymous/sign-up", { headers: client() });
    const start = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: { anon_refresh_token: anon.json.refresh_token } });
    expect(start.status).toBe(200);
    const check = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: start.json.login_code, mode: "check" } });
    expect(check.json).toEqual({ cli_session_state: "anonymous" });
    const claim = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: start.json.login_code, mode: "claim-anon-session" } });
    expect(claim.json).toEqual({ access_token: expect.any(String), refresh_token: expect.any(String) });
    const claims = JSON.parse(Buffer.from(claim.json.access_token.split(".")[1], "base64url").toString()) as { sub: string };
    expect(claims.sub).toBe(anon.json.user_id);

    const plain = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: {} });
    expect((await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: plain.json.login_code, mode: "check" } })).json).toEqual({
      cli_session_state: "none",
    });
    const noAnon = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: plain.json.login_code, mode: "claim-anon-session" } });
    expect([noAnon.status, noAnon.text]).toEqual([400, "This CLI login was not started with an anonymous session."]);
    const browser = await signUp(stack);
    const done = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: plain.json.login_code, mode: "complete", refresh_token: browser.refreshToken } });
    expect(done.json).toEqual({ success: true });
  });

  it("refuses a refresh token that is not an anonymous user's, and bad modes", async () => {
    const user = await signUp(stack);
    const notAnon = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: { anon_refresh_token: user.refreshToken } });
    expect([notAnon.status, notAnon.text]).toEqual([400, "anon_refresh_token must be a refresh token of an anonymous user of this project."]);
    const unknown = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: { anon_refresh_token: "x".repeat(45) } });
    expect(unknown.status).toBe(400);
    const start = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: {} });
    expectKnownError(await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: start.json.login_code, mode: "steal" } }), 400, "SCHEMA_ERROR");
    const missing = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: start.json.login_code } });
    expect([missing.status, missing.text]).toEqual([400, "refresh_token is required to complete a CLI login."]);
  });
});

describe("bot challenge fields (issue 13)", () => {
  it("accepts the fields, validates them, and answers BOT_CHALLENGE_REQUIRED where the project requires a challenge", async () => {
    const body = (extra: Record<string, unknown>) => ({ email: `bot-${randomBytes(4).toString("hex")}@example.com`, password: "a fine password 1", ...extra });
    const ok = await call(stack, "POST", "/api/v1/auth/password/sign-up", {
      headers: client(),
      body: body({ verification_callback_url: "http://localhost:3000/handler/email-verification", bot_challenge_token: "t", bot_challenge_phase: "invisible" }),
    });
    expect(ok.status).toBe(200);
    expectKnownError(
      await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: body({ verification_callback_url: "http://localhost:3000/x", bot_challenge_phase: "loud" }) }),
      400,
      "SCHEMA_ERROR",
    );
    const mixed = await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", {
      headers: client(),
      body: { email: "a@example.com", callback_url: "http://localhost:3000/handler/magic-link-callback", bot_challenge_unavailable: "true", bot_challenge_token: "t" },
    });
    expect([mixed.status, mixed.text]).toEqual([400, "bot_challenge_unavailable cannot be combined with a bot challenge token or phase"]);

    await configOverride({ "auth.botChallenge.required": true });
    try {
      expectKnownError(
        await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: body({ verification_callback_url: "http://localhost:3000/x", bot_challenge_token: "t" }) }),
        409,
        "BOT_CHALLENGE_REQUIRED",
      );
      expectKnownError(
        await call(stack, "POST", "/api/v1/auth/otp/send-sign-in-code", {
          headers: client(),
          body: { email: "a@example.com", callback_url: "http://localhost:3000/handler/magic-link-callback", bot_challenge_unavailable: "true" },
        }),
        409,
        "BOT_CHALLENGE_REQUIRED",
      );
    } finally {
      await configOverride({ "auth.botChallenge.required": false });
    }
  });
});

describe("project fields of the current SDK (issue 13)", () => {
  it("accepts logo_full_url as full_logo_url, stores dark-mode logos, onboarding status, development flag and Apple bundle ids", async () => {
    const logo = "data:image/png;base64,iVBORw0KGgo=";
    const res = await call(stack, "PATCH", "/api/v1/internal/projects/current", {
      headers: admin(),
      body: {
        logo_full_url: logo,
        logo_dark_mode_url: logo,
        logo_full_dark_mode_url: logo,
        onboarding_status: "completed",
        is_development_environment: true,
        config: { oauth_providers: [{ id: "apple", type: "standard", client_id: "c", client_secret: "s", apple_bundle_ids: ["com.example.app"] }] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      full_logo_url: logo,
      logo_full_url: logo,
      logo_dark_mode_url: logo,
      logo_full_dark_mode_url: logo,
      onboarding_status: "completed",
      is_development_environment: true,
    });
    expect(res.json.config.oauth_providers).toEqual([expect.objectContaining({ id: "apple", apple_bundle_ids: ["com.example.app"] })]);
    const cleared = await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin(), body: { full_logo_url: null, logo_dark_mode_url: null, config: { oauth_providers: [] } } });
    expect(cleared.json).toMatchObject({ full_logo_url: null, logo_full_url: null, logo_dark_mode_url: null, logo_full_dark_mode_url: logo });
    const conflict = await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin(), body: { full_logo_url: logo, logo_full_url: null } });
    expect([conflict.status, conflict.text]).toEqual([400, "full_logo_url and logo_full_url name the same field; send one of them."]);
    expectKnownError(await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin(), body: { is_development_environment: "yes" } }), 400, "SCHEMA_ERROR");
  });
});

describe("permission definitions paging (issue 13)", () => {
  it("pages team permission definitions by limit and cursor, filtered by query", async () => {
    const tag = `pg_${randomBytes(3).toString("hex")}`;
    for (const n of ["a", "b", "c"]) {
      expect((await call(stack, "POST", "/api/v1/team-permission-definitions", { headers: admin(), body: { id: `${tag}_${n}` } })).status).toBe(201);
    }
    const first = await call(stack, "GET", `/api/v1/team-permission-definitions?limit=2&query=${tag}`, { headers: admin() });
    expect(first.json.items.map((d: { id: string }) => d.id)).toEqual([`${tag}_a`, `${tag}_b`]);
    expect(first.json.pagination.next_cursor).toBe(`${tag}_c`);
    const second = await call(stack, "GET", `/api/v1/team-permission-definitions?limit=2&query=${tag}&cursor=${first.json.pagination.next_cursor}`, { headers: admin() });
    expect(second.json).toEqual({ items: [expect.objectContaining({ id: `${tag}_c` })], is_paginated: true, pagination: { next_cursor: null } });
    expect((await call(stack, "GET", "/api/v1/team-permission-definitions", { headers: admin() })).json.is_paginated).toBe(false);
    expectKnownError(await call(stack, "GET", "/api/v1/team-permission-definitions?limit=0", { headers: admin() }), 400, "SCHEMA_ERROR");
  });
});

describe("small endpoints of the current SDK (issue 13)", () => {
  it("answers check-feature-support with text, as the SDK reads it", async () => {
    const res = await call(stack, "POST", "/api/v1/check-feature-support", { headers: client(), body: { name: "x", feature_name: "Magic widgets" } });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^Magic widgets is not yet supported\./);
    expect((await call(stack, "POST", "/api/v1/check-feature-support", {})).text).toMatch(/^This feature is not yet supported\./);
  });

  it("checks SDK versions against the newest known one", async () => {
    expect((await call(stack, "POST", "/api/v1/check-version", { body: { clientVersion: "2.8.108" } })).json).toEqual({ upToDate: true });
    expect((await call(stack, "POST", "/api/v1/check-version", { body: { clientVersion: "2.8.41" } })).json).toMatchObject({ upToDate: false, severe: false });
    expect((await call(stack, "POST", "/api/v1/check-version", { body: { clientVersion: "1.0.0" } })).json).toMatchObject({ upToDate: false, severe: true });
    expect((await call(stack, "POST", "/api/v1/check-version", { body: { clientVersion: "banana" } })).json).toMatchObject({ upToDate: false, severe: true });
    expect(checkVersion("2.8.109")).toEqual({ upToDate: true });
    expect(checkVersion("2.8.108-rc.1")).toMatchObject({ upToDate: false, severe: false });
    expectKnownError(await call(stack, "POST", "/api/v1/check-version", { body: {} }), 400, "SCHEMA_ERROR");
  });

  it("serves the component versions under /api/latest without headers, equal to the published SDK's table", async () => {
    const res = await call(stack, "GET", "/api/latest/internal/component-versions");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ versions: COMPONENT_VERSIONS });
    const require = createRequire(import.meta.url);
    const published = require(require.resolve("@stackframe/stack-shared").replace(/dist\/.*$/, "dist/interface/page-component-versions.js")) as {
      getLatestPageVersions(): unknown;
    };
    expect(res.json.versions).toEqual(published.getLatestPageVersions());
  });

  it("stores AI-chat messages per project and thread (admin only), in order", async () => {
    const thread = `t-${randomBytes(4).toString("hex")}`;
    expect((await call(stack, "GET", `/api/v1/internal/ai-chat/${thread}`, { headers: admin() })).json).toEqual({ messages: [] });
    expect((await call(stack, "PATCH", `/api/v1/internal/ai-chat/${thread}`, { headers: admin(), body: { message: { role: "user", content: [{ type: "text", text: "hi" }] } } })).json).toEqual({});
    await call(stack, "PATCH", `/api/v1/internal/ai-chat/${thread}`, { headers: admin(), body: { message: "second" } });
    expect((await call(stack, "GET", `/api/v1/internal/ai-chat/${thread}`, { headers: admin() })).json).toEqual({
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }, "second"],
    });
    // Another project's thread of the same id is its own.
    expect((await call(stack, "GET", `/api/v1/internal/ai-chat/${thread}`, { headers: headersFor(stack.internal, "admin") })).json).toEqual({ messages: [] });
    expectKnownError(await call(stack, "GET", `/api/v1/internal/ai-chat/${thread}`, { headers: server() }), 401, "INSUFFICIENT_ACCESS_TYPE");
    expectKnownError(await call(stack, "PATCH", `/api/v1/internal/ai-chat/${thread}`, { headers: admin(), body: {} }), 400, "SCHEMA_ERROR");
    expectKnownError(await call(stack, "GET", "/api/v1/internal/ai-chat/bad%20id", { headers: admin() }), 400, "SCHEMA_ERROR");
    const big = await call(stack, "PATCH", `/api/v1/internal/ai-chat/${thread}`, { headers: admin(), body: { message: "x".repeat(100_001) } });
    expect([big.status, big.text]).toEqual([400, "A message may be at most 100000 bytes of JSON."]);
  });

  it("lists every new route in the OpenAPI document", async () => {
    const doc = (await call(stack, "GET", "/api/v1/openapi.json")).json as { paths: Record<string, Record<string, unknown>> };
    const expected: [string, string][] = [
      ["/api/v1/check-feature-support", "post"],
      ["/api/v1/check-version", "post"],
      ["/api/v1/internal/component-versions", "get"],
      ["/api/v1/internal/ai-chat/{thread_id}", "get"],
      ["/api/v1/internal/ai-chat/{thread_id}", "patch"],
      ["/api/v1/team-invitations/{id}/accept", "post"],
    ];
    for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
  });
});
