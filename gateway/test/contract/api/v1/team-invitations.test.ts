import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { codeOf, signUp, waitForMail } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  // The contract's per-code attempt limit is tested on its own here (19 wrong codes in a row from one IP); the
  // brute-force protection in front of it has its own file (team-invitations-brute-force.test.ts).
  stack = await startStack({ auth: true, teams: true, env: { VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT: "off" } });
});
afterAll(async () => {
  await stack?.stop();
});

const server = () => headersFor(stack.demo, "server");
const callback = "http://localhost:3000/handler/team-invitation";
const address = () => `invitee-${randomBytes(4).toString("hex")}@example.com`;

describe("/api/v1/team-invitations", () => {
  it("sends an invitation e-mail, lists it, and lets the invitee check, inspect and accept the code once", async () => {
    const owner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Welcome Team" } })).json;
    const invitee = await signUp(stack);
    const sent = await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: owner.headers, body: { team_id: team.id, email: invitee.email, callback_url: callback } });
    expect(sent.status).toBe(200);
    expect(sent.json).toEqual({ success: true, id: expect.any(String) });
    const mail = await waitForMail(stack, invitee.email, (m) => m.template === "team_invitation");
    expect(mail.subject).toBe("You have been invited to join Welcome Team");
    expect(mail.template).toBe("team_invitation");
    const code = codeOf(mail);
    expect(mail.text).toContain(`${callback}?code=${code}`);

    const list = await call(stack, "GET", `/api/v1/team-invitations?team_id=${team.id}`, { headers: owner.headers });
    expect(list.json).toEqual({ items: [{ id: sent.json.id, team_id: team.id, expires_at_millis: expect.any(Number), recipient_email: invitee.email }], is_paginated: false });

    expect((await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: headersFor(stack.demo, "client"), body: { code } })).json).toEqual({ is_code_valid: true });
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept/details", { headers: headersFor(stack.demo, "client"), body: { code } }), 401, "USER_AUTHENTICATION_REQUIRED");
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept/details", { headers: invitee.headers, body: { code } })).json).toEqual({ team_id: team.id, team_display_name: "Welcome Team" });
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: headersFor(stack.demo, "client"), body: { code } }), 401, "USER_AUTHENTICATION_REQUIRED");
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: invitee.headers, body: { code } })).json).toEqual({});
    expect((await call(stack, "GET", `/api/v1/teams/${team.id}`, { headers: invitee.headers })).json.display_name).toBe("Welcome Team");
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: invitee.headers, body: { code } }), 409, "VERIFICATION_CODE_ALREADY_USED");
    expect((await call(stack, "GET", `/api/v1/team-invitations?team_id=${team.id}`, { headers: owner.headers })).json.items).toEqual([]);
  });

  it("answers the verification-code errors and the schema rule for codes", async () => {
    const owner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Codes" } })).json;
    const to = address();
    await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: server(), body: { team_id: team.id, email: to, callback_url: callback } });
    const code = codeOf(await waitForMail(stack, to));
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: server(), body: { code: "a".repeat(45) } }), 404, "VERIFICATION_CODE_NOT_FOUND");
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: server(), body: { code: "short" } }), 400, "SCHEMA_ERROR");
    // Codes are case-insensitive and stay usable until accepted.
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: server(), body: { code: code.toUpperCase() } })).status).toBe(200);
    // 19 wrong attempts sharing its last 39 characters, then the code itself is refused.
    const sibling = `zzzzzz${code.slice(6)}`;
    for (let i = 0; i < 19; i++) await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: server(), body: { code: sibling } });
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: server(), body: { code } }), 400, "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
    // A code of another project does not exist here.
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/accept/check-code", { headers: headersFor(stack.internal, "client"), body: { code } }), 404, "VERIFICATION_CODE_NOT_FOUND");
  });

  it("needs $invite_members to invite, $read_members and $invite_members to list, $remove_members to revoke", async () => {
    const owner = await signUp(stack);
    const member = await signUp(stack);
    const outsider = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Guarded" } })).json;
    await call(stack, "POST", `/api/v1/team-memberships/${team.id}/${member.userId}`, { headers: server(), body: {} });
    const body = { team_id: team.id, email: address(), callback_url: callback };

    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: headersFor(stack.demo, "client"), body }), 401, "USER_AUTHENTICATION_REQUIRED");
    expectKnownError(await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: outsider.headers, body }), 404, "TEAM_MEMBERSHIP_NOT_FOUND");
    // team_member contains $invite_members and $read_members: a member may invite and list, not revoke.
    const sent = await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: member.headers, body });
    expect(sent.status).toBe(200);
    expect((await call(stack, "GET", `/api/v1/team-invitations?team_id=${team.id}`, { headers: member.headers })).json.items).toHaveLength(1);
    const revoke = await call(stack, "DELETE", `/api/v1/team-invitations/${sent.json.id}?team_id=${team.id}`, { headers: member.headers });
    expectKnownError(revoke, 401, "TEAM_PERMISSION_REQUIRED");
    expect(revoke.json.details.permission_id).toBe("$remove_members");
    await call(stack, "DELETE", `/api/v1/team-permissions/${team.id}/${member.userId}/team_member`, { headers: server() });
    const noInvite = await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: member.headers, body });
    expectKnownError(noInvite, 401, "TEAM_PERMISSION_REQUIRED");
    expect(noInvite.json.details.permission_id).toBe("$invite_members");
    expectKnownError(await call(stack, "GET", `/api/v1/team-invitations?team_id=${team.id}`, { headers: member.headers }), 401, "TEAM_PERMISSION_REQUIRED");

    expect((await call(stack, "DELETE", `/api/v1/team-invitations/${sent.json.id}?team_id=${team.id}`, { headers: owner.headers })).json).toEqual({ success: true });
    expectKnownError(await call(stack, "DELETE", `/api/v1/team-invitations/${sent.json.id}?team_id=${team.id}`, { headers: owner.headers }), 404, "VERIFICATION_CODE_NOT_FOUND");
    expectKnownError(await call(stack, "GET", "/api/v1/team-invitations", { headers: owner.headers }), 400, "SCHEMA_ERROR");
    expectKnownError(
      await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: owner.headers, body: { ...body, callback_url: "https://elsewhere.example.com/join" } }),
      400,
      "REDIRECT_URL_NOT_WHITELISTED",
    );
    expectKnownError(
      await call(stack, "POST", "/api/v1/team-invitations/send-code", { headers: server(), body: { ...body, team_id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f" } }),
      404,
      "TEAM_NOT_FOUND",
    );
  });
});
