import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import { MfaService } from "@vestibule/proto/auth/v1/mfa_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { failure, rpcError, startAuthStack, verifyAccessToken, waitFor, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;
let mfa: ReturnType<typeof createServiceClient<typeof MfaService>>;

beforeAll(async () => {
  stack = await startAuthStack();
  projectId = await stack.newProject();
  mfa = createServiceClient(MfaService, { baseUrl: stack.env.VESTIBULE_AUTH_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
});
afterAll(async () => {
  await stack?.stop();
});

const client = { ip: "9.9.9.9", userAgent: "vitest" };
const password = "correct horse battery";

/** Waits out the last 3 s of a 30 s step, so codes computed now stay in the same steps during a test. */
async function freshStep(): Promise<number> {
  const into = Date.now() % 30_000;
  if (into > 27_000) await new Promise((r) => setTimeout(r, 30_000 - into + 50));
  return Math.floor(Date.now() / 1000);
}

const totpAt = (secret: Uint8Array, epoch: number) => generate({ secret, epoch });

async function mfaUser(email: string, secret: Uint8Array = randomBytes(20)) {
  const { userId } = await stack.passwords.createUserWithCredential({
    user: { projectId, primaryEmail: email, primaryEmailAuthEnabled: true },
    credential: { case: "password", value: password },
  });
  const { user } = await mfa.setTotpSecret({ projectId, userId, secret });
  return { userId, secret, user: user! };
}

async function attemptCode(email: string): Promise<string> {
  const e = await rpcError(stack.passwords.signInWithPassword({ projectId, email, password, client }));
  expect(e).toMatchObject({ code: "MULTI_FACTOR_AUTHENTICATION_REQUIRED" });
  return (e as { details: { attempt_code: string } }).details.attempt_code;
}

describe("TOTP multi-factor sign-in", () => {
  it("enabling stores the secret encrypted in auth and sets requires_totp_mfa in identity", async () => {
    const { userId, secret, user } = await mfaUser("enable@example.com");
    expect(user.requiresTotpMfa).toBe(true);
    expect((await stack.users.getUser({ projectId, userId })).user!.requiresTotpMfa).toBe(true);
    const { rows } = await stack.authDb.query<{ secret_ciphertext: string }>(`SELECT secret_ciphertext FROM totp_credentials WHERE user_id = $1`, [userId]);
    expect(rows).toHaveLength(1);
    const stored = rows[0]!.secret_ciphertext;
    expect(stored.startsWith("vsb1.")).toBe(true);
    for (const form of [Buffer.from(secret).toString("base64"), Buffer.from(secret).toString("hex"), Buffer.from(secret).toString("base64url")]) {
      expect(stored).not.toContain(form);
    }
  });

  it("refuses secrets shorter than 16 or longer than 64 bytes, and unknown users", async () => {
    const { userId } = await stack.passwords.createUserWithCredential({
      user: { projectId, primaryEmail: "short@example.com", primaryEmailAuthEnabled: true },
      credential: { case: "password", value: password },
    });
    expect(await failure(mfa.setTotpSecret({ projectId, userId, secret: randomBytes(10) }))).toMatch(/^400 totp_secret_base64 must decode to 16 to 64 bytes/);
    expect(await failure(mfa.setTotpSecret({ projectId, userId, secret: randomBytes(65) }))).toMatch(/^400 /);
    expect(await failure(mfa.setTotpSecret({ projectId, userId: "5b3e2c1d-0a9f-4e8d-8c7b-6a5f4e3d2c1b", secret: randomBytes(20) }))).toBe("USER_NOT_FOUND");
    expect((await stack.users.getUser({ projectId, userId })).user!.requiresTotpMfa).toBe(false);
  });

  it("password sign-in gives an attempt code; a current TOTP exchanges it for tokens with requires_totp_mfa", async () => {
    const { userId, secret } = await mfaUser("signin@example.com");
    const now = await freshStep();
    const code = await attemptCode("signin@example.com");
    expect(code).toMatch(/^[0-9a-z]{45}$/);
    expect((await stack.sessions.listSessions({ projectId, userId })).sessions).toHaveLength(0);

    const wrong = (await totpAt(secret, now)) === "000000" ? "111111" : "000000";
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: code, totp: wrong, client }))).toBe("INVALID_TOTP_CODE");
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: code, totp: "12345", client }))).toBe("INVALID_TOTP_CODE");
    // Two steps back is outside the window of one step.
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: code, totp: await totpAt(secret, now - 60), client }))).toBe("INVALID_TOTP_CODE");

    const { result } = await mfa.signInWithTotp({ projectId, attemptCode: code, totp: await totpAt(secret, now), client });
    expect(result!.userId).toBe(userId);
    expect(result!.isNewUser).toBe(false);
    const { payload } = await verifyAccessToken(stack, projectId, result!.accessToken);
    expect(payload).toMatchObject({ sub: userId, requires_totp_mfa: true, refresh_token_id: result!.sessionId });
    expect((await stack.sessions.listSessions({ projectId, userId })).sessions).toHaveLength(1);
    // The attempt code is used up.
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: code, totp: await totpAt(secret, now + 30), client }))).toBe(
      "VERIFICATION_CODE_ALREADY_USED",
    );
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: "0".repeat(45), totp: "123456", client }))).toBe("VERIFICATION_CODE_NOT_FOUND");
  });

  it("a used code cannot be replayed, nor an older one; the previous step works once when nothing newer was used", async () => {
    const { secret } = await mfaUser("replay@example.com");
    const now = await freshStep();
    const previous = await totpAt(secret, now - 30);
    const current = await totpAt(secret, now);
    await mfa.signInWithTotp({ projectId, attemptCode: await attemptCode("replay@example.com"), totp: previous, client });
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: await attemptCode("replay@example.com"), totp: previous, client }))).toBe(
      "INVALID_TOTP_CODE",
    );
    await mfa.signInWithTotp({ projectId, attemptCode: await attemptCode("replay@example.com"), totp: current, client });
    const next = await attemptCode("replay@example.com");
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: next, totp: current, client }))).toBe("INVALID_TOTP_CODE");
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: next, totp: previous, client }))).toBe("INVALID_TOTP_CODE");
    // Two sign-ins racing with one code: exactly one gets tokens.
    const later = await totpAt(secret, now + 30);
    const [a, b] = await Promise.allSettled([
      mfa.signInWithTotp({ projectId, attemptCode: next, totp: later, client }),
      mfa.signInWithTotp({ projectId, attemptCode: await attemptCode("replay@example.com"), totp: later, client }),
    ]);
    expect([a.status, b.status].sort()).toEqual(["fulfilled", "rejected"]);
  });

  it("wrong codes are rate limited per user: after five failures the next attempt waits (429)", async () => {
    const { secret } = await mfaUser("guesser@example.com");
    const now = await freshStep();
    const good = await totpAt(secret, now);
    const bad = good === "999999" ? "999998" : "999999";
    for (let i = 0; i < 5; i++) {
      expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: await attemptCode("guesser@example.com"), totp: bad, client: { ip: "" } }))).toBe(
        "INVALID_TOTP_CODE",
      );
    }
    expect(await failure(mfa.signInWithTotp({ projectId, attemptCode: await attemptCode("guesser@example.com"), totp: good, client: { ip: "" } }))).toMatch(
      /^429 Too many attempts/,
    );
  });

  it("disabling removes the secret and the flag; password sign-in gives tokens again; deleting the user removes the secret", async () => {
    const { userId } = await mfaUser("disable@example.com");
    const { user } = await mfa.setTotpSecret({ projectId, userId });
    expect(user!.requiresTotpMfa).toBe(false);
    const { rows } = await stack.authDb.query(`SELECT 1 FROM totp_credentials WHERE user_id = $1`, [userId]);
    expect(rows).toHaveLength(0);
    const { result } = await stack.passwords.signInWithPassword({ projectId, email: "disable@example.com", password, client });
    expect(result!.userId).toBe(userId);

    const other = await mfaUser("deleted@example.com");
    await stack.users.deleteUser({ projectId, userId: other.userId });
    await waitFor(async () => (await stack.authDb.query(`SELECT 1 FROM totp_credentials WHERE user_id = $1`, [other.userId])).rowCount === 0);
  });
});
