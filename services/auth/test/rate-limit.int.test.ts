import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStatusError } from "@vestibule/shared/errors";
import { CALLBACK, codeFromMail, failure, rpcError, startAuthStack, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;
/** A project that chose a small per-IP budget (auth.ipFailuresPerDay = 10). */
let strictProjectId: string;

beforeAll(async () => {
  // Defaults: on; 5 failures per account (windows 1 s, 2 s, 4 s ... 60 s); 100 failures per client IP and project per
  // day (a bucket refilling one failure every 864 s).
  stack = await startAuthStack({ VESTIBULE_AUTH_RESET_CODE_MIN_MS: "0" });
  projectId = await stack.newProject();
  strictProjectId = await stack.newProject({}, { "auth.ipFailuresPerDay": 10 });
});
afterAll(async () => {
  await stack?.stop();
});

let n = 0;
let ipSeq = 0;
/** A fresh public-looking client IP per test, so IP counters of one test do not leak into the next. */
const freshIp = () => `203.0.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`;

async function newUser(project = projectId) {
  const email = `limited${++n}@example.com`;
  await stack.passwords.signUpWithPassword({ projectId: project, email, password: "right password", verificationCallbackUrl: CALLBACK, client: { ip: freshIp() } });
  return email;
}
/** An address nobody signed up with: checked against the dummy hash and counted like a real account. */
const unknownEmail = () => `nobody${++n}@example.com`;
const CODE_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
/**
 * A wrong e-mail verification code from `ip`: it counts against the same per-IP bucket of the project as a wrong
 * password (and against its own nonce only), without an argon2 check, so that tests can spend 100 failures quickly.
 */
async function wrongCode(ip: string, project = projectId): Promise<void> {
  const code = Array.from({ length: 45 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join("");
  expect(await failure(stack.verification.checkContactChannelVerificationCode({ projectId: project, code, client: { ip } }))).toBe("VERIFICATION_CODE_NOT_FOUND");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An IP bucket's 429: Retry-After is the refill interval less the seconds since the block (a busy machine is slow). */
function expectIpBlocked(e: unknown, refillSeconds: number): void {
  expect(isStatusError(e)).toBe(true);
  const wait = (e as { retryAfterSeconds: number }).retryAfterSeconds;
  expect(wait).toBeGreaterThan(refillSeconds - 60);
  expect(wait).toBeLessThanOrEqual(refillSeconds);
  expect(e).toMatchObject({ httpStatus: 429, message: `Too many attempts. Please wait ${wait} seconds and try again.` });
}

describe("sign-in brute-force protection", () => {
  it("after 5 failures: 429 with Retry-After, also for the right password; unlocks after the window; a success resets", async () => {
    const email = await newUser();
    const client = { ip: freshIp() };
    const signIn = (password: string) => stack.passwords.signInWithPassword({ projectId, email, password, client });
    for (let i = 0; i < 5; i++) expect(await failure(signIn("wrong password"))).toBe("EMAIL_PASSWORD_MISMATCH");
    const limited = await rpcError(signIn("right password"));
    expect(isStatusError(limited)).toBe(true);
    expect(limited).toMatchObject({ httpStatus: 429, retryAfterSeconds: 1, message: "Too many attempts. Please wait 1 seconds and try again." });
    await sleep(1100);
    await signIn("right password");
    // The success forgot the failures: four more do not block.
    for (let i = 0; i < 4; i++) expect(await failure(signIn("wrong password"))).toBe("EMAIL_PASSWORD_MISMATCH");
    await signIn("right password");
  });

  it("windows grow: 1 s, then 2 s, then 4 s", async () => {
    const email = await newUser();
    const client = { ip: freshIp() };
    const signIn = (password: string) => stack.passwords.signInWithPassword({ projectId, email, password, client });
    for (let i = 0; i < 5; i++) await failure(signIn("wrong password"));
    expect(await rpcError(signIn("wrong password"))).toMatchObject({ httpStatus: 429, retryAfterSeconds: 1 });
    await sleep(1100);
    expect(await failure(signIn("wrong password"))).toBe("EMAIL_PASSWORD_MISMATCH");
    expect(await rpcError(signIn("wrong password"))).toMatchObject({ httpStatus: 429, retryAfterSeconds: 2 });
    await sleep(2100);
    expect(await failure(signIn("wrong password"))).toBe("EMAIL_PASSWORD_MISMATCH");
    expect(await rpcError(signIn("right password"))).toMatchObject({ httpStatus: 429, retryAfterSeconds: 4 });
  });

  it("the account is limited from every IP, but only for password sign-in: reset codes still work", async () => {
    const email = await newUser();
    for (let i = 0; i < 5; i++) await failure(stack.passwords.signInWithPassword({ projectId, email, password: "wrong password", client: { ip: freshIp() } }));
    expect(await rpcError(stack.passwords.signInWithPassword({ projectId, email, password: "right password", client: { ip: freshIp() } }))).toMatchObject({
      httpStatus: 429,
    });
    const ip = freshIp();
    await stack.passwords.sendPasswordResetCode({ projectId, email, callbackUrl: "http://localhost:3000/reset", client: { ip } });
    const code = codeFromMail(await stack.waitForMail(email, (m) => m.template === "password_reset"));
    await stack.passwords.checkPasswordResetCode({ projectId, code, client: { ip } });
    await stack.passwords.resetPassword({ projectId, code, password: "brand new password", client: { ip } });
  });

  it("one noisy client IP is throttled after 100 failures a day across accounts (the right password too), then refills slowly; other IPs are not", async () => {
    const ip = freshIp();
    const email = await newUser();
    for (let i = 0; i < 5; i++) {
      expect(await failure(stack.passwords.signInWithPassword({ projectId, email: unknownEmail(), password: "guess", client: { ip } }))).toBe("EMAIL_PASSWORD_MISMATCH");
    }
    for (let i = 0; i < 95; i++) await wrongCode(ip);
    // Empty: the next failure may come once one has refilled (86400 s / 100).
    expectIpBlocked(await rpcError(stack.passwords.signInWithPassword({ projectId, email, password: "right password", client: { ip } })), 864);
    await stack.passwords.signInWithPassword({ projectId, email, password: "right password", client: { ip: freshIp() } });

    // 864 s later (the counter's clock moved back): one more failure is allowed, then it is empty again.
    await stack.authDb.query("UPDATE attempt_counters SET last_failure_at = last_failure_at - interval '864 seconds', blocked_until = now() WHERE failures >= 100");
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: unknownEmail(), password: "guess", client: { ip } }))).toBe("EMAIL_PASSWORD_MISMATCH");
    expectIpBlocked(await rpcError(stack.passwords.signInWithPassword({ projectId, email, password: "right password", client: { ip } })), 864);
  }, 180_000);

  it("a NAT: many users behind one IP with a few failures each are not locked out", async () => {
    const ip = freshIp();
    const users = await Promise.all(Array.from({ length: 3 }, () => newUser()));
    // 45 people mistype twice each (90 failures from the address: three mistype their password, the others a code),
    // then three of them sign in.
    for (let person = 0; person < 45; person++) {
      for (let k = 0; k < 2; k++) {
        if (person < users.length) {
          const email = users[person]!;
          expect(await failure(stack.passwords.signInWithPassword({ projectId, email, password: `typo ${k}`, client: { ip } }))).toBe("EMAIL_PASSWORD_MISMATCH");
        } else await wrongCode(ip);
      }
    }
    for (const email of users) await stack.passwords.signInWithPassword({ projectId, email, password: "right password", client: { ip } });
  }, 180_000);

  it("per project: one project's failures from an IP never throttle another project; a project can set its own budget", async () => {
    const ip = freshIp();
    const emailB = await newUser(strictProjectId);
    for (let i = 0; i < 3; i++) {
      expect(await failure(stack.passwords.signInWithPassword({ projectId: strictProjectId, email: unknownEmail(), password: "guess", client: { ip } }))).toBe(
        "EMAIL_PASSWORD_MISMATCH",
      );
    }
    for (let i = 0; i < 7; i++) await wrongCode(ip, strictProjectId);
    // auth.ipFailuresPerDay = 10: empty after 10, refilling one every 8640 s.
    expectIpBlocked(await rpcError(stack.passwords.signInWithPassword({ projectId: strictProjectId, email: emailB, password: "right password", client: { ip } })), 8640);
    // The same address in the other project is untouched.
    const emailA = await newUser();
    await stack.passwords.signInWithPassword({ projectId, email: emailA, password: "right password", client: { ip } });
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: unknownEmail(), password: "guess", client: { ip } }))).toBe("EMAIL_PASSWORD_MISMATCH");
  }, 120_000);

  it("development mode: loopback clients are not counted per IP (the account limit still applies)", async () => {
    for (const ip of ["127.0.0.1", "::1", "::ffff:127.0.0.2"]) {
      expect(await failure(stack.passwords.signInWithPassword({ projectId: strictProjectId, email: unknownEmail(), password: "guess", client: { ip } }))).toBe(
        "EMAIL_PASSWORD_MISMATCH",
      );
      for (let i = 0; i < 11; i++) await wrongCode(ip, strictProjectId);
    }
    const email = await newUser(strictProjectId);
    for (let i = 0; i < 5; i++) await failure(stack.passwords.signInWithPassword({ projectId: strictProjectId, email, password: "wrong", client: { ip: "127.0.0.1" } }));
    expect(await rpcError(stack.passwords.signInWithPassword({ projectId: strictProjectId, email, password: "right password", client: { ip: "127.0.0.1" } }))).toMatchObject({
      httpStatus: 429,
    });
  }, 120_000);
});

describe("code brute-force protection", () => {
  it("guessing codes from one IP is limited; so is guessing one nonce from many IPs", async () => {
    const ip = freshIp();
    let limited = false;
    for (let i = 0; i < 11 && !limited; i++) {
      const guess = `${i.toString(32).padStart(45, "0")}`.replace(/[ilou]/g, "0");
      const e = await rpcError(stack.verification.checkContactChannelVerificationCode({ projectId: strictProjectId, code: guess, client: { ip } }));
      if (!("code" in e)) {
        expect(e).toMatchObject({ httpStatus: 429, retryAfterSeconds: expect.any(Number) });
        limited = true;
      } else expect(e.code).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    expect(limited).toBe(true);

    const nonce = "abcdefghjkmnpqrstvwxyz0123456789abcdefg";
    expect(nonce).toHaveLength(39);
    for (let i = 0; i < 5; i++) {
      expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code: `00000${i}${nonce}`, client: { ip: freshIp() } }))).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    // A nonce guessed too often answers the contract's VERIFICATION_CODE_MAX_ATTEMPTS_REACHED (400), not 429 (issue 13).
    expect(await failure(stack.passwords.checkPasswordResetCode({ projectId, code: `000009${nonce}`, client: { ip: freshIp() } }))).toBe(
      "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED",
    );
    // The same nonce for another purpose is another account.
    expect(await failure(stack.verification.checkContactChannelVerificationCode({ projectId, code: `000009${nonce}`, client: { ip: freshIp() } }))).toBe(
      "VERIFICATION_CODE_NOT_FOUND",
    );
  });
});

describe("configuration", () => {
  it("can be switched off", async () => {
    const off = await startAuthStack({ VESTIBULE_AUTH_RATE_LIMIT: "off" });
    try {
      const pid = await off.newProject();
      await off.passwords.signUpWithPassword({ projectId: pid, email: "x@example.com", password: "right password", verificationCallbackUrl: CALLBACK });
      for (let i = 0; i < 8; i++) expect(await failure(off.passwords.signInWithPassword({ projectId: pid, email: "x@example.com", password: "wrong" }))).toBe("EMAIL_PASSWORD_MISMATCH");
      await off.passwords.signInWithPassword({ projectId: pid, email: "x@example.com", password: "right password" });
    } finally {
      await off.stop();
    }
  });
});
