/**
 * Brute-force protection of invitation codes (check-code, details, accept), the same kind as the auth service's
 * code checks: unknown codes count against the client IP and the account (the signed-in user, else the code's last 39
 * characters); a blocked account gets HTTP 429 with Retry-After in short growing windows, a client IP has a daily
 * bucket per project; the counters live in Postgres, so every replica sees them. Defaults here except the IP's daily
 * failures, lowered to keep the test short.
 */
import { randomInt } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TeamInvitationService } from "@vestibule/proto/teams_permissions/v1/invitation_service";
import { isStatusError } from "@vestibule/shared/errors";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { startService, type RunningService } from "@vestibule/shared/service";
import { teamsPermissionsService } from "../src/server.ts";
import { client, codeFromMail, failure, rpcError, server, startTeamsStack, type TeamsStack } from "./support.ts";

const IP_FAILURES = 8;
const teamsEnv = { VESTIBULE_TEAMS_PERMISSIONS_RATE_LIMIT_IP_FAILURES: String(IP_FAILURES) };

let stack: TeamsStack;
let replica: RunningService;
/** The two replicas' invitation services: attempts alternate between them. */
let replicas: Client<typeof TeamInvitationService>[];
let projectId: string;

beforeAll(async () => {
  stack = await startTeamsStack({ teamsEnv });
  replica = await startService(teamsPermissionsService, { env: { ...stack.env, ...teamsEnv }, log: createLogger({ service: "test", level: "silent" }) });
  const rpc = (port: number) => ({ baseUrl: `http://127.0.0.1:${port}`, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
  replicas = [stack.invitations, createServiceClient(TeamInvitationService, rpc(replica.port))];
  projectId = await stack.newProject();
});
afterAll(async () => {
  await replica?.stop();
  await stack?.stop();
});

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
/** A well-formed code that was never issued. */
const unknownCode = () => Array.from({ length: 45 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
let ipSeq = 0;
/** A fresh client IP per call site, so that IP counters of one test do not leak into the next. */
const freshIp = () => `198.51.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function invitation(): Promise<{ teamId: string; code: string }> {
  const owner = await stack.newUser(projectId);
  const { team } = await stack.teams.createTeam({ projectId, caller: server, displayName: "Guarded", creatorUserId: owner });
  const to = `guarded-${randomInt(1e9)}@example.com`;
  await stack.invitations.createTeamInvitation({ projectId, caller: server, teamId: team!.id, email: to, callbackUrl: "http://localhost:3000/handler/team-invitation" });
  return { teamId: team!.id, code: codeFromMail(await stack.waitForMail(to)) };
}

async function expect429(p: Promise<unknown>, seconds: number): Promise<void> {
  const e = await rpcError(p);
  expect(isStatusError(e)).toBe(true);
  expect(e).toMatchObject({ httpStatus: 429, retryAfterSeconds: seconds, message: `Too many attempts. Please wait ${seconds} seconds and try again.` });
}

describe("invitation codes: brute-force protection", () => {
  it("a signed-in user is blocked after 5 unknown codes, from any IP and on every replica; the window grows", async () => {
    const { teamId, code } = await invitation();
    const guesser = await stack.newUser(projectId);
    for (let i = 0; i < 5; i++) {
      const svc = replicas[i % 2]!;
      const req = { projectId, caller: client(guesser), code: unknownCode(), clientIp: freshIp() };
      expect(await failure(i % 2 === 0 ? svc.acceptTeamInvitation(req) : svc.getTeamInvitationDetails(req))).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    // Blocked everywhere, even with the right code, before the code is looked at.
    await expect429(replicas[1]!.acceptTeamInvitation({ projectId, caller: client(guesser), code, clientIp: freshIp() }), 1);
    await expect429(replicas[0]!.getTeamInvitationDetails({ projectId, caller: client(guesser), code, clientIp: freshIp() }), 1);
    // Somebody else, from another IP, is not affected.
    const other = await stack.newUser(projectId);
    expect(await replicas[1]!.getTeamInvitationDetails({ projectId, caller: client(other), code, clientIp: freshIp() })).toMatchObject({ teamId });

    await sleep(1100);
    expect(await failure(replicas[0]!.acceptTeamInvitation({ projectId, caller: client(guesser), code: unknownCode(), clientIp: freshIp() }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    await expect429(replicas[1]!.acceptTeamInvitation({ projectId, caller: client(guesser), code, clientIp: freshIp() }), 2);
    await sleep(2100);
    expect(await replicas[0]!.acceptTeamInvitation({ projectId, caller: client(guesser), code, clientIp: freshIp() })).toMatchObject({ teamId, joined: true });
  });

  it("one client IP is blocked once its daily bucket of unknown codes is empty across accounts; other IPs are not", async () => {
    const { teamId, code } = await invitation();
    const ip = freshIp();
    for (let i = 0; i < IP_FAILURES; i++) {
      // A new code (so a new tail) and a new user each time: only the IP is shared.
      const svc = replicas[i % 2]!;
      const caller = i % 3 === 0 ? undefined : client(await stack.newUser(projectId));
      const res = caller
        ? svc.getTeamInvitationDetails({ projectId, caller, code: unknownCode(), clientIp: ip })
        : svc.checkTeamInvitationCode({ projectId, code: unknownCode(), clientIp: ip });
      expect(await failure(res)).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    // The IP's bucket (8 a day here) is empty until one failure has refilled: 86400 s / 8, less the seconds since.
    const refill = 86_400 / IP_FAILURES;
    const ipBlocked = async (p: Promise<unknown>) => {
      const e = await rpcError(p);
      expect(isStatusError(e) && e.httpStatus === 429).toBe(true);
      const wait = (e as { retryAfterSeconds: number }).retryAfterSeconds;
      expect(wait).toBeGreaterThan(refill - 60);
      expect(wait).toBeLessThanOrEqual(refill);
      expect(e.message).toBe(`Too many attempts. Please wait ${wait} seconds and try again.`);
    };
    await ipBlocked(replicas[0]!.checkTeamInvitationCode({ projectId, code, clientIp: ip }));
    const joiner = await stack.newUser(projectId);
    await ipBlocked(replicas[1]!.acceptTeamInvitation({ projectId, caller: client(joiner), code, clientIp: ip }));
    await replicas[0]!.checkTeamInvitationCode({ projectId, code, clientIp: freshIp() });
    expect(await replicas[1]!.acceptTeamInvitation({ projectId, caller: client(joiner), code, clientIp: freshIp() })).toMatchObject({ teamId, joined: true });
  });

  it("check-code without a user: guessing one code's last 39 characters from many IPs is blocked after 5", async () => {
    const { code } = await invitation();
    const tail = code.slice(6);
    for (let i = 0; i < 5; i++) {
      const sibling = `${unknownCode().slice(0, 6)}${tail}`;
      expect(await failure(replicas[i % 2]!.checkTeamInvitationCode({ projectId, code: sibling, clientIp: freshIp() }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    await expect429(replicas[0]!.checkTeamInvitationCode({ projectId, code, clientIp: freshIp() }), 1);
    // A signed-in user is counted as themselves, not by the code: details still answer for them.
    const member = await stack.newUser(projectId);
    expect(await replicas[1]!.getTeamInvitationDetails({ projectId, caller: client(member), code, clientIp: freshIp() })).toMatchObject({ teamDisplayName: "Guarded" });
    // Counters are stored hashed: neither the IPs nor the codes appear in the table.
    const { rows } = await stack.teamsDb.query<{ key: string }>(`SELECT key FROM attempt_counters`);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.key).toMatch(/^[0-9a-f]{64}$/);
  });
});
