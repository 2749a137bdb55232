import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hash as bcryptHash } from "@node-rs/bcrypt";
import { decodeProtectedHeader } from "jose";
import { CALLBACK, codeFromMail, failure, outcome, rpcError, startAuthStack, verifyAccessToken, waitFor, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;

beforeAll(async () => {
  // Brute-force protection is covered in rate-limit.int.test.ts; here many wrong passwords in a row are intended.
  stack = await startAuthStack({ VESTIBULE_AUTH_RATE_LIMIT: "off" });
  projectId = await stack.newProject({ allow_localhost: true });
});
afterAll(async () => {
  await stack?.stop();
});

const client = { ip: "8.8.8.8", userAgent: "vitest" };

async function signUp(email: string, password = "correct horse battery", pid = projectId) {
  const { result } = await stack.passwords.signUpWithPassword({ projectId: pid, email, password, verificationCallbackUrl: CALLBACK, client });
  return result!;
}

describe("password sign-up and sign-in", () => {
  it("signs up: user in identity, tokens with every claim, signature verified against the JWKS", async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await signUp("Ann@Example.com");
    expect(result.refreshToken).toMatch(/^[0-9abcdefghjkmnpqrstvwxyz]{45}$/);
    expect(result.isNewUser).toBe(true);
    const header = decodeProtectedHeader(result.accessToken);
    expect(header).toEqual({ alg: "ES256", kid: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/) });
    const { payload } = await verifyAccessToken(stack, projectId, result.accessToken);
    expect(payload).toEqual({
      sub: result.userId,
      project_id: projectId,
      branch_id: "main",
      refresh_token_id: result.sessionId,
      role: "authenticated",
      name: null,
      email: "ann@example.com",
      email_verified: false,
      selected_team_id: null,
      is_anonymous: false,
      is_restricted: false,
      restricted_reason: null,
      requires_totp_mfa: false,
      signed_up_at: expect.any(Number),
      iss: `http://localhost:8102/api/v1/projects/${projectId}`,
      iat: expect.any(Number),
      aud: projectId,
      exp: expect.any(Number),
    });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(Math.abs((payload.signed_up_at as number) - before)).toBeLessThan(5);

    const { user } = await stack.users.getUser({ projectId, userId: result.userId });
    expect(user).toMatchObject({ primaryEmail: "ann@example.com", primaryEmailVerified: false, primaryEmailAuthEnabled: true, hasPassword: true, isAnonymous: false });

    const signIn = (await stack.passwords.signInWithPassword({ projectId, email: " ANN@example.com ", password: "correct horse battery", client })).result!;
    expect(signIn.userId).toBe(result.userId);
    expect(signIn.sessionId).not.toBe(result.sessionId);
    await verifyAccessToken(stack, projectId, signIn.accessToken);
  });

  it("stores an argon2id hash and no secret in clear anywhere in the auth schema", async () => {
    const password = "plaintext-never-stored-7";
    const result = await signUp("secret@example.com", password);
    const { rows } = await stack.authDb.query<{ password_hash: string }>(`SELECT password_hash FROM password_credentials WHERE user_id = $1`, [result.userId]);
    expect(rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const { rows: sessions } = await stack.authDb.query<{ refresh_token_hash: string }>(`SELECT refresh_token_hash FROM sessions WHERE id = $1`, [result.sessionId]);
    expect(sessions[0]!.refresh_token_hash).toMatch(/^[0-9a-f]{64}$/);
    const mail = await stack.waitForMail("secret@example.com");
    const code = codeFromMail(mail);
    // Every text column of every auth table: neither the password, nor the refresh token, nor the code.
    const { rows: tables } = await stack.authDb.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'auth' AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name } of tables) {
      const { rows: dump } = await stack.authDb.query<{ t: string }>(`SELECT t::text AS t FROM auth.${table_name} t`);
      const all = dump.map((r) => r.t).join("\n");
      expect(all, table_name).not.toContain(password);
      expect(all, table_name).not.toContain(result.refreshToken);
      expect(all, table_name).not.toContain(code);
    }
  });

  it("wrong password, unknown e-mail and a user without password all answer EMAIL_PASSWORD_MISMATCH", async () => {
    await signUp("bob@example.com");
    const anonymous = (await stack.passwords.signUpAnonymously({ projectId, client })).result!;
    expect(anonymous.userId).toBeTruthy();
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: "bob@example.com", password: "wrong password!", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: "nobody@example.com", password: "whatever123", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
    const { user } = await stack.users.createUser({ projectId, primaryEmail: "nopass@example.com", primaryEmailAuthEnabled: true });
    expect(user!.hasPassword).toBe(false);
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: "nopass@example.com", password: "whatever123", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
    // An e-mail that is not used for auth does not sign in.
    const { user: notAuth } = await stack.users.createUser({ projectId, primaryEmail: "notauth@example.com", primaryEmailAuthEnabled: false });
    await stack.passwords.setUserCredential({ projectId, userId: notAuth!.id, credential: { case: "password", value: "whatever123" } });
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: "notauth@example.com", password: "whatever123", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
    // Another project's user does not sign in here.
    const other = await stack.newProject();
    expect(await failure(stack.passwords.signInWithPassword({ projectId: other, email: "bob@example.com", password: "correct horse battery", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
  });

  it("takes about as long for an unknown e-mail as for a wrong password (coarse)", async () => {
    await signUp("timing@example.com");
    const time = async (email: string) => {
      const t = performance.now();
      await failure(stack.passwords.signInWithPassword({ projectId, email, password: "not the password", client }));
      return performance.now() - t;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const known: number[] = [];
    const unknown: number[] = [];
    await time("timing@example.com");
    await time("warmup-unknown@example.com");
    for (let i = 0; i < 9; i++) {
      known.push(await time("timing@example.com"));
      unknown.push(await time(`unknown-${i}@example.com`));
    }
    const k = median(known);
    const u = median(unknown);
    // Both do one identity lookup and one argon2id verification; without the dummy hash the unknown case would be
    // several times faster.
    expect(u / k).toBeGreaterThan(0.6);
    expect(u / k).toBeLessThan(1.6);
  });

  it("checks in contract order: password auth off, untrusted callback, sign-up off, password rules, e-mail taken", async () => {
    const noPassword = await stack.newProject({ credential_enabled: false, sign_up_enabled: false, allow_localhost: false });
    const base = { email: "x@example.com", password: "short", verificationCallbackUrl: "https://evil.example/cb", client };
    expect(await failure(stack.passwords.signUpWithPassword({ ...base, projectId: noPassword }))).toBe("PASSWORD_AUTHENTICATION_NOT_ENABLED");
    expect(await failure(stack.passwords.signInWithPassword({ projectId: noPassword, email: "x@example.com", password: "whatever123", client }))).toBe(
      "PASSWORD_AUTHENTICATION_NOT_ENABLED",
    );
    const closed = await stack.newProject({ sign_up_enabled: false, allow_localhost: false, domains: [{ domain: "https://app.example.com", handler_path: "/handler" }] });
    expect(await failure(stack.passwords.signUpWithPassword({ ...base, projectId: closed }))).toBe("REDIRECT_URL_NOT_WHITELISTED");
    expect(await failure(stack.passwords.signUpWithPassword({ ...base, projectId: closed, verificationCallbackUrl: "http://localhost:3000/cb" }))).toBe(
      "REDIRECT_URL_NOT_WHITELISTED",
    );
    expect(await failure(stack.passwords.signUpWithPassword({ ...base, projectId: closed, verificationCallbackUrl: "https://app.example.com/handler/x" }))).toBe(
      "SIGN_UP_NOT_ENABLED",
    );
    const tooShort = await rpcError(stack.passwords.signUpWithPassword({ ...base, projectId, verificationCallbackUrl: CALLBACK }));
    expect(tooShort).toMatchObject({ code: "PASSWORD_TOO_SHORT", details: { min_length: 8 } });
    const tooLong = await rpcError(stack.passwords.signUpWithPassword({ ...base, projectId, password: "x".repeat(71), verificationCallbackUrl: CALLBACK }));
    expect(tooLong).toMatchObject({ code: "PASSWORD_TOO_LONG", details: { maxLength: 70 } });
    await signUp("taken@example.com");
    const taken = await rpcError(signUp("TAKEN@example.com"));
    expect(taken).toMatchObject({ code: "USER_EMAIL_ALREADY_EXISTS", details: { email: "taken@example.com", would_work_if_email_was_verified: false } });
  });

  it("sends the verification e-mail; its code verifies the primary e-mail", async () => {
    const result = await signUp("verify-me@example.com");
    const mail = await stack.waitForMail("verify-me@example.com");
    expect(mail.subject).toBe("Verify your email at Test Project");
    expect(mail.template).toBe("email_verification");
    expect(mail.userId).toBe(result.userId);
    expect(mail.text).toContain(`${CALLBACK}?code=`);
    const code = codeFromMail(mail);
    await stack.verification.checkContactChannelVerificationCode({ projectId, code: code.toUpperCase() });
    await stack.verification.verifyContactChannel({ projectId, code });
    const { user } = await stack.users.getUser({ projectId, userId: result.userId });
    expect(user!.primaryEmailVerified).toBe(true);
    expect(await failure(stack.verification.verifyContactChannel({ projectId, code }))).toBe("VERIFICATION_CODE_ALREADY_USED");
    // The next token carries the verified e-mail.
    const refreshed = await stack.sessions.refreshSession({ projectId, refreshToken: result.refreshToken });
    expect((await verifyAccessToken(stack, projectId, refreshed.accessToken)).payload.email_verified).toBe(true);
  });
});

describe("project settings", () => {
  it("follows configuration changes through identity.project.* events", async () => {
    const pid = await stack.newProject();
    await signUp("settings@example.com", "correct horse battery", pid);
    await stack.passwords.signInWithPassword({ projectId: pid, email: "settings@example.com", password: "correct horse battery", client });
    await stack.projects.updateProject({ projectId: pid, configUpdateJson: JSON.stringify({ credential_enabled: false }) });
    await stack.identity.relay.flush();
    // No TTL wait: the cached settings are dropped by the event.
    await waitFor(
      async () =>
        (await outcome(stack.passwords.signInWithPassword({ projectId: pid, email: "settings@example.com", password: "correct horse battery", client }))) ===
        "PASSWORD_AUTHENTICATION_NOT_ENABLED",
      5_000,
    );
  });

  it("access tokens live auth.accessTokenLifetimeSeconds", async () => {
    // At least 60 s (latest-sdk.md A4: the current SDK wants 45 s left on a fresh token).
    const pid = await stack.newProject({}, { "auth.accessTokenLifetimeSeconds": 90 });
    const s = await signUp("lifetime@example.com", "correct horse battery", pid);
    const { payload } = await verifyAccessToken(stack, pid, s.accessToken);
    expect(payload.exp! - payload.iat!).toBe(90);
  });

  it("a user with TOTP gets MULTI_FACTOR_AUTHENTICATION_REQUIRED with a 45-character attempt code instead of tokens", async () => {
    const { userId } = await stack.passwords.createUserWithCredential({
      user: { projectId, primaryEmail: "mfa@example.com", primaryEmailAuthEnabled: true, requiresTotpMfa: true },
      credential: { case: "password", value: "correct horse battery" },
    });
    const e = await rpcError(stack.passwords.signInWithPassword({ projectId, email: "mfa@example.com", password: "correct horse battery", client }));
    expect(e).toMatchObject({ code: "MULTI_FACTOR_AUTHENTICATION_REQUIRED", details: { attempt_code: expect.stringMatching(/^[0-9a-z]{45}$/) } });
    const { rows } = await stack.authDb.query<{ purpose: string; lifetime: number }>(
      `SELECT purpose, extract(epoch FROM expires_at - created_at)::int AS lifetime FROM verification_codes WHERE user_id = $1`,
      [userId],
    );
    expect(rows).toEqual([{ purpose: "mfa_attempt", lifetime: 300 }]);
    expect((await stack.sessions.listSessions({ projectId, userId })).sessions).toHaveLength(0);
  });
});

describe("anonymous users", () => {
  it("signs up anonymously with the anonymous audience, issuer and keys", async () => {
    const result = (await stack.passwords.signUpAnonymously({ projectId, client })).result!;
    const { payload, protectedHeader } = await verifyAccessToken(stack, projectId, result.accessToken, { anonymous: true });
    expect(payload).toMatchObject({ sub: result.userId, is_anonymous: true, aud: `${projectId}:anon`, email: null, role: "authenticated" });
    expect(payload.iss).toBe(`http://localhost:8102/api/v1/projects-anonymous-users/${projectId}`);
    const keys = await stack.sessions.getVerificationKeys({ projectId, includeAnonymous: true });
    const main = JSON.parse(keys.jwksJson).keys as { kid: string }[];
    const anon = JSON.parse(keys.anonymousJwksJson).keys as { kid: string }[];
    expect(anon.map((k) => k.kid)).toContain(protectedHeader.kid);
    expect(main.map((k) => k.kid)).not.toContain(protectedHeader.kid);
    await expect(verifyAccessToken(stack, projectId, result.accessToken)).rejects.toThrow();
    expect(JSON.parse((await stack.sessions.getVerificationKeys({ projectId })).anonymousJwksJson || "null")).toBeNull();
    const { user } = await stack.users.getUser({ projectId, userId: result.userId });
    expect(user).toMatchObject({ isAnonymous: true, hasPassword: false });
  });

  it("upgrades an anonymous user in place on password sign-up", async () => {
    const anon = (await stack.passwords.signUpAnonymously({ projectId, client })).result!;
    const { result } = await stack.passwords.signUpWithPassword({
      projectId,
      email: "upgraded@example.com",
      password: "correct horse battery",
      verificationCallbackUrl: CALLBACK,
      anonymousUserId: anon.userId,
      client,
    });
    expect(result!.userId).toBe(anon.userId);
    const { payload } = await verifyAccessToken(stack, projectId, result!.accessToken);
    expect(payload).toMatchObject({ sub: anon.userId, is_anonymous: false, email: "upgraded@example.com", aud: projectId });
    const { user } = await stack.users.getUser({ projectId, userId: anon.userId });
    expect(user).toMatchObject({ isAnonymous: false, primaryEmail: "upgraded@example.com", hasPassword: true });
    // The anonymous session lives on and now yields non-anonymous tokens.
    const refreshed = await stack.sessions.refreshSession({ projectId, refreshToken: anon.refreshToken });
    expect((await verifyAccessToken(stack, projectId, refreshed.accessToken)).payload.is_anonymous).toBe(false);
    await stack.passwords.signInWithPassword({ projectId, email: "upgraded@example.com", password: "correct horse battery", client });
  });
});

describe("password changes", () => {
  it("update: needs the old password, keeps the current session, revokes the others", async () => {
    const first = await signUp("update@example.com", "old password 1");
    const second = (await stack.passwords.signInWithPassword({ projectId, email: "update@example.com", password: "old password 1", client })).result!;
    const base = { projectId, userId: first.userId, keepSessionId: first.sessionId, client };
    expect(await failure(stack.passwords.updatePassword({ ...base, oldPassword: "old password 1", newPassword: "short" }))).toBe("PASSWORD_TOO_SHORT");
    expect(await failure(stack.passwords.updatePassword({ ...base, oldPassword: "wrong old pw", newPassword: "new password 2" }))).toBe("PASSWORD_CONFIRMATION_MISMATCH");
    await stack.passwords.updatePassword({ ...base, oldPassword: "old password 1", newPassword: "new password 2" });
    await stack.sessions.refreshSession({ projectId, refreshToken: first.refreshToken });
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: second.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: "update@example.com", password: "old password 1", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
    const third = (await stack.passwords.signInWithPassword({ projectId, email: "update@example.com", password: "new password 2", client })).result!;
    // The refresh token (x-stack-refresh-token) wins over the session id when both are given.
    await stack.passwords.updatePassword({ ...base, keepRefreshToken: third.refreshToken, oldPassword: "new password 2", newPassword: "new password 3" });
    await stack.sessions.refreshSession({ projectId, refreshToken: third.refreshToken });
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: first.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");

    const anon = (await stack.passwords.signUpAnonymously({ projectId, client })).result!;
    expect(await failure(stack.passwords.updatePassword({ projectId, userId: anon.userId, oldPassword: "x", newPassword: "new password 2" }))).toBe(
      "USER_DOES_NOT_HAVE_PASSWORD",
    );
  });

  it("set: only for users without a password; keeps has_password in sync", async () => {
    const { user } = await stack.users.createUser({ projectId, primaryEmail: "setpw@example.com", primaryEmailAuthEnabled: true });
    expect(await failure(stack.passwords.setPassword({ projectId, userId: user!.id, password: "short" }))).toBe("PASSWORD_TOO_SHORT");
    await stack.passwords.setPassword({ projectId, userId: user!.id, password: "first password" });
    expect((await stack.users.getUser({ projectId, userId: user!.id })).user!.hasPassword).toBe(true);
    expect(await failure(stack.passwords.setPassword({ projectId, userId: user!.id, password: "second password" }))).toBe("400 User already has a password set.");
    await stack.passwords.signInWithPassword({ projectId, email: "setpw@example.com", password: "first password", client });
  });

  it("server credential changes revoke every session; clear removes the password", async () => {
    const s = await signUp("server-set@example.com", "first password");
    await stack.passwords.setUserCredential({ projectId, userId: s.userId, credential: { case: "password", value: "second password" } });
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: s.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const s2 = (await stack.passwords.signInWithPassword({ projectId, email: "server-set@example.com", password: "second password", client })).result!;
    await stack.passwords.setUserCredential({ projectId, userId: s.userId, credential: { case: "clear", value: true } });
    expect(await failure(stack.sessions.refreshSession({ projectId, refreshToken: s2.refreshToken }))).toBe("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    expect((await stack.users.getUser({ projectId, userId: s.userId })).user!.hasPassword).toBe(false);
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: "server-set@example.com", password: "second password", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
    expect(await failure(stack.passwords.setUserCredential({ projectId, userId: s.userId, credential: { case: "passwordHash", value: "$1$md5$nope" } }))).toBe(
      "400 Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.",
    );
    expect(
      await failure(stack.passwords.setUserCredential({ projectId, userId: "0b5b3c76-2a5e-4d7b-9f59-2d1f0b9e8c11", credential: { case: "password", value: "some password" } })),
    ).toBe("USER_NOT_FOUND");
  });
});

describe("imported hashes", () => {
  it("creates a user with a bcrypt hash, signs in with it and re-hashes to argon2id", async () => {
    const bcrypt = await bcryptHash("imported password", { cost: 4 });
    const { userId } = await stack.passwords.createUserWithCredential({
      user: { projectId, primaryEmail: "imported@example.com", primaryEmailAuthEnabled: true, signUpMethod: "server" },
      credential: { case: "passwordHash", value: bcrypt },
    });
    expect((await stack.users.getUser({ projectId, userId })).user!.hasPassword).toBe(true);
    const stored = async () =>
      (await stack.authDb.query<{ password_hash: string }>(`SELECT password_hash FROM password_credentials WHERE user_id = $1`, [userId])).rows[0]!.password_hash;
    expect(await stored()).toBe(bcrypt);
    expect(await failure(stack.passwords.signInWithPassword({ projectId, email: "imported@example.com", password: "wrong one!", client }))).toBe("EMAIL_PASSWORD_MISMATCH");
    expect(await stored()).toBe(bcrypt);
    await stack.passwords.signInWithPassword({ projectId, email: "imported@example.com", password: "imported password", client });
    expect(await stored()).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await stack.passwords.signInWithPassword({ projectId, email: "imported@example.com", password: "imported password", client });
  });

  it("accepts argon2id PHC hashes as they are and refuses anything else before creating the user", async () => {
    const { hash } = await import("@node-rs/argon2");
    const phc = await hash("argon password", { memoryCost: 8192, timeCost: 1, parallelism: 1 });
    const { userId } = await stack.passwords.createUserWithCredential({
      user: { projectId, primaryEmail: "phc@example.com", primaryEmailAuthEnabled: true },
      credential: { case: "passwordHash", value: phc },
    });
    await stack.passwords.signInWithPassword({ projectId, email: "phc@example.com", password: "argon password", client });
    const { rows } = await stack.authDb.query<{ password_hash: string }>(`SELECT password_hash FROM password_credentials WHERE user_id = $1`, [userId]);
    expect(rows[0]!.password_hash).toMatch(/m=19456,t=2,p=1/);

    for (const bad of ["$1$abc$def", "plain", "$2a$10$tooShort", "$argon2i$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"]) {
      expect(
        await failure(stack.passwords.createUserWithCredential({ user: { projectId, primaryEmail: "bad-hash@example.com" }, credential: { case: "passwordHash", value: bad } })),
      ).toBe("400 Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.");
    }
    expect((await stack.users.findUserByAuthEmail({ projectId, email: "bad-hash@example.com" })).user).toBeUndefined();
    expect((await stack.users.listUsers({ projectId, query: "bad-hash@example.com" })).users).toHaveLength(0);
  });
});

describe("compensation", () => {
  it("deletes the user identity created when storing the credential fails, so a retry works", async () => {
    await stack.authDb.query(`CREATE FUNCTION auth.fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await stack.authDb.query(`CREATE TRIGGER fail_sessions BEFORE INSERT ON auth.sessions FOR EACH ROW EXECUTE FUNCTION auth.fail_insert()`);
    const count = async (table: string) => Number((await stack.authDb.query<{ n: string }>(`SELECT count(*) AS n FROM auth.${table}`)).rows[0]!.n);
    const credentialsBefore = await count("password_credentials");
    const codesBefore = await count("verification_codes");
    const mailsBefore = await count("outbox WHERE subject = 'auth.email.requested.v1'");
    try {
      const err = await rpcError(signUp("half@example.com")).catch((e: unknown) => e);
      expect(String((err as Error).message)).toMatch(/Internal/i);
      expect((await stack.users.findUserByAuthEmail({ projectId, email: "half@example.com" })).user).toBeUndefined();
      expect((await stack.users.listUsers({ projectId, query: "half@example.com" })).users).toHaveLength(0);
      expect(await count("password_credentials")).toBe(credentialsBefore);
      expect(await count("verification_codes")).toBe(codesBefore);
      expect(await count("outbox WHERE subject = 'auth.email.requested.v1'")).toBe(mailsBefore);
      // Anonymous sign-up: same rule.
      const before = (await stack.users.listUsers({ projectId, includeAnonymous: true })).users.length;
      await expect(stack.passwords.signUpAnonymously({ projectId, client })).rejects.toThrow();
      expect((await stack.users.listUsers({ projectId, includeAnonymous: true })).users.length).toBe(before);
    } finally {
      await stack.authDb.query(`DROP TRIGGER fail_sessions ON auth.sessions`);
      await stack.authDb.query(`DROP FUNCTION auth.fail_insert()`);
    }
    const ok = await signUp("half@example.com");
    expect(ok.userId).toBeTruthy();
  });
});

describe("imported hash work factors", () => {
  it("refuses hashes whose verification would be a denial of service", async () => {
    const { hash } = await import("@node-rs/argon2");
    const huge = (await hash("x", { memoryCost: 8192, timeCost: 1, parallelism: 1 })).replace("m=8192", "m=4194304");
    const slowBcrypt = "$2b$31$VIhIOofSMqGdGlL4wzE//e.77dAQGqNtF/1dT7bqCrVtQuInWy2qi";
    for (const bad of [huge, slowBcrypt]) {
      expect(await failure(stack.passwords.createUserWithCredential({ user: { projectId, primaryEmail: "dos@example.com" }, credential: { case: "passwordHash", value: bad } }))).toBe(
        "400 Invalid password hash. Make sure it's a supported algorithm in Modular Crypt Format.",
      );
    }
  });
});
