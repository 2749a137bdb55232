import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hash as bcryptHash } from "@node-rs/bcrypt";
import type { SignInWithPasswordResult } from "@vestibule/proto/auth/v1/password_service";
import { CALLBACK, startAuthStack, verifyAccessToken, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;

beforeAll(async () => {
  // Threshold 3 per account: the blocked item below needs only three failures first.
  stack = await startAuthStack({ VESTIBULE_AUTH_RATE_LIMIT_ACCOUNT_FAILURES: "3", VESTIBULE_AUTH_RATE_LIMIT_BASE_SECONDS: "60" });
  projectId = await stack.newProject();
});
afterAll(async () => {
  await stack?.stop();
});

const PASSWORD = "correct horse battery";
let n = 0;
async function newUser(pid = projectId) {
  const email = `signin-batch${++n}@example.com`;
  const { result } = await stack.passwords.signUpWithPassword({ projectId: pid, email, password: PASSWORD, verificationCallbackUrl: CALLBACK });
  return { ...result!, email };
}

/** "ok" or the item's error: its known-error code, else `<status> <message>` of a status error, else the Connect code. */
function outcomeOf(r: SignInWithPasswordResult): string {
  if (r.outcome.case === "ok") return "ok";
  const e = r.outcome.value!;
  if (e.knownError) return e.knownError.code;
  if (e.statusError) return `${e.statusError.httpStatus}`;
  return `connect ${e.code}`;
}

async function sessionCount(userId: string): Promise<number> {
  const { rows } = await stack.authDb.query<{ n: string }>(`SELECT count(*) AS n FROM sessions WHERE user_id = $1`, [userId]);
  return Number(rows[0]!.n);
}

describe("SignInWithPasswords", () => {
  it("answers each item like SignInWithPassword, in order; one bad item fails only itself", async () => {
    const a = await newUser();
    const b = await newUser();
    const locked = await newUser();
    const disabled = await stack.newProject({ credential_enabled: false });
    const other = await stack.newProject();
    const otherUser = await newUser(other);
    const imported = await bcryptHash("imported password", { cost: 4 });
    const { userId: importedId } = await stack.passwords.createUserWithCredential({
      user: { projectId, primaryEmail: "batch-imported@example.com", primaryEmailAuthEnabled: true },
      credential: { case: "passwordHash", value: imported },
    });
    const { userId: mfaId } = await stack.passwords.createUserWithCredential({
      user: { projectId, primaryEmail: "batch-mfa@example.com", primaryEmailAuthEnabled: true, requiresTotpMfa: true },
      credential: { case: "password", value: PASSWORD },
    });
    for (let i = 0; i < 3; i++) await stack.passwords.signInWithPassword({ projectId, email: locked.email, password: "wrong wrong wrong" }).catch(() => {});
    const before = { a: await sessionCount(a.userId), b: await sessionCount(b.userId) };

    const requests = [
      { projectId, email: a.email, password: PASSWORD, client: { ip: "8.8.8.8" } },
      { projectId, email: b.email, password: "not the password" },
      { projectId, email: "nobody@example.com", password: PASSWORD },
      { projectId, email: ` ${b.email.toUpperCase()} `, password: PASSWORD },
      { projectId, email: locked.email, password: PASSWORD },
      { projectId: disabled, email: a.email, password: PASSWORD },
      // A user of another project is unknown here, and signs in in its own project in the same batch.
      { projectId, email: otherUser.email, password: PASSWORD },
      { projectId: other, email: otherUser.email, password: PASSWORD },
      { projectId, email: "batch-imported@example.com", password: "imported password" },
      { projectId, email: "batch-mfa@example.com", password: PASSWORD },
      { projectId: "no-such-project", email: a.email, password: PASSWORD },
    ];
    const { results } = await stack.passwords.signInWithPasswords({ requests });
    expect(results.map(outcomeOf)).toEqual([
      "ok",
      "EMAIL_PASSWORD_MISMATCH",
      "EMAIL_PASSWORD_MISMATCH",
      "ok",
      "429",
      "PASSWORD_AUTHENTICATION_NOT_ENABLED",
      "EMAIL_PASSWORD_MISMATCH",
      "ok",
      "ok",
      "MULTI_FACTOR_AUTHENTICATION_REQUIRED",
      "PROJECT_NOT_FOUND",
    ]);

    // Each success is a session of its own user with a token for it.
    const okAt = (i: number) => (results[i]!.outcome.case === "ok" ? results[i]!.outcome.value!.result! : undefined)!;
    for (const [i, userId, pid] of [
      [0, a.userId, projectId],
      [3, b.userId, projectId],
      [7, otherUser.userId, other],
      [8, importedId, projectId],
    ] as const) {
      const r = okAt(i);
      expect(r.userId).toBe(userId);
      expect(r.refreshToken).toMatch(/^[0-9a-z]{45}$/);
      const { payload } = await verifyAccessToken(stack, pid, r.accessToken);
      expect(payload.sub).toBe(userId);
      expect(payload.refresh_token_id).toBe(r.sessionId);
      expect((await stack.sessions.refreshSession({ projectId: pid, refreshToken: r.refreshToken })).userId).toBe(userId);
    }
    expect(await sessionCount(a.userId)).toBe(before.a + 1);
    expect(await sessionCount(b.userId)).toBe(before.b + 1);
    expect(await sessionCount(mfaId)).toBe(0);
    // The imported bcrypt hash became argon2id.
    const { rows } = await stack.authDb.query<{ password_hash: string }>(`SELECT password_hash FROM password_credentials WHERE user_id = $1`, [importedId]);
    expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$/);
    // The wrong password above counted against b's account: two more failures block it.
    const wrong = { projectId, email: b.email, password: "still wrong" };
    const more = await stack.passwords.signInWithPasswords({ requests: [wrong, wrong] });
    expect(more.results.map(outcomeOf)).toEqual(["EMAIL_PASSWORD_MISMATCH", "EMAIL_PASSWORD_MISMATCH"]);
    const blocked = await stack.passwords.signInWithPasswords({ requests: [{ projectId, email: b.email, password: PASSWORD }] });
    expect(outcomeOf(blocked.results[0]!)).toBe("429");
    expect(blocked.results[0]!.outcome.value).toMatchObject({ statusError: { retryAfterSeconds: expect.any(Number) } });
  });

  it("refuses oversized batches with a 400", async () => {
    const one = { projectId, email: "x@example.com", password: "y" };
    await expect(stack.passwords.signInWithPasswords({ requests: new Array(257).fill(one) })).rejects.toThrow(/At most 256 sign-ins per call/);
  });
});
