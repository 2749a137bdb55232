import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "@vestibule/shared/secrets";
import { CALLBACK, codeFromMail, failure, outcome, startAuthStack, waitFor, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;

beforeAll(async () => {
  stack = await startAuthStack({ VESTIBULE_AUTH_RATE_LIMIT: "off", VESTIBULE_AUTH_RESET_CODE_MIN_MS: "300" });
  projectId = await stack.newProject();
});
afterAll(async () => {
  await stack?.stop();
});

const client = { ip: "8.8.8.8" };
const RESET_CALLBACK = "http://localhost:3000/handler/password-reset";
let n = 0;

async function newUser(password = "old password 1") {
  const email = `codes${++n}@example.com`;
  const { result } = await stack.passwords.signUpWithPassword({ projectId, email, password, verificationCallbackUrl: CALLBACK, client });
  return { ...result!, email };
}

/** Codes already handed out: a second code sent within a second must not be read from the first mail. */
const seenCodes = new Set<string>();

async function resetCode(email: string): Promise<string> {
  const sentAfter = Date.now();
  await stack.passwords.sendPasswordResetCode({ projectId, email, callbackUrl: RESET_CALLBACK, client });
  const mail = await stack.waitForMail(
    email,
    (m) => m.template === "password_reset" && Number(m.createdAtMillis) >= sentAfter - 1000 && !seenCodes.has(codeFromMail(m)),
  );
  expect(mail.subject).toBe("Reset your password at Test Project");
  expect(mail.text).toContain(`${RESET_CALLBACK}?code=`);
  const code = codeFromMail(mail);
  seenCodes.add(code);
  return code;
}

describe("password reset", () => {
  it("send → check → reset: code single use, all sessions revoked, new password works", async () => {
    const u = await newUser();
    const code = await resetCode(u.email);
    await stack.passwords.checkPasswordResetCode({ projectId, code, client });
    await stack.passwords.checkPasswordResetCode({ projectId, code: code.toUpperCase(), client });
    expect(await failure(stack.passwords.resetPassword({ projectId, code, password: "short", client }))).toBe("PASSWORD_TOO_SHORT");
    await stack.passwords.resetPassword({ projectId, code, password: "new password 2", client });
    expect(await failure(stack.passwords.resetPassword({ projectId, code, password: "new password 3", client }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: u.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    await stack.passwords.signInWithPassword({ projectId, email: u.email, password: "new password 2", client });
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: u.email, password: "old password 1", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
  });

  it("answers the same, in about the same time, whether or not the e-mail exists", async () => {
    const u = await newUser();
    const time = async (email: string) => {
      const t = performance.now();
      await stack.passwords.sendPasswordResetCode({ projectId, email, callbackUrl: RESET_CALLBACK, client });
      return performance.now() - t;
    };
    const known = await time(u.email);
    const unknown = await time("nobody-here@example.com");
    expect(known).toBeGreaterThanOrEqual(290);
    expect(unknown).toBeGreaterThanOrEqual(290);
    expect(known / unknown).toBeGreaterThan(0.5);
    expect(known / unknown).toBeLessThan(2);
    const { messages } = await stack.mailbox.listMailboxMessages({ to: "nobody-here@example.com", projectId: "", limit: 10 });
    expect(messages).toHaveLength(0);
    expect(await failure(stack.passwords.sendPasswordResetCode({ projectId, email: u.email, callbackUrl: "https://evil.example/reset", client }))).toBe(
      "REDIRECT_URL_NOT_WHITELISTED",
    );
  });

  it("codes errors: not found, wrong purpose, other project, expired, used, max attempts; in contract order", async () => {
    const u = await newUser();
    const code = await resetCode(u.email);
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code: "0".repeat(45), client }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code: "too-short", client }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId: await stack.newProject(), code, client }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    // A password reset code is not an e-mail verification code.
    expect(await failure(stack.verification.checkContactChannelVerificationCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_NOT_FOUND");

    const codeHash = hashSecret(code);
    await stack.authDb.query(`UPDATE verification_codes SET expires_at = now() - interval '1 second', used_at = now(), attempts = 50 WHERE code_hash = $1`, [codeHash]);
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_EXPIRED");
    await stack.authDb.query(`UPDATE verification_codes SET expires_at = now() + interval '1 day' WHERE code_hash = $1`, [codeHash]);
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    await stack.authDb.query(`UPDATE verification_codes SET used_at = NULL WHERE code_hash = $1`, [codeHash]);
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
  });

  it("the 20th attempt on a nonce is refused, and attempts on any code sharing the last 39 characters count", async () => {
    const u = await newUser();
    const code = await resetCode(u.email);
    // Guesses that share the nonce (the last 39 characters) but not the first 6.
    for (let i = 0; i < 10; i++) {
      const guess = `${"0123456789abcdefghjk".slice(i, i + 6).padEnd(6, "0")}${code.slice(6)}`;
      if (guess === code) continue;
      expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code: guess, client }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    const { rows } = await stack.authDb.query<{ attempts: number }>(`SELECT attempts FROM verification_codes WHERE code_hash = $1`, [hashSecret(code)]);
    const counted = rows[0]!.attempts;
    expect(counted).toBeGreaterThanOrEqual(9);
    for (let a = counted + 1; a < 20; a++) await stack.passwords.checkPasswordResetCode({ projectId, code, client });
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
    expect(await failure(stack.passwords.resetPassword({ projectId, code, password: "new password 2", client }))).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
  });

  it("a reset code lives about an hour, not the default 7 days (issue 18)", async () => {
    const u = await newUser();
    const code = await resetCode(u.email);
    const { rows } = await stack.authDb.query<{ seconds: number }>(
      `SELECT extract(epoch FROM expires_at - created_at)::float8 AS seconds FROM verification_codes WHERE code_hash = $1`,
      [hashSecret(code)],
    );
    expect(rows[0]!.seconds).toBeGreaterThan(50 * 60);
    expect(rows[0]!.seconds).toBeLessThanOrEqual(60 * 60 + 1);
  });

  it("a password change deletes every other outstanding reset code of the user: reset, update, set, server set (issue 18)", async () => {
    const stillValid = async (code: string) => outcome(stack.passwords.checkPasswordResetCode({ projectId, code, client }));
    // Reset with one code: the user's other code goes, the used one answers ALREADY_USED, another user's code stays.
    const u = await newUser();
    const other = await newUser();
    const [first, second] = [await resetCode(u.email), await resetCode(u.email)];
    const othersCode = await resetCode(other.email);
    await stack.passwords.resetPassword({ projectId, code: first, password: "new password 2", client });
    expect(await stillValid(second)).toBe("VERIFICATION_CODE_NOT_FOUND");
    expect(await stillValid(first)).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await stillValid(othersCode)).toBe("ok");

    // Update (old password known) and a server setting the password.
    const updated = await resetCode(u.email);
    await stack.passwords.updatePassword({ projectId, userId: u.userId, oldPassword: "new password 2", newPassword: "new password 3", client });
    expect(await stillValid(updated)).toBe("VERIFICATION_CODE_NOT_FOUND");
    const serverSet = await resetCode(u.email);
    await stack.passwords.setUserCredential({ projectId, userId: u.userId, credential: { case: "password", value: "new password 4" } });
    expect(await stillValid(serverSet)).toBe("VERIFICATION_CODE_NOT_FOUND");
    const cleared = await resetCode(u.email);
    await stack.passwords.setUserCredential({ projectId, userId: u.userId, credential: { case: "clear", value: true } });
    expect(await stillValid(cleared)).toBe("VERIFICATION_CODE_NOT_FOUND");

    // Setting a first password (the user had none after the clear).
    const beforeSet = await resetCode(u.email);
    await stack.passwords.setPassword({ projectId, userId: u.userId, password: "new password 5" });
    expect(await stillValid(beforeSet)).toBe("VERIFICATION_CODE_NOT_FOUND");
  });

  it("a deleted user's codes are gone", async () => {
    const u = await newUser();
    const code = await resetCode(u.email);
    await stack.users.deleteUser({ projectId, userId: u.userId });
    await stack.identity.relay.flush();
    await waitFor(async () => (await outcome(stack.passwords.checkPasswordResetCode({ projectId, code, client }))) === "VERIFICATION_CODE_NOT_FOUND");
  });
});

describe("contact channel verification", () => {
  it("send → check → verify marks the channel verified; then EMAIL_ALREADY_VERIFIED", async () => {
    const { user } = await stack.users.createUser({ projectId, primaryEmail: "channel@example.com", primaryEmailAuthEnabled: true });
    const { contactChannels } = await stack.channels.listContactChannels({ projectId, userId: user!.id });
    const channel = contactChannels[0]!;
    expect(await failure(stack.verification.sendContactChannelVerificationCode({ projectId, userId: user!.id, contactChannelId: channel.id, callbackUrl: "https://evil.example/x" }))).toBe(
      "REDIRECT_URL_NOT_WHITELISTED",
    );
    await stack.verification.sendContactChannelVerificationCode({ projectId, userId: user!.id, contactChannelId: channel.id, callbackUrl: CALLBACK });
    const mail = await stack.waitForMail("channel@example.com");
    expect(mail.subject).toBe("Verify your email at Test Project");
    const code = codeFromMail(mail);
    await stack.verification.checkContactChannelVerificationCode({ projectId, code, client });
    expect((await stack.channels.getContactChannel({ projectId, userId: user!.id, contactChannelId: channel.id })).contactChannel!.isVerified).toBe(false);
    await stack.verification.verifyContactChannel({ projectId, code: code.toUpperCase(), client });
    expect((await stack.channels.getContactChannel({ projectId, userId: user!.id, contactChannelId: channel.id })).contactChannel!.isVerified).toBe(true);
    expect(await failure(stack.verification.verifyContactChannel({ projectId, code, client }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await failure(stack.verification.sendContactChannelVerificationCode({ projectId, userId: user!.id, contactChannelId: channel.id, callbackUrl: CALLBACK }))).toBe(
      "EMAIL_ALREADY_VERIFIED",
    );
  });

  it("a code for an address that changed since does not verify the new address", async () => {
    const { user } = await stack.users.createUser({ projectId, primaryEmail: "before@example.com", primaryEmailAuthEnabled: true });
    const channel = (await stack.channels.listContactChannels({ projectId, userId: user!.id })).contactChannels[0]!;
    await stack.verification.sendContactChannelVerificationCode({ projectId, userId: user!.id, contactChannelId: channel.id, callbackUrl: CALLBACK });
    const code = codeFromMail(await stack.waitForMail("before@example.com"));
    await stack.channels.updateContactChannel({ projectId, userId: user!.id, contactChannelId: channel.id, value: "after@example.com" });
    expect(await failure(stack.verification.verifyContactChannel({ projectId, code, client }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    expect((await stack.channels.getContactChannel({ projectId, userId: user!.id, contactChannelId: channel.id })).contactChannel!.isVerified).toBe(false);
  });
});
