import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import type { RefreshSessionResult } from "@vestibule/proto/auth/v1/session_service";
import { CALLBACK, failure, outcome, startAuthStack, verifyAccessToken, waitFor, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;

beforeAll(async () => {
  stack = await startAuthStack();
  projectId = await stack.newProject();
});
afterAll(async () => {
  await stack?.stop();
});

let n = 0;
async function newUser(pid = projectId) {
  const email = `batch${++n}@example.com`;
  const { result } = await stack.passwords.signUpWithPassword({ projectId: pid, email, password: "correct horse battery", verificationCallbackUrl: CALLBACK, client: { ip: "8.8.8.8" } });
  return { ...result!, email };
}

/** "ok" or the item's error code (known-error code, else `<status> <message>` of a status error, else the Connect code). */
function outcomeOf(r: RefreshSessionResult): string {
  if (r.outcome.case === "ok") return "ok";
  const e = r.outcome.value!;
  if (e.knownError) return e.knownError.code;
  if (e.statusError) return `${e.statusError.httpStatus} ${e.statusError.message}`;
  return `connect ${e.code}`;
}

function ok(r: RefreshSessionResult | undefined) {
  if (r?.outcome.case !== "ok") throw new Error(`expected ok, got ${r ? outcomeOf(r) : "nothing"}`);
  return r.outcome.value;
}

describe("RefreshSessions", () => {
  it("answers each item like RefreshSession, in order; one bad token fails only its item", async () => {
    const a = await newUser();
    const b = await newUser();
    const revoked = await newUser();
    await stack.sessions.revokeSession({ projectId, sessionId: revoked.sessionId });
    const expired = (await stack.sessions.createSession({ projectId, userId: a.userId, expiresInMillis: 1n })).result!;
    const deleted = await newUser();
    await stack.users.deleteUser({ projectId, userId: deleted.userId });
    await stack.identity.relay.flush();
    await waitFor(async () => (await outcome(stack.sessions.refreshSession({ projectId, refreshToken: deleted.refreshToken }))) === "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const other = await stack.newProject();
    const otherUser = await newUser(other);

    const requests = [
      { projectId, refreshToken: a.refreshToken, client: { ip: "8.8.8.8" } },
      { projectId, refreshToken: "x".repeat(45) },
      { projectId, refreshToken: revoked.refreshToken },
      { projectId, refreshToken: b.refreshToken },
      { projectId, refreshToken: "" },
      { projectId, refreshToken: expired.refreshToken },
      { projectId, refreshToken: deleted.refreshToken },
      // Another project's token presented for this project, and the same token for its own project.
      { projectId, refreshToken: otherUser.refreshToken },
      { projectId: other, refreshToken: otherUser.refreshToken },
      // The same valid token twice (no rotation): both succeed.
      { projectId, refreshToken: a.refreshToken },
      // An unknown project fails its own item with the error RefreshSession gives.
      { projectId: "0b5b3c76-2a5e-4d7b-9f59-2d1f0b9e8c11", refreshToken: a.refreshToken },
    ];
    const { results } = await stack.sessions.refreshSessions({ requests });
    expect(results.map(outcomeOf)).toEqual([
      "ok",
      "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED",
      "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED",
      "ok",
      "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED",
      "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED",
      "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED",
      "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED",
      "ok",
      "ok",
      await failure(stack.sessions.refreshSession(requests[10]!)),
    ]);
    expect(results[10]!.outcome.case === "error" && results[10]!.outcome.value.knownError?.code).toBe("PROJECT_NOT_FOUND");
    // Errors carry what a single call's ConnectError carries.
    const notFound = results[1]!.outcome.case === "error" ? results[1]!.outcome.value : undefined;
    expect(notFound).toMatchObject({ code: 16, knownError: { code: "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED" } });
    expect(notFound!.message).toBe(notFound!.knownError!.message);

    for (const [i, user, pid] of [[0, a, projectId], [3, b, projectId], [8, otherUser, other], [9, a, projectId]] as const) {
      const r = ok(results[i]);
      expect(r).toMatchObject({ sessionId: user.sessionId, userId: user.userId, refreshToken: "" });
      const { payload, protectedHeader } = await verifyAccessToken(stack, pid, r.accessToken);
      expect(payload).toMatchObject({ sub: user.userId, refresh_token_id: user.sessionId, project_id: pid, aud: pid, email: user.email });
      expect(Object.keys(protectedHeader)).toEqual(["alg", "kid"]);
    }
  });

  it("mints tokens identical in form to single refreshes (claims, audience, anonymous users)", async () => {
    const u = await newUser();
    const { result: anon } = await stack.passwords.signUpAnonymously({ projectId, client: {} });
    const single = await stack.sessions.refreshSession({ projectId, refreshToken: u.refreshToken });
    const { results } = await stack.sessions.refreshSessions({
      requests: [
        { projectId, refreshToken: u.refreshToken },
        { projectId, refreshToken: anon!.refreshToken },
      ],
    });
    const batched = ok(results[0]).accessToken;
    const { exp: e1, iat: i1, ...singleClaims } = decodeJwt(single.accessToken);
    const { exp: e2, iat: i2, ...batchClaims } = decodeJwt(batched);
    expect(batchClaims).toEqual(singleClaims);
    expect(Object.keys(decodeJwt(batched))).toEqual(Object.keys(decodeJwt(single.accessToken)));
    expect(e2! - i2!).toBe(e1! - i1!);
    const { payload } = await verifyAccessToken(stack, projectId, ok(results[1]).accessToken, { anonymous: true });
    expect(payload).toMatchObject({ is_anonymous: true, aud: `${projectId}:anon` });
  });

  it("writes last_used_at once per session and minute for the whole batch", async () => {
    const u = await newUser();
    const s = (await stack.sessions.createSession({ projectId, userId: u.userId })).result!;
    const lastUsed = async () => (await stack.authDb.query<{ last_used_at: Date | null; last_used_ip: string | null }>(`SELECT last_used_at, last_used_ip FROM sessions WHERE id = $1`, [s.sessionId])).rows[0]!;
    expect((await lastUsed()).last_used_at).toBeNull();
    const { results } = await stack.sessions.refreshSessions({
      requests: [1, 2, 3].map(() => ({ projectId, refreshToken: s.refreshToken, client: { ip: "81.2.69.142" } })),
    });
    expect(results.map(outcomeOf)).toEqual(["ok", "ok", "ok"]);
    const first = await lastUsed();
    expect(first).toMatchObject({ last_used_ip: "81.2.69.142" });
    await stack.sessions.refreshSessions({ requests: [{ projectId, refreshToken: s.refreshToken, client: { ip: "8.8.8.8" } }] });
    expect(await lastUsed()).toEqual(first);
  });

  it("rotation inside a batch: each session rotates once; a token twice in one batch, or a rotated one, revokes its session", async () => {
    const rotating = await stack.newProject({}, { "auth.refreshTokenRotation": true });
    const a = await newUser(rotating);
    const b = await newUser(rotating);
    const c = await newUser(rotating);
    const first = await stack.sessions.refreshSessions({
      requests: [
        { projectId: rotating, refreshToken: a.refreshToken },
        { projectId: rotating, refreshToken: b.refreshToken },
        { projectId: rotating, refreshToken: c.refreshToken },
        // The same token again in the same batch: it exists twice, like two concurrent refreshes.
        { projectId: rotating, refreshToken: c.refreshToken },
      ],
    });
    expect(first.results.map(outcomeOf)).toEqual(["ok", "ok", "ok", "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED"]);
    const a1 = ok(first.results[0]).refreshToken;
    const b1 = ok(first.results[1]).refreshToken;
    expect(a1).toMatch(/^[0-9a-z]{45}$/);
    expect(new Set([a1, b1, a.refreshToken, b.refreshToken]).size).toBe(4);
    expect(ok(first.results[0]).sessionId).toBe(a.sessionId);
    const exists = async (sessionId: string) => (await stack.authDb.query(`SELECT 1 FROM sessions WHERE id = $1`, [sessionId])).rows.length === 1;
    expect(await exists(c.sessionId)).toBe(false);

    // Next batch: A continues with its new token; B's old (rotated) token comes back next to B's current one.
    const second = await stack.sessions.refreshSessions({
      requests: [
        { projectId: rotating, refreshToken: a1 },
        { projectId: rotating, refreshToken: b.refreshToken },
        { projectId: rotating, refreshToken: b1 },
      ],
    });
    expect(outcomeOf(second.results[0]!)).toBe("ok");
    expect(outcomeOf(second.results[1]!)).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    // B's current token, in the batch that revoked B, is refused too.
    expect(outcomeOf(second.results[2]!)).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(await exists(b.sessionId)).toBe(false);
    expect(await failure(stack.sessions.refreshSession({ projectId: rotating, refreshToken: b1 }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    // A's rotated-away token now revokes A.
    const a2 = ok(second.results[0]).refreshToken;
    expect(await failure(stack.sessions.refreshSession({ projectId: rotating, refreshToken: a1 }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(await failure(stack.sessions.refreshSession({ projectId: rotating, refreshToken: a2 }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(await exists(a.sessionId)).toBe(false);
    const { rows } = await stack.authDb.query(`SELECT 1 FROM outbox WHERE subject = 'auth.session.revoked.v1'`);
    expect(rows.length).toBeGreaterThanOrEqual(3);
  });

  it("rotation and plain sessions mixed across projects in one batch", async () => {
    const rotating = await stack.newProject({}, { "auth.refreshTokenRotation": true });
    const r = await newUser(rotating);
    const p = await newUser();
    const { results } = await stack.sessions.refreshSessions({
      requests: [
        { projectId: rotating, refreshToken: r.refreshToken },
        { projectId, refreshToken: p.refreshToken },
      ],
    });
    expect(ok(results[0]).refreshToken).toMatch(/^[0-9a-z]{45}$/);
    expect(ok(results[1]).refreshToken).toBe("");
    await stack.sessions.refreshSession({ projectId: rotating, refreshToken: ok(results[0]).refreshToken });
  });

  it("concurrent batches over the same sessions in different orders neither deadlock nor fail (touch and rotation)", async () => {
    const shuffled = <T>(xs: T[]) => xs.map((x) => [Math.random(), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
    // Plain sessions, never used: every batch wants to write their last use.
    const plain = await Promise.all(Array.from({ length: 8 }, () => newUser()));
    const batches = await Promise.all(
      Array.from({ length: 8 }, () => stack.sessions.refreshSessions({ requests: shuffled(plain).map((u) => ({ projectId, refreshToken: u.refreshToken, client: { ip: "8.8.8.8" } })) })),
    );
    expect(new Set(batches.flatMap((b) => b.results.map(outcomeOf)))).toEqual(new Set(["ok"]));
    const { rows } = await stack.authDb.query(`SELECT 1 FROM sessions WHERE id = ANY($1) AND last_used_at IS NOT NULL`, [plain.map((u) => u.sessionId)]);
    expect(rows).toHaveLength(plain.length);

    // Rotating sessions, each token in several concurrent batches: at most one refresh wins per session, the others
    // are refused (and revoke the session); nothing fails otherwise.
    const rotating = await stack.newProject({}, { "auth.refreshTokenRotation": true });
    const users = await Promise.all(Array.from({ length: 6 }, () => newUser(rotating)));
    const rotated = await Promise.all(
      Array.from({ length: 6 }, () => stack.sessions.refreshSessions({ requests: shuffled(users).map((u) => ({ projectId: rotating, refreshToken: u.refreshToken })) })),
    );
    const outcomes = rotated.flatMap((b) => b.results.map(outcomeOf));
    expect(new Set(outcomes.filter((o) => o !== "ok"))).toEqual(new Set(["REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED"]));
    const wins = rotated.flatMap((b) => b.results.filter((r) => r.outcome.case === "ok").map((r) => ok(r).sessionId));
    expect(new Set(wins).size).toBe(wins.length);
  });

  it("an empty batch answers nothing; more than 1000 requests are refused", async () => {
    expect((await stack.sessions.refreshSessions({ requests: [] })).results).toEqual([]);
    const many = Array.from({ length: 1001 }, () => ({ projectId, refreshToken: "x" }));
    expect(await failure(stack.sessions.refreshSessions({ requests: many }))).toBe("400 At most 1000 refreshes per call.");
  });
});
