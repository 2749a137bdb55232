/**
 * Invitation codes guessed in parallel: each guess is counted before any is looked up (@vestibule/shared/rate-limit
 * reservations), so guesses sent at once are looked up no more often than one after another (5 per account, here the
 * code's last 39 characters) and the rest get the 429. Blocks of 60 s, so that a guess that waited for the ones in
 * flight sees their block however slow the machine is.
 */
import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromConnectError } from "@vestibule/shared/errors";
import { codeFromMail, server, startTeamsStack, type TeamsStack } from "./support.ts";

let stack: TeamsStack;
let projectId: string;

beforeAll(async () => {
  stack = await startTeamsStack({ teamsEnv: { VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT_BASE_SECONDS: "60" } });
  projectId = await stack.newProject();
});
afterAll(async () => {
  await stack?.stop();
});

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const GUESSES = 60;
const ACCOUNT_FAILURES = 5;

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    const e = fromConnectError(err);
    if (!e) throw err;
    if ("code" in e) return e.code;
    expect(e).toMatchObject({ httpStatus: 429, retryAfterSeconds: expect.any(Number) });
    return "429";
  }
}

describe("invitation codes guessed in parallel", () => {
  it(`${GUESSES} wrong codes sharing a real code's last 39 characters at once: only ${ACCOUNT_FAILURES} are looked up`, async () => {
    const owner = await stack.newUser(projectId);
    const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Guarded", creatorUserId: owner });
    const to = `parallel-${randomInt(1e9)}@example.com`;
    await stack.invitations.createTeamInvitation({ projectId, caller: server, teamId: team!.id, email: to, callbackUrl: "http://localhost:3000/handler/team-invitation" });
    const code = codeFromMail(await stack.waitForMail(to));
    const guesses = new Set<string>();
    while (guesses.size < GUESSES) {
      const head = Array.from({ length: 6 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
      if (head !== code.slice(0, 6)) guesses.add(head + code.slice(6));
    }
    let ip = 0;
    const outcomes = await Promise.all(
      [...guesses].map((g) => outcome(stack.invitations.checkTeamInvitationCode({ projectId, code: g, clientIp: `198.18.9.${++ip}` }))),
    );
    // Every look-up counts one attempt on the invitation (team_invitations.attempts): what was checked, from the row.
    const { rows } = await stack.teamsDb.query<{ attempts: number }>(`SELECT attempts FROM team_invitations WHERE team_id = $1`, [team!.id]);
    expect(rows).toEqual([{ attempts: ACCOUNT_FAILURES }]);
    const tally = outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o]: (t[o] ?? 0) + 1 }), {});
    expect(tally).toEqual({ VERIFICATION_CODE_NOT_FOUND: ACCOUNT_FAILURES, 429: GUESSES - ACCOUNT_FAILURES });
  });
});
