/**
 * Brute-force protection of the invitation-code endpoints over HTTP, with the default settings (on): unknown codes
 * from one signed-in user end in 429 with Retry-After, like the auth service's code endpoints; other users are not
 * affected. (The rules per IP, per code and across replicas are tested in the teams-permissions service's
 * invitation-rate-limit.int.test.ts.)
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";
import { codeOf, signUp, waitForMail } from "../../../teams-support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, teams: true });
});
afterAll(async () => {
  await stack?.stop();
});

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const unknownCode = () => Array.from(randomBytes(45), (b) => ALPHABET[b % ALPHABET.length]).join("");

describe("/api/v1/team-invitations/accept* brute-force protection", () => {
  it("answers 429 with Retry-After after 5 unknown codes of one user, even for the right code, and lets it through later", async () => {
    const owner = await signUp(stack);
    const team = (await call(stack, "POST", "/api/v1/teams", { headers: owner.headers, body: { display_name: "Guarded" } })).json;
    const invitee = await signUp(stack);
    await call(stack, "POST", "/api/v1/team-invitations/send-code", {
      headers: owner.headers,
      body: { team_id: team.id, email: invitee.email, callback_url: "http://localhost:3000/handler/team-invitation" },
    });
    const code = codeOf(await waitForMail(stack, invitee.email, (m) => m.template === "team_invitation"));

    const guesser = await signUp(stack);
    for (let i = 0; i < 5; i++) {
      const path = i % 2 === 0 ? "/api/v1/team-invitations/accept" : "/api/v1/team-invitations/accept/details";
      expectKnownError(await call(stack, "POST", path, { headers: guesser.headers, body: { code: unknownCode() } }), 404, "VERIFICATION_CODE_NOT_FOUND");
    }
    const limited = await call(stack, "POST", "/api/v1/team-invitations/accept/details", { headers: guesser.headers, body: { code } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(limited.text).toContain("Too many attempts. Please wait 1 seconds and try again.");

    // The invitee (another account) is not affected.
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept/details", { headers: invitee.headers, body: { code } })).json).toEqual({
      team_id: team.id,
      team_display_name: "Guarded",
    });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept/details", { headers: guesser.headers, body: { code } })).status).toBe(200);
    expect((await call(stack, "POST", "/api/v1/team-invitations/accept", { headers: invitee.headers, body: { code } })).status).toBe(200);
  });
});
