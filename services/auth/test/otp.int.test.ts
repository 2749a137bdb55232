import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OtpService } from "@vestibule/proto/auth/v1/otp_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { codeFromMail, failure, rpcError, startAuthStack, type AuthStack } from "./support.ts";

let stack: AuthStack;
let otp: ReturnType<typeof createServiceClient<typeof OtpService>>;
let projectId: string;

beforeAll(async () => {
  stack = await startAuthStack({ VESTIBULE_AUTH_RATE_LIMIT: "off" });
  otp = createServiceClient(OtpService, { baseUrl: stack.env.VESTIBULE_AUTH_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
  projectId = await stack.newProject({ magic_link_enabled: true });
});
afterAll(async () => {
  await stack?.stop();
});

const client = { ip: "9.9.9.9" };
const CALLBACK = "http://localhost:3000/handler/magic-link-callback";
let n = 0;
const address = () => `otp${++n}.${Date.now().toString(36)}@example.com`;

const seen = new Set<string>();

/** Sends a code; returns the nonce, the code of the link and the OTP of the subject. */
async function send(email: string, project = projectId) {
  const { nonce } = await otp.sendSignInCode({ projectId: project, email, callbackUrl: CALLBACK, client });
  const mail = await stack.waitForMail(email, (m) => m.template === "magic_link" && !seen.has(m.id));
  seen.add(mail.id);
  const code = codeFromMail(mail);
  const shown = /Your code is ([0-9A-Z]{6})$/.exec(mail.subject)?.[1];
  return { nonce, code, otp: shown!, mail };
}

describe("magic link / one-time code sign-in", () => {
  it("e-mails a code: the subject shows the first 6 characters upper-cased, the link the whole code, the caller gets the rest", async () => {
    const email = address();
    const { nonce, code, otp: shown, mail } = await send(email);
    expect(mail.subject).toBe(`Sign in to Test Project: Your code is ${shown}`);
    expect(code).toHaveLength(45);
    expect(nonce).toHaveLength(39);
    expect(code.slice(6)).toBe(nonce);
    expect(shown).toBe(code.slice(0, 6).toUpperCase());
    expect(mail.text).toContain(`${CALLBACK}?code=${code}`);
    expect(mail.html).toContain(shown);
  });

  it("signs up a new e-mail with OTP + nonce (verified, OTP enabled, is_new_user), once", async () => {
    const email = address();
    const { nonce, otp: shown } = await send(email);
    const code = shown.toLowerCase() + nonce;
    await otp.checkSignInCode({ projectId, code, client });
    const { result } = await otp.signInWithCode({ projectId, code, client });
    expect(result).toMatchObject({ isNewUser: true });
    expect(result!.accessToken).toBeTruthy();
    const { user } = await stack.users.getUser({ projectId, userId: result!.userId });
    expect(user).toMatchObject({ primaryEmail: email, primaryEmailVerified: true, primaryEmailAuthEnabled: true, otpAuthEnabled: true, hasPassword: false });
    expect(await failure(otp.signInWithCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    expect(await failure(otp.checkSignInCode({ projectId, code, client }))).toBe("VERIFICATION_CODE_ALREADY_USED");

    // The next sign-in of that e-mail (with the link's code, any case) finds the same user.
    const again = await send(email);
    const second = await otp.signInWithCode({ projectId, code: again.code.toUpperCase(), client });
    expect(second.result).toMatchObject({ isNewUser: false, userId: result!.userId });
  });

  it("attaches the OTP method to an existing verified user", async () => {
    const email = address();
    const { user } = await stack.users.createUser({ projectId, primaryEmail: email, primaryEmailVerified: true, primaryEmailAuthEnabled: true });
    expect(user!.otpAuthEnabled).toBe(false);
    const { code } = await send(email);
    const { result } = await otp.signInWithCode({ projectId, code, client });
    expect(result).toMatchObject({ isNewUser: false, userId: user!.id });
    expect((await stack.users.getUser({ projectId, userId: user!.id })).user!.otpAuthEnabled).toBe(true);
  });

  it("refuses, in the contract's order: OTP disabled, unverified e-mail, sign-up disabled, untrusted callback", async () => {
    const off = await stack.newProject({ magic_link_enabled: false });
    expect(await failure(otp.sendSignInCode({ projectId: off, email: address(), callbackUrl: "https://evil.example/cb", client }))).toBe(
      "403 OTP sign-in is not enabled for this project",
    );
    const email = address();
    await stack.users.createUser({ projectId, primaryEmail: email, primaryEmailVerified: false, primaryEmailAuthEnabled: true });
    const exists = await rpcError(otp.sendSignInCode({ projectId, email, callbackUrl: "https://evil.example/cb", client }));
    expect(exists).toMatchObject({ code: "USER_EMAIL_ALREADY_EXISTS", details: { email, would_work_if_email_was_verified: true } });
    const closed = await stack.newProject({ magic_link_enabled: true, sign_up_enabled: false });
    expect(await failure(otp.sendSignInCode({ projectId: closed, email: address(), callbackUrl: "https://evil.example/cb", client }))).toBe("SIGN_UP_NOT_ENABLED");
    expect(await failure(otp.sendSignInCode({ projectId, email: address(), callbackUrl: "https://evil.example/cb", client }))).toBe("REDIRECT_URL_NOT_WHITELISTED");
  });

  it("code errors: unknown, other purpose; 20 wrong OTP guesses against a nonce burn the real code", async () => {
    expect(await failure(otp.signInWithCode({ projectId, code: "x".repeat(45), client }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    const { nonce, otp: shown } = await send(address());
    const wrong = shown === "000000" ? "111111" : "000000";
    for (let i = 0; i < 19; i++) expect(await failure(otp.signInWithCode({ projectId, code: `${wrong.slice(0, 5)}${i % 10}${nonce}`, client }))).toMatch(/VERIFICATION_CODE_NOT_FOUND|VERIFICATION_CODE_MAX_ATTEMPTS_REACHED/);
    expect(await failure(otp.signInWithCode({ projectId, code: shown.toLowerCase() + nonce, client }))).toBe("VERIFICATION_CODE_MAX_ATTEMPTS_REACHED");
  });

  it("a user with TOTP gets MULTI_FACTOR_AUTHENTICATION_REQUIRED with an attempt code, not a session", async () => {
    const email = address();
    const { user } = await stack.users.createUser({ projectId, primaryEmail: email, primaryEmailVerified: true, primaryEmailAuthEnabled: true, requiresTotpMfa: true });
    const { code } = await send(email);
    const err = await rpcError(otp.signInWithCode({ projectId, code, client }));
    expect(err).toMatchObject({ code: "MULTI_FACTOR_AUTHENTICATION_REQUIRED" });
    expect((err as { details: { attempt_code: string } }).details.attempt_code).toHaveLength(45);
    const { rows } = await stack.authDb.query(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [user!.id]);
    expect(rows[0].n).toBe(0);
  });

  it("upgrades the caller's anonymous user when the e-mail is new", async () => {
    const { result: anon } = await stack.passwords.signUpAnonymously({ projectId, client });
    const email = address();
    const { code } = await send(email);
    const { result } = await otp.signInWithCode({ projectId, code, anonymousUserId: anon!.userId, client });
    expect(result).toMatchObject({ isNewUser: true, userId: anon!.userId });
    expect((await stack.users.getUser({ projectId, userId: anon!.userId })).user).toMatchObject({ isAnonymous: false, primaryEmail: email, otpAuthEnabled: true });
  });
});
