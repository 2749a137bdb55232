/**
 * Brute-force protection under concurrency: guesses sent all at once (concurrent calls, or one SignInWithPasswords
 * batch as the gateway's batcher sends them) are each counted before anything is checked, so no more than the allowed
 * number are checked (argon2 verifications, TOTP comparisons, code look-ups) and the rest get the usual 429. Thresholds:
 * 5 failures per account (the default), 12 per client IP (lowered to keep the file short).
 */
import { randomBytes, randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import { MfaService } from "@vestibule/proto/auth/v1/mfa_service";
import { OtpService } from "@vestibule/proto/auth/v1/otp_service";
import type { SignInWithPasswordResult } from "@vestibule/proto/auth/v1/password_service";
import { fromConnectError } from "@vestibule/shared/errors";
import { createServiceClient } from "@vestibule/shared/rpc";
import { authRuntime } from "../src/runtime.ts";
import { securityRuntime } from "../src/security-runtime.ts";
import { codeFromMail, rpcError, startAuthStack, type AuthStack } from "./support.ts";

const ACCOUNT_FAILURES = 5;
const IP_FAILURES = 12;
const GUESSES = 60;

let stack: AuthStack;
let projectId: string;
let mfa: ReturnType<typeof createServiceClient<typeof MfaService>>;
let otp: ReturnType<typeof createServiceClient<typeof OtpService>>;

beforeAll(async () => {
  // Blocks of 60 s: a guess that waited for the ones in flight must see their block, however slow the machine is.
  stack = await startAuthStack({ VESTIBULE_AUTH_RATE_LIMIT_BASE_SECONDS: "60", VESTIBULE_AUTH_RATE_LIMIT_IP_FAILURES: String(IP_FAILURES) });
  projectId = await stack.newProject({ magic_link_enabled: true });
  const rpc = { baseUrl: stack.env.VESTIBULE_AUTH_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET!, timeoutMs: 60_000 };
  mfa = createServiceClient(MfaService, rpc);
  otp = createServiceClient(OtpService, rpc);
});
afterAll(async () => {
  await stack?.stop();
});

const PASSWORD = "correct horse battery";
let n = 0;
let ipSeq = 0;
/** A fresh public-looking client IP per call, so only the account's counter is shared unless a test says otherwise. */
const freshIp = () => `198.18.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;
const address = () => `parallel${++n}.${Date.now().toString(36)}@example.com`;

/** Password checks (argon2, real and dummy) and TOTP comparisons the auth service has made so far. */
const passwordChecks = () => authRuntime(stack.auth.ctx).hasher.verifications;
const totpChecks = () => securityRuntime(authRuntime(stack.auth.ctx)).totp.verifications;

/** "ok", a known error's code, or "429" (asserting the 429's Retry-After and text, as a single sign-in gets them). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    const e = fromConnectError(err);
    if (!e) throw err;
    if ("code" in e) return e.code;
    expect(e.httpStatus).toBe(429);
    expect(e.retryAfterSeconds).toBeGreaterThan(0);
    expect(e.message).toBe(`Too many attempts. Please wait ${e.retryAfterSeconds} seconds and try again.`);
    return "429";
  }
}

function batchOutcome(r: SignInWithPasswordResult): string {
  if (r.outcome.case === "ok") return "ok";
  const e = r.outcome.value!;
  if (e.knownError) return e.knownError.code;
  if (e.statusError) {
    expect(e.statusError.httpStatus).toBe(429);
    return "429";
  }
  return `connect ${e.code}`;
}

const tally = (outcomes: readonly string[]) => outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o]: (t[o] ?? 0) + 1 }), {});

async function newUser(): Promise<{ email: string; userId: string }> {
  const email = address();
  const { userId } = await stack.passwords.createUserWithCredential({
    user: { projectId, primaryEmail: email, primaryEmailAuthEnabled: true },
    credential: { case: "password", value: PASSWORD },
  });
  return { email, userId };
}

describe("parallel password guesses", () => {
  it(`${GUESSES} wrong passwords for one account at once: only ${ACCOUNT_FAILURES} are checked, the rest get 429`, async () => {
    const { email } = await newUser();
    const before = passwordChecks();
    const outcomes = await Promise.all(
      Array.from({ length: GUESSES }, (_, i) => outcome(stack.passwords.signInWithPassword({ projectId, email, password: `wrong ${i}`, client: { ip: freshIp() } }))),
    );
    const checked = passwordChecks() - before;
    expect(checked).toBe(ACCOUNT_FAILURES);
    expect(tally(outcomes)).toEqual({ EMAIL_PASSWORD_MISMATCH: ACCOUNT_FAILURES, 429: GUESSES - ACCOUNT_FAILURES });
    // Still blocked for the right password, the same way as after failures one at a time.
    expect(await outcome(stack.passwords.signInWithPassword({ projectId, email, password: PASSWORD, client: { ip: freshIp() } }))).toBe("429");
  });

  it(`the same ${GUESSES} guesses in one SignInWithPasswords batch: each item counts, only ${ACCOUNT_FAILURES} are checked`, async () => {
    const { email } = await newUser();
    const before = passwordChecks();
    const requests = Array.from({ length: GUESSES }, (_, i) => ({ projectId, email, password: `wrong ${i}`, client: { ip: freshIp() } }));
    const { results } = await stack.passwords.signInWithPasswords({ requests });
    expect(passwordChecks() - before).toBe(ACCOUNT_FAILURES);
    const outcomes = results.map(batchOutcome);
    // In batch order: the first items are checked, the later ones refused.
    expect(outcomes).toEqual([...Array<string>(ACCOUNT_FAILURES).fill("EMAIL_PASSWORD_MISMATCH"), ...Array<string>(GUESSES - ACCOUNT_FAILURES).fill("429")]);
  });

  it(`${GUESSES} guesses at once from one IP across accounts: only ${IP_FAILURES} are checked`, async () => {
    const ip = freshIp();
    const before = passwordChecks();
    // Unknown e-mails: checked against the dummy hash, counted like real accounts.
    const outcomes = await Promise.all(
      Array.from({ length: GUESSES }, () => outcome(stack.passwords.signInWithPassword({ projectId, email: address(), password: "guess", client: { ip } }))),
    );
    expect(passwordChecks() - before).toBe(IP_FAILURES);
    expect(tally(outcomes)).toEqual({ EMAIL_PASSWORD_MISMATCH: IP_FAILURES, 429: GUESSES - IP_FAILURES });
  });

  it("a right password within the limit signs in, also among wrong ones sent at the same time", async () => {
    const { email } = await newUser();
    const passwords = ["wrong 1", "wrong 2", PASSWORD, "wrong 3", "wrong 4"];
    const outcomes = await Promise.all(passwords.map((password) => outcome(stack.passwords.signInWithPassword({ projectId, email, password, client: { ip: freshIp() } }))));
    expect(outcomes[2]).toBe("ok");
    expect(tally(outcomes)).toEqual({ ok: 1, EMAIL_PASSWORD_MISMATCH: 4 });
    // Whether the success forgot those failures depends on which was settled last; one more success forgets them.
    expect(await outcome(stack.passwords.signInWithPassword({ projectId, email, password: PASSWORD, client: { ip: freshIp() } }))).toBe("ok");
    // A wrong and the right password in one batch: both are checked.
    const { results } = await stack.passwords.signInWithPasswords({
      requests: [
        { projectId, email, password: "wrong 5", client: { ip: freshIp() } },
        { projectId, email, password: PASSWORD, client: { ip: freshIp() } },
      ],
    });
    expect(results.map(batchOutcome)).toEqual(["EMAIL_PASSWORD_MISMATCH", "ok"]);
  });

  it("right passwords for one account from one IP at once all sign in (the ones beyond the in-flight limit wait, not 429)", async () => {
    const { email } = await newUser();
    const ip = freshIp();
    const before = passwordChecks();
    const single = await Promise.all(Array.from({ length: 12 }, () => outcome(stack.passwords.signInWithPassword({ projectId, email, password: PASSWORD, client: { ip } }))));
    expect(tally(single)).toEqual({ ok: 12 });
    const { results } = await stack.passwords.signInWithPasswords({
      requests: Array.from({ length: 12 }, () => ({ projectId, email, password: PASSWORD, client: { ip } })),
    });
    expect(results.map(batchOutcome)).toEqual(Array<string>(12).fill("ok"));
    expect(passwordChecks() - before).toBe(24);
  });

  it("successes from an IP never count against it (as before): its 12th failure still blocks it, not a success", async () => {
    const ip = freshIp();
    const { email } = await newUser();
    for (let i = 0; i < IP_FAILURES - 1; i++) {
      expect(await outcome(stack.passwords.signInWithPassword({ projectId, email: address(), password: "guess", client: { ip } }))).toBe("EMAIL_PASSWORD_MISMATCH");
    }
    for (let i = 0; i < 3; i++) expect(await outcome(stack.passwords.signInWithPassword({ projectId, email, password: PASSWORD, client: { ip } }))).toBe("ok");
    expect(await outcome(stack.passwords.signInWithPassword({ projectId, email: address(), password: "guess", client: { ip } }))).toBe("EMAIL_PASSWORD_MISMATCH");
    expect(await outcome(stack.passwords.signInWithPassword({ projectId, email, password: PASSWORD, client: { ip } }))).toBe("429");
  });
});

describe("parallel TOTP guesses", () => {
  it(`${GUESSES} wrong TOTP codes for one user at once (over many attempt codes): only ${ACCOUNT_FAILURES} are compared`, async () => {
    const secret = randomBytes(20);
    const { email, userId } = await newUser();
    await mfa.setTotpSecret({ projectId, userId, secret });
    // 12 password sign-ins, 12 attempt codes: 5 guesses on each stays under each attempt code's own limits.
    const attemptCodes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const e = await rpcError(stack.passwords.signInWithPassword({ projectId, email, password: PASSWORD, client: { ip: freshIp() } }));
      expect(e).toMatchObject({ code: "MULTI_FACTOR_AUTHENTICATION_REQUIRED" });
      attemptCodes.push((e as { details: { attempt_code: string } }).details.attempt_code);
    }
    const epoch = Math.floor(Date.now() / 1000);
    const valid = new Set(await Promise.all([-60, -30, 0, 30, 60].map((d) => generate({ secret, epoch: epoch + d }))));
    let wrong = randomInt(1_000_000);
    while (valid.has(String(wrong).padStart(6, "0"))) wrong = (wrong + 1) % 1_000_000;
    const totp = String(wrong).padStart(6, "0");

    const before = totpChecks();
    const outcomes = await Promise.all(
      Array.from({ length: GUESSES }, (_, i) => outcome(mfa.signInWithTotp({ projectId, attemptCode: attemptCodes[i % attemptCodes.length]!, totp, client: { ip: freshIp() } }))),
    );
    expect(totpChecks() - before).toBe(ACCOUNT_FAILURES);
    expect(tally(outcomes)).toEqual({ INVALID_TOTP_CODE: ACCOUNT_FAILURES, 429: GUESSES - ACCOUNT_FAILURES });
  });
});

describe("parallel one-time code guesses", () => {
  it(`${GUESSES} wrong OTPs for one e-mailed code at once: only ${ACCOUNT_FAILURES} are looked up`, async () => {
    const email = address();
    const { nonce } = await otp.sendSignInCode({ projectId, email, callbackUrl: "http://localhost:3000/handler/magic-link-callback", client: { ip: freshIp() } });
    const mail = await stack.waitForMail(email, (m) => m.template === "magic_link");
    const real = codeFromMail(mail).slice(0, 6);
    const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";
    const guesses = new Set<string>();
    while (guesses.size < GUESSES) {
      const g = Array.from({ length: 6 }, () => alphabet[randomInt(alphabet.length)]).join("");
      if (g !== real) guesses.add(g);
    }
    const outcomes = await Promise.all([...guesses].map((g) => outcome(otp.signInWithCode({ projectId, code: g + nonce, client: { ip: freshIp() } }))));
    // Every look-up counts one attempt on the code (verification_codes.attempts): what was checked, from the rows.
    const { rows } = await stack.authDb.query<{ attempts: number }>(`SELECT attempts FROM verification_codes WHERE purpose = 'otp_sign_in' AND data->>'email' = $1`, [email]);
    expect(rows).toEqual([{ attempts: ACCOUNT_FAILURES }]);
    // Past the limit a code answers the contract's VERIFICATION_CODE_MAX_ATTEMPTS_REACHED (issue 13), not a 429.
    expect(tally(outcomes)).toEqual({ VERIFICATION_CODE_NOT_FOUND: ACCOUNT_FAILURES, VERIFICATION_CODE_MAX_ATTEMPTS_REACHED: GUESSES - ACCOUNT_FAILURES });
  });
});
