import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { withTransaction } from "@vestibule/shared/db";
import { SigningKeys } from "../src/signing/signing-keys.ts";
import { claimsStore } from "../src/sessions/store/claims-store.ts";
import { CALLBACK, failure, outcome, rpcError, startAuthStack, verifyAccessToken, waitFor, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;

beforeAll(async () => {
  stack = await startAuthStack();
  projectId = await stack.newProject();
});
afterAll(async () => {
  await stack?.stop();
});

const client = { ip: "8.8.8.8", userAgent: "vitest" };
let n = 0;

async function newUser(pid = projectId) {
  const email = `user${++n}@example.com`;
  const { result } = await stack.passwords.signUpWithPassword({ projectId: pid, email, password: "correct horse battery", verificationCallbackUrl: CALLBACK, client });
  return { ...result!, email };
}

describe("refresh", () => {
  it("gives a new access token for the same session; the refresh token stays (no rotation by default)", async () => {
    const s = await newUser();
    const r = await stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken, client });
    expect(r).toMatchObject({ refreshToken: "", sessionId: s.sessionId, userId: s.userId });
    const { payload } = await verifyAccessToken(stack, projectId, r.accessToken);
    expect(payload.refresh_token_id).toBe(s.sessionId);
    await stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken });
  });

  it("refuses unknown tokens, other projects' tokens, expired sessions and deleted users", async () => {
    const s = await newUser();
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: "x".repeat(45) }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: "" }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const other = await stack.newProject();
    expect(await failure(stack.sessions.refreshSession({ projectId: other, refreshToken: s.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");

    const short = (await stack.sessions.createSession({ projectId, userId: s.userId, expiresInMillis: 1n })).result!;
    await new Promise((r) => setTimeout(r, 5));
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: short.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");

    await stack.users.deleteUser({ projectId, userId: s.userId });
    await stack.identity.relay.flush();
    await waitFor(async () => (await outcome(stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken }))) === "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
  });

  it("claims come from a snapshot kept by identity's events; an old snapshot is re-checked with identity", async () => {
    const s = await newUser();
    const claims = async () => (await verifyAccessToken(stack, projectId, (await stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken })).accessToken)).payload;
    expect((await claims()).name).toBeNull();
    await stack.users.updateUser({ projectId, userId: s.userId, displayName: { value: "Renamed" } });
    await stack.identity.relay.flush();
    await waitFor(async () => (await claims()).name === "Renamed");
    const snapshot = async () =>
      (await stack.authDb.query<{ display_name: string | null; deleted: boolean; version: string }>(`SELECT display_name, deleted, version FROM user_claims WHERE user_id = $1`, [s.userId])).rows[0];
    expect(await snapshot()).toMatchObject({ display_name: "Renamed", deleted: false });

    // Events held up (simulated: the snapshot says otherwise and is old): identity is asked again.
    await stack.authDb.query(`UPDATE user_claims SET display_name = 'Stale', checked_at = now() - interval '11 minutes' WHERE user_id = $1`, [s.userId]);
    expect((await claims()).name).toBe("Renamed");
    // A recent snapshot is trusted as it is (no identity call per refresh).
    await stack.authDb.query(`UPDATE user_claims SET display_name = 'From snapshot' WHERE user_id = $1`, [s.userId]);
    expect((await claims()).name).toBe("From snapshot");
    // Expired by a change made in auth (e-mail verified) whose event has not arrived yet: identity is asked again.
    await claimsStore.expire(stack.authDb, projectId, s.userId);
    expect((await claims()).name).toBe("Renamed");

    // Deleted: a tombstone, which a late update cannot overwrite.
    await stack.users.deleteUser({ projectId, userId: s.userId });
    await stack.identity.relay.flush();
    await waitFor(async () => (await snapshot())?.deleted === true);
    const { rows } = await stack.identity.ctx.pool.query<{ envelope: Buffer }>(
      `SELECT envelope FROM outbox WHERE subject = 'identity.user.updated.v1' ORDER BY seq DESC LIMIT 1`,
    );
    await stack.identity.ctx.bus.publish({ id: crypto.randomUUID(), subject: "identity.user.updated.v1", data: new Uint8Array(rows[0]!.envelope) });
    const marker = await newUser();
    await stack.users.updateUser({ projectId, userId: marker.userId, displayName: { value: "Marker" } });
    await stack.identity.relay.flush();
    await waitFor(async () => (await stack.authDb.query(`SELECT 1 FROM user_claims WHERE user_id = $1 AND display_name = 'Marker'`, [marker.userId])).rows.length === 1);
    expect(await snapshot()).toMatchObject({ deleted: true, display_name: null });
  });

  it("updates last_used_at and its geo-IP on refresh, at most once a minute", async () => {
    const s = (await stack.sessions.createSession({ projectId, userId: (await newUser()).userId })).result!;
    const row = async () =>
      (await stack.authDb.query<{ last_used_at: Date | null; last_used_ip: string | null; last_used_ip_info: Record<string, unknown> | null }>(
        `SELECT last_used_at, last_used_ip, last_used_ip_info FROM sessions WHERE id = $1`,
        [s.sessionId],
      )).rows[0]!;
    expect((await row()).last_used_at).toBeNull();
    await stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken, client: { ip: "8.8.8.8" } });
    const first = await row();
    expect(first.last_used_at).toBeInstanceOf(Date);
    expect(first.last_used_ip_info).toMatchObject({ ip: "8.8.8.8", countryCode: "US" });
    await stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken, client: { ip: "81.2.69.142" } });
    expect((await row()).last_used_at!.getTime()).toBe(first.last_used_at!.getTime());
    // A minute later, the next use writes again.
    await stack.authDb.query(`UPDATE sessions SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [s.sessionId]);
    await stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken, client: { ip: "81.2.69.142" } });
    expect((await row()).last_used_ip_info).toMatchObject({ ip: "81.2.69.142", countryCode: "GB" });
  });

  it("TouchSessions applies batched uses: latest per session, at most one write a minute, never in the future", async () => {
    const u = await newUser();
    const s = (await stack.sessions.createSession({ projectId, userId: u.userId })).result!;
    const now = Date.now();
    await stack.sessions.touchSessions({
      touches: [
        { projectId, sessionId: s.sessionId, atMillis: BigInt(now - 10_000), ip: "81.2.69.142" },
        { projectId, sessionId: s.sessionId, atMillis: BigInt(now - 5_000), ip: "8.8.8.8" },
        { projectId: "other", sessionId: u.sessionId, atMillis: BigInt(now), ip: "8.8.8.8" },
        { projectId, sessionId: "not-a-uuid", atMillis: BigInt(now), ip: "" },
      ],
    });
    const { sessions } = await stack.sessions.listSessions({ projectId, userId: u.userId });
    const touched = sessions.find((x) => x.id === s.sessionId)!;
    expect(Number(touched.lastUsedAtMillis)).toBe(now - 5_000);
    expect(touched.lastUsedIpInfo).toMatchObject({ ip: "8.8.8.8", countryCode: "US" });
    // Within the minute nothing is written; later, a time from the future is clamped to now.
    await stack.sessions.touchSessions({ touches: [{ projectId, sessionId: s.sessionId, atMillis: BigInt(now), ip: "" }] });
    const same = (await stack.sessions.listSessions({ projectId, userId: u.userId })).sessions.find((x) => x.id === s.sessionId)!;
    expect(Number(same.lastUsedAtMillis)).toBe(now - 5_000);
    await stack.authDb.query(`UPDATE sessions SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [s.sessionId]);
    await stack.sessions.touchSessions({ touches: [{ projectId, sessionId: s.sessionId, atMillis: BigInt(now + 3_600_000), ip: "" }] });
    const again = (await stack.sessions.listSessions({ projectId, userId: u.userId })).sessions.find((x) => x.id === s.sessionId)!;
    expect(Number(again.lastUsedAtMillis)).toBeLessThanOrEqual(Date.now());
    expect(Number(again.lastUsedAtMillis)).toBeGreaterThan(now - 1000);
    // A private IP has no geo information.
    const p = (await stack.sessions.createSession({ projectId, userId: u.userId })).result!;
    await stack.sessions.touchSessions({ touches: [{ projectId, sessionId: p.sessionId, atMillis: BigInt(Date.now()), ip: "10.0.0.1" }] });
    const priv = (await stack.sessions.listSessions({ projectId, userId: u.userId })).sessions.find((x) => x.id === p.sessionId)!;
    expect(priv.lastUsedAtMillis).toBeGreaterThan(0n);
    expect(priv.lastUsedIpInfo).toBeUndefined();
  });
});

describe("rotation", () => {
  it("with auth.refreshTokenRotation each refresh returns a new token; reusing an old one revokes the session family", async () => {
    const rotating = await stack.newProject({}, { "auth.refreshTokenRotation": true });
    const s = await newUser(rotating);
    const r1 = await stack.sessions.refreshSession({ projectId: rotating, refreshToken: s.refreshToken });
    expect(r1.refreshToken).toMatch(/^[0-9a-z]{45}$/);
    expect(r1.refreshToken).not.toBe(s.refreshToken);
    expect(r1.sessionId).toBe(s.sessionId);
    const r2 = await stack.sessions.refreshSession({ projectId: rotating, refreshToken: r1.refreshToken });
    expect(r2.refreshToken).not.toBe(r1.refreshToken);
    // A second session of the same user is not part of the family.
    const other = (await stack.passwords.signInWithPassword({ projectId: rotating, email: s.email, password: "correct horse battery", client })).result!;
    // The stolen copy of the first token comes back: the session is revoked, the current token stops working too.
    expect(await failure(stack.sessions.refreshSession({ projectId: rotating, refreshToken: s.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(await failure(stack.sessions.refreshSession({ projectId: rotating, refreshToken: r2.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const { rows } = await stack.authDb.query(`SELECT 1 FROM sessions WHERE id = $1`, [s.sessionId]);
    expect(rows).toHaveLength(0);
    await stack.sessions.refreshSession({ projectId: rotating, refreshToken: other.refreshToken });
    const { rows: events } = await stack.authDb.query(`SELECT 1 FROM outbox WHERE subject = 'auth.session.revoked.v1'`);
    expect(events.length).toBeGreaterThan(0);
  });

  it("two concurrent refreshes with one token under rotation: at most one wins", async () => {
    const rotating = await stack.newProject({}, { "auth.refreshTokenRotation": true });
    const s = await newUser(rotating);
    const results = await Promise.allSettled([1, 2, 3].map(() => stack.sessions.refreshSession({ projectId: rotating, refreshToken: s.refreshToken })));
    expect(results.filter((r) => r.status === "fulfilled").length).toBeLessThanOrEqual(1);
  });
});

describe("server sessions, listing and revocation", () => {
  it("CreateSession: default and custom expiry, impersonation, unknown user", async () => {
    const u = await newUser();
    const def = (await stack.sessions.createSession({ projectId, userId: u.userId })).result!;
    const custom = (await stack.sessions.createSession({ projectId, userId: u.userId, expiresInMillis: 60_000n, isImpersonation: true })).result!;
    expect(decodeJwt(def.accessToken).refresh_token_id).toBe(def.sessionId);
    const { sessions } = await stack.sessions.listSessions({ projectId, userId: u.userId, includeImpersonation: true });
    const d = sessions.find((s) => s.id === def.sessionId)!;
    const c = sessions.find((s) => s.id === custom.sessionId)!;
    expect(Number(d.expiresAtMillis - d.createdAtMillis)).toBeGreaterThan(31_536_000_000 - 5000);
    expect(Number(c.expiresAtMillis - c.createdAtMillis)).toBeLessThan(65_000);
    expect(c.isImpersonation).toBe(true);
    expect(await rpcError(stack.sessions.createSession({ projectId, userId: "0b5b3c76-2a5e-4d7b-9f59-2d1f0b9e8c11" }))).toMatchObject({
      code: "USER_ID_DOES_NOT_EXIST",
      details: { user_id: "0b5b3c76-2a5e-4d7b-9f59-2d1f0b9e8c11" },
    });
    expect(await failure(stack.sessions.createSession({ projectId, userId: u.userId, expiresInMillis: 31_708_800_001n }))).toMatch(/^400 /);
  });

  it("lists newest first; impersonation only when asked", async () => {
    const u = await newUser();
    const imp = (await stack.sessions.createSession({ projectId, userId: u.userId, isImpersonation: true })).result!;
    const later = (await stack.sessions.createSession({ projectId, userId: u.userId })).result!;
    const all = (await stack.sessions.listSessions({ projectId, userId: u.userId, includeImpersonation: true })).sessions.map((s) => s.id);
    expect(all).toEqual([later.sessionId, imp.sessionId, u.sessionId]);
    const visible = (await stack.sessions.listSessions({ projectId, userId: u.userId })).sessions.map((s) => s.id);
    expect(visible).toEqual([later.sessionId, u.sessionId]);
    const signIn = (await stack.sessions.listSessions({ projectId, userId: u.userId })).sessions.find((s) => s.id === u.sessionId)!;
    expect(signIn.lastUsedAtMillis).toBeGreaterThan(0n);
    expect(signIn.lastUsedIpInfo).toMatchObject({ ip: "8.8.8.8", countryCode: "US" });
  });

  it("revokes one session (own user only), all but one, and answers 404 'Session not found.'", async () => {
    const u = await newUser();
    const v = await newUser();
    const a = (await stack.sessions.createSession({ projectId, userId: u.userId })).result!;
    const b = (await stack.sessions.createSession({ projectId, userId: u.userId })).result!;
    expect(await failure(stack.sessions.revokeSession({ projectId, sessionId: a.sessionId, userId: v.userId }))).toBe("404 Session not found.");
    expect(await failure(stack.sessions.revokeSession({ projectId: await stack.newProject(), sessionId: a.sessionId }))).toBe("404 Session not found.");
    expect(await failure(stack.sessions.revokeSession({ projectId, sessionId: "nope" }))).toBe("404 Session not found.");
    await stack.sessions.revokeSession({ projectId, sessionId: a.sessionId, userId: u.userId });
    expect(await failure(stack.sessions.revokeSession({ projectId, sessionId: a.sessionId, userId: u.userId }))).toBe("404 Session not found.");
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: a.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const { revoked } = await stack.sessions.revokeUserSessions({ projectId, userId: u.userId, exceptSessionId: b.sessionId });
    expect(revoked).toBe(1);
    expect((await stack.sessions.listSessions({ projectId, userId: u.userId })).sessions.map((s) => s.id)).toEqual([b.sessionId]);
    await stack.sessions.refreshSession({ projectId, refreshToken: v.refreshToken });
    expect((await stack.sessions.revokeUserSessions({ projectId, userId: u.userId })).revoked).toBe(1);
  });
});

describe("signing keys", () => {
  it("publishes {kty, alg, crv, kid, x, y}; unknown projects have no keys", async () => {
    const pid = await stack.newProject();
    const res = await stack.sessions.getVerificationKeys({ projectId: pid, includeAnonymous: true });
    const [key] = JSON.parse(res.jwksJson).keys;
    expect(Object.keys(key)).toEqual(["kty", "alg", "crv", "kid", "x", "y"]);
    expect(key).toMatchObject({ kty: "EC", alg: "ES256", crv: "P-256", kid: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) });
    expect(JSON.parse(res.anonymousJwksJson).keys[0].kid).not.toBe(key.kid);
    // Two keys per audience, as the published backend serves (issue 13): the signing key and its rotation partner.
    const kids = [...JSON.parse(res.jwksJson).keys, ...JSON.parse(res.anonymousJwksJson).keys].map((k: { kid: string }) => k.kid);
    expect(kids).toHaveLength(4);
    expect(new Set(kids).size).toBe(4);
    const again = await stack.sessions.getVerificationKeys({ projectId: pid, includeAnonymous: true });
    expect(JSON.parse(again.jwksJson).keys.map((k: { kid: string }) => k.kid)).toEqual(kids.slice(0, 2));
    expect(await failure(stack.sessions.getVerificationKeys({ projectId: "0b5b3c76-2a5e-4d7b-9f59-2d1f0b9e8c11" }))).toBe("PROJECT_NOT_FOUND");
    const { rows } = await stack.authDb.query<{ private_jwk_sealed: string }>(`SELECT private_jwk_sealed FROM signing_keys WHERE kid = $1`, [key.kid]);
    expect(rows[0]!.private_jwk_sealed).toMatch(/^vsb1\./);
    expect(rows[0]!.private_jwk_sealed).not.toContain('"d"');
  });

  it("N replicas creating the first key at once agree on one", async () => {
    const pid = await stack.newProject();
    const { pool, secrets, outbox } = stack.auth.ctx;
    const replicas = Array.from({ length: 6 }, () => new SigningKeys({ pool, secrets, outbox }));
    const keys = await Promise.all(replicas.map((r) => r.signingKey(pid, false)));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    const { rows } = await stack.authDb.query(`SELECT kid FROM signing_keys WHERE project_id = $1 AND audience = $1`, [pid]);
    expect(rows).toHaveLength(1);
  });

  it("rotation: new tokens use the new key; the old key stays published and old tokens keep verifying", async () => {
    const u = await newUser();
    const oldKid = decodeProtectedHeader(u.accessToken).kid!;
    const before = JSON.parse((await stack.sessions.getVerificationKeys({ projectId })).jwksJson).keys.map((k: { kid: string }) => k.kid);
    expect(before).toHaveLength(2);
    expect(before[0]).toBe(oldKid);
    const { kid } = await stack.sessions.rotateSigningKey({ projectId });
    expect(kid).not.toBe(oldKid);
    // The rotation partner published before the rotation signs now: no verifier's cached JWKS misses it (issue 13).
    expect(kid).toBe(before[1]);
    const keys = JSON.parse((await stack.sessions.getVerificationKeys({ projectId })).jwksJson).keys.map((k: { kid: string }) => k.kid);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toBe(kid);
    expect(keys[2]).toBe(oldKid);
    const newNext = keys[1];
    expect([kid, oldKid]).not.toContain(newNext);
    await verifyAccessToken(stack, projectId, u.accessToken);
    const r = await stack.sessions.refreshSession({ projectId, refreshToken: u.refreshToken });
    expect(decodeProtectedHeader(r.accessToken).kid).toBe(kid);
    await verifyAccessToken(stack, projectId, r.accessToken);
    const { rows } = await stack.authDb.query<{ publish_until: Date; retired_at: Date }>(`SELECT retired_at, publish_until FROM signing_keys WHERE kid = $1`, [oldKid]);
    const window = (rows[0]!.publish_until.getTime() - rows[0]!.retired_at.getTime()) / 1000;
    expect(window).toBe(600 + 15 * 60);
    const events = await stack.authDb.query(`SELECT 1 FROM outbox WHERE subject = 'auth.signing_key.rotated.v1'`);
    expect(events.rows).toHaveLength(2);
    // After the publication window the old key is gone from the JWKS.
    await stack.authDb.query(`UPDATE signing_keys SET publish_until = now() - interval '1 second' WHERE kid = $1`, [oldKid]);
    const after = JSON.parse((await stack.sessions.getVerificationKeys({ projectId })).jwksJson).keys.map((k: { kid: string }) => k.kid);
    expect(after).toEqual([kid, newNext]);
  });
});

describe("identity.user.deleted.v1", () => {
  it("removes the user's sessions, password and codes; a redelivered event changes nothing", async () => {
    const u = await newUser();
    const keep = await newUser();
    await stack.users.deleteUser({ projectId, userId: u.userId });
    await stack.identity.relay.flush();
    const count = async (table: string, userId: string) =>
      Number((await stack.authDb.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE user_id = $1`, [userId])).rows[0]!.n);
    await waitFor(async () => (await count("sessions", u.userId)) === 0 && (await count("password_credentials", u.userId)) === 0);
    expect(await count("verification_codes", u.userId)).toBe(0);
    expect(await count("sessions", keep.userId)).toBe(1);

    // Redeliver the same envelope twice (under new transport ids, past the bus's own de-duplication) after planting a
    // row the handler would delete if it ran again; then a later event as a marker that the redeliveries were handled.
    const { rows } = await stack.identity.ctx.pool.query<{ id: string; envelope: Buffer }>(
      `SELECT id, envelope FROM outbox WHERE subject = 'identity.user.deleted.v1' ORDER BY seq DESC LIMIT 1`,
    );
    await withTransaction(stack.auth.ctx.pool, async (tx) => {
      await tx.query(
        `INSERT INTO sessions (id, project_id, user_id, refresh_token_hash, expires_at) VALUES (gen_random_uuid(), $1, $2, md5(random()::text), now() + interval '1 day')`,
        [projectId, u.userId],
      );
    });
    for (const transportId of [crypto.randomUUID(), crypto.randomUUID()]) {
      await stack.identity.ctx.bus.publish({ id: transportId, subject: "identity.user.deleted.v1", data: new Uint8Array(rows[0]!.envelope) });
    }
    const marker = await newUser();
    await stack.users.deleteUser({ projectId, userId: marker.userId });
    await stack.identity.relay.flush();
    await waitFor(async () => (await count("sessions", marker.userId)) === 0);
    expect(await count("sessions", u.userId)).toBe(1);
    const processed = await stack.authDb.query(`SELECT 1 FROM processed_events WHERE consumer = 'auth-identity-user-deleted' AND event_id = $1`, [rows[0]!.id]);
    expect(processed.rows).toHaveLength(1);
  });
});
