import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MfaService } from "@vestibule/proto/auth/v1/mfa_service";
import { PasskeyService } from "@vestibule/proto/auth/v1/passkey_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { failure, outcome, rpcError, startAuthStack, verifyAccessToken, waitFor, type AuthStack } from "./support.ts";
import { SoftwareAuthenticator } from "./software-authenticator.ts";

let stack: AuthStack;
let passkeys: ReturnType<typeof createServiceClient<typeof PasskeyService>>;
let mfa: ReturnType<typeof createServiceClient<typeof MfaService>>;
let projectId: string;

const APP = "https://app.example.com";
const PLACEHOLDER = "THIS_VALUE_WILL_BE_REPLACED.example.com";
const client = { ip: "9.9.9.9", userAgent: "vitest" };

beforeAll(async () => {
  stack = await startAuthStack({ VESTIBULE_AUTH_RATE_LIMIT: "off" });
  const rpc = { baseUrl: stack.env.VESTIBULE_AUTH_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! };
  passkeys = createServiceClient(PasskeyService, rpc);
  mfa = createServiceClient(MfaService, rpc);
  projectId = await stack.newProject({ passkey_enabled: true, allow_localhost: true, domains: [{ domain: APP, handler_path: "/handler" }] });
});
afterAll(async () => {
  await stack?.stop();
});

let n = 0;
async function newUser(project = projectId) {
  const { user } = await stack.users.createUser({ projectId: project, primaryEmail: `pk${++n}.${Date.now().toString(36)}@example.com`, displayName: `Passkey user ${n}` });
  return user!;
}

type Options = { challenge: string; user: { id: string; name: string }; rp: { id: string; name: string }; excludeCredentials?: { id: string }[] };

async function startRegistration(userId: string, project = projectId) {
  const res = await passkeys.initiatePasskeyRegistration({ projectId: project, userId });
  return { options: JSON.parse(res.optionsJson) as Options, code: res.code };
}

/** Registers a new passkey of the user on `authenticator`; returns the response. */
async function register(userId: string, authenticator: SoftwareAuthenticator, opts: Parameters<SoftwareAuthenticator["register"]>[1] = {}, project = projectId) {
  const { options, code } = await startRegistration(userId, project);
  const credential = authenticator.register(options, opts);
  return passkeys.registerPasskey({ projectId: project, userId, credentialJson: JSON.stringify(credential), code, client });
}

async function startSignIn(project = projectId) {
  const res = await passkeys.initiatePasskeyAuthentication({ projectId: project });
  return { options: JSON.parse(res.optionsJson) as { challenge: string; rpId: string; allowCredentials?: unknown[] }, code: res.code };
}

async function signIn(authenticator: SoftwareAuthenticator, opts: Parameters<SoftwareAuthenticator["authenticate"]>[1] = {}, project = projectId) {
  const { options, code } = await startSignIn(project);
  const response = authenticator.authenticate(options, opts);
  return passkeys.signInWithPasskey({ projectId: project, authenticationResponseJson: JSON.stringify(response), code, client });
}

describe("passkey registration and sign-in", () => {
  it("registers a passkey (placeholder relying party, user handle) and signs in with it alone (discoverable)", async () => {
    const user = await newUser();
    const { options, code } = await startRegistration(user.id);
    expect(options.rp).toEqual({ id: PLACEHOLDER, name: "Test Project" });
    expect(Buffer.from(options.user.id, "base64url").toString("hex")).toBe(user.id.replace(/-/g, ""));
    expect(code).toHaveLength(45);
    const authenticator = new SoftwareAuthenticator();
    const credential = authenticator.register(options);
    const reg = await passkeys.registerPasskey({ projectId, userId: user.id, credentialJson: JSON.stringify(credential), code, client });
    expect(reg.userHandle).toBe(options.user.id);
    expect((await stack.users.getUser({ projectId, userId: user.id })).user!.passkeyAuthEnabled).toBe(true);
    const { rows } = await stack.authDb.query(`SELECT credential_id, counter, transports, rp_id, origin FROM passkey_credentials WHERE user_id = $1`, [user.id]);
    expect(rows).toEqual([{ credential_id: credential.id, counter: 0, transports: ["internal"], rp_id: "localhost", origin: "http://localhost:3000" }]);

    const { options: request, code: signInCode } = await startSignIn();
    expect(request.rpId).toBe(PLACEHOLDER);
    expect(request.allowCredentials ?? []).toEqual([]);
    const response = authenticator.authenticate(request);
    const { result } = await passkeys.signInWithPasskey({ projectId, authenticationResponseJson: JSON.stringify(response), code: signInCode, client });
    expect(result).toMatchObject({ userId: user.id, isNewUser: false });
    const { payload } = await verifyAccessToken(stack, projectId, result!.accessToken);
    expect(payload.sub).toBe(user.id);
    const after = await stack.authDb.query(`SELECT counter, last_used_at FROM passkey_credentials WHERE user_id = $1`, [user.id]);
    expect(after.rows[0]).toMatchObject({ counter: 1 });
    expect(after.rows[0].last_used_at).toBeInstanceOf(Date);
    const { passkeys: list } = await passkeys.listPasskeys({ projectId, userId: user.id });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: "Passkey 1", credentialId: credential.id });
    expect(list[0]!.lastUsedAtMillis).toBeGreaterThan(0n);
  });

  it("keeps several passkeys per user (the next registration excludes the ones it has); each signs in", async () => {
    const user = await newUser();
    const phone = new SoftwareAuthenticator();
    const laptop = new SoftwareAuthenticator({ origin: APP });
    await register(user.id, phone);
    const { options } = await startRegistration(user.id);
    expect(options.excludeCredentials?.map((c) => c.id)).toEqual([phone.credentials[0]!.id.toString("base64url")]);
    await register(user.id, laptop);
    expect((await signIn(phone)).result!.userId).toBe(user.id);
    expect((await signIn(laptop)).result!.userId).toBe(user.id);
    const { passkeys: list } = await passkeys.listPasskeys({ projectId, userId: user.id });
    expect(list.map((p) => p.name)).toEqual(["Passkey 1", "Passkey 2"]);

    const renamed = await passkeys.updatePasskey({ projectId, userId: user.id, passkeyId: list[0]!.id, name: "Phone" });
    expect(renamed.passkey!.name).toBe("Phone");
    await passkeys.deletePasskey({ projectId, userId: user.id, passkeyId: list[0]!.id });
    expect(await failure(signIn(phone))).toBe("PASSKEY_AUTHENTICATION_FAILED");
    expect((await stack.users.getUser({ projectId, userId: user.id })).user!.passkeyAuthEnabled).toBe(true);
    await passkeys.deletePasskey({ projectId, userId: user.id, passkeyId: list[1]!.id });
    expect((await stack.users.getUser({ projectId, userId: user.id })).user!.passkeyAuthEnabled).toBe(false);
    expect(await failure(passkeys.deletePasskey({ projectId, userId: user.id, passkeyId: list[1]!.id }))).toBe("404 Passkey not found.");
  });

  it("refuses a response to another challenge, for registration and sign-in", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const other = await startRegistration(user.id);
    expect(await failure(register(user.id, authenticator, { challenge: other.options.challenge }))).toBe("PASSKEY_REGISTRATION_FAILED");
    await register(user.id, authenticator);
    const e = await rpcError(signIn(authenticator, { challenge: (await startSignIn()).options.challenge }));
    expect(e).toMatchObject({ code: "PASSKEY_AUTHENTICATION_FAILED" });
    expect(e.message).toMatch(/challenge/i);
  });

  it("uses a challenge once: a replayed registration or assertion gets VERIFICATION_CODE_ALREADY_USED", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { options, code } = await startRegistration(user.id);
    const credentialJson = JSON.stringify(authenticator.register(options));
    await passkeys.registerPasskey({ projectId, userId: user.id, credentialJson, code, client });
    expect(await failure(passkeys.registerPasskey({ projectId, userId: user.id, credentialJson, code, client }))).toBe("VERIFICATION_CODE_ALREADY_USED");

    const request = await startSignIn();
    const json = JSON.stringify(authenticator.authenticate(request.options));
    await passkeys.signInWithPasskey({ projectId, authenticationResponseJson: json, code: request.code, client });
    expect(await failure(passkeys.signInWithPasskey({ projectId, authenticationResponseJson: json, code: request.code, client }))).toBe(
      "VERIFICATION_CODE_ALREADY_USED",
    );
  });

  it("refuses an expired challenge", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    await register(user.id, authenticator);
    const request = await startSignIn();
    const { rowCount } = await stack.authDb.query(
      `UPDATE verification_codes SET expires_at = now() - interval '1 second' WHERE project_id = $1 AND purpose = 'passkey_authentication' AND data->>'challenge' = $2`,
      [projectId, request.options.challenge],
    );
    expect(rowCount).toBe(1);
    const json = JSON.stringify(authenticator.authenticate(request.options));
    expect(await failure(passkeys.signInWithPasskey({ projectId, authenticationResponseJson: json, code: request.code, client }))).toBe("VERIFICATION_CODE_EXPIRED");
    // Challenges live 5 minutes.
    const fresh = await startSignIn();
    const { rows } = await stack.authDb.query<{ s: number }>(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM verification_codes WHERE data->>'challenge' = $1`,
      [fresh.options.challenge],
    );
    expect(rows[0]!.s).toBe(300);
  });

  it("checks the signature counter: a response whose counter does not grow is refused", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    await register(user.id, authenticator);
    await signIn(authenticator, { counter: 10 });
    expect(await failure(signIn(authenticator, { counter: 10 }))).toBe("PASSKEY_AUTHENTICATION_FAILED");
    expect(await failure(signIn(authenticator, { counter: 3 }))).toBe("PASSKEY_AUTHENTICATION_FAILED");
    expect((await signIn(authenticator, { counter: 11 })).result!.userId).toBe(user.id);
    const { rows } = await stack.authDb.query(`SELECT counter FROM passkey_credentials WHERE user_id = $1`, [user.id]);
    expect(rows[0]).toEqual({ counter: 11 });
  });

  it("binds registration to the user that started it, and a credential to its user and project", async () => {
    const alice = await newUser();
    const bob = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const { options, code } = await startRegistration(alice.id);
    const credentialJson = JSON.stringify(authenticator.register(options));
    expect(await failure(passkeys.registerPasskey({ projectId, userId: bob.id, credentialJson, code, client }))).toBe("PASSKEY_REGISTRATION_FAILED");
    await passkeys.registerPasskey({ projectId, userId: alice.id, credentialJson, code, client });
    // A user handle naming another user.
    expect(await failure(signIn(authenticator, { userHandle: Buffer.from(bob.id.replace(/-/g, ""), "hex").toString("base64url") }))).toBe(
      "PASSKEY_AUTHENTICATION_FAILED",
    );
    // Without a user handle the credential still names its user.
    expect((await signIn(authenticator, { userHandle: null })).result!.userId).toBe(alice.id);

    // Another project (also trusting localhost) knows neither the credential nor the first project's codes.
    const other = await stack.newProject({ passkey_enabled: true, allow_localhost: true });
    const e = await rpcError(signIn(authenticator, {}, other));
    expect(e).toMatchObject({ code: "PASSKEY_AUTHENTICATION_FAILED" });
    const request = await startSignIn();
    const json = JSON.stringify(authenticator.authenticate(request.options));
    expect(await failure(passkeys.signInWithPasskey({ projectId: other, authenticationResponseJson: json, code: request.code, client }))).toBe(
      "VERIFICATION_CODE_NOT_FOUND",
    );
    // The same credential id cannot be registered twice.
    const again = await startRegistration(bob.id);
    const duplicate = authenticator.register(again.options, { credentialId: authenticator.credentials[0]!.id });
    const dup = await rpcError(passkeys.registerPasskey({ projectId, userId: bob.id, credentialJson: JSON.stringify(duplicate), code: again.code, client }));
    expect(dup).toMatchObject({ code: "PASSKEY_REGISTRATION_FAILED", message: "This passkey is already registered" });
  });

  it("is gated by the project's passkey_enabled and the user's passkey_auth_enabled", async () => {
    const off = await stack.newProject({ passkey_enabled: false, allow_localhost: true });
    const offUser = await newUser(off);
    expect(await failure(passkeys.initiatePasskeyRegistration({ projectId: off, userId: offUser.id }))).toBe("PASSKEY_AUTHENTICATION_NOT_ENABLED");
    expect(await failure(passkeys.initiatePasskeyAuthentication({ projectId: off }))).toBe("PASSKEY_AUTHENTICATION_NOT_ENABLED");
    expect(await failure(passkeys.registerPasskey({ projectId: off, userId: offUser.id, credentialJson: "{}", code: "x".repeat(45), client }))).toBe(
      "PASSKEY_AUTHENTICATION_NOT_ENABLED",
    );
    expect(await failure(passkeys.signInWithPasskey({ projectId: off, authenticationResponseJson: "{}", code: "x".repeat(45), client }))).toBe(
      "PASSKEY_AUTHENTICATION_NOT_ENABLED",
    );

    // A project that turns passkeys off after a registration refuses the sign-in.
    const later = await stack.newProject({ passkey_enabled: true, allow_localhost: true });
    const laterUser = await newUser(later);
    const authenticator = new SoftwareAuthenticator();
    await register(laterUser.id, authenticator, {}, later);
    const pending = await startSignIn(later);
    await stack.projects.updateProject({ projectId: later, configUpdateJson: JSON.stringify({ passkey_enabled: false }) });
    await waitFor(async () => (await outcome(passkeys.initiatePasskeyAuthentication({ projectId: later }))) === "PASSKEY_AUTHENTICATION_NOT_ENABLED");
    const json = JSON.stringify(authenticator.authenticate(pending.options));
    expect(await failure(passkeys.signInWithPasskey({ projectId: later, authenticationResponseJson: json, code: pending.code, client }))).toBe(
      "PASSKEY_AUTHENTICATION_NOT_ENABLED",
    );

    // Turning passkey sign-in off for a user disables at once and then removes the user's credentials.
    const user = await newUser();
    const mine = new SoftwareAuthenticator();
    await register(user.id, mine);
    await stack.users.updateUser({ projectId, userId: user.id, passkeyAuthEnabled: false });
    const e = await rpcError(signIn(mine));
    expect(e).toMatchObject({ code: "PASSKEY_AUTHENTICATION_FAILED" });
    expect((await passkeys.listPasskeys({ projectId, userId: user.id })).passkeys).toEqual([]);
    await waitFor(async () => {
      const { rows } = await stack.authDb.query(`SELECT 1 FROM passkey_credentials WHERE user_id = $1`, [user.id]);
      return rows.length === 0;
    });
    // A new registration turns it on again, with only the new passkey.
    await register(user.id, mine);
    expect((await passkeys.listPasskeys({ projectId, userId: user.id })).passkeys).toHaveLength(1);
    expect((await signIn(mine)).result!.userId).toBe(user.id);
  });

  it("removes a deleted user's passkeys", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    await register(user.id, authenticator);
    await stack.users.deleteUser({ projectId, userId: user.id });
    await waitFor(async () => {
      const { rows } = await stack.authDb.query(`SELECT 1 FROM passkey_credentials WHERE user_id = $1`, [user.id]);
      return rows.length === 0;
    });
    expect(await failure(signIn(authenticator))).toBe("PASSKEY_AUTHENTICATION_FAILED");
  });

  it("takes the relying party from trusted origins only: RP id mismatch, untrusted origin, IP host, other domain", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const reason = async (p: Promise<unknown>) => {
      const e = await rpcError(p);
      return "code" in e ? `${e.code}: ${e.message}` : e.message;
    };
    expect(await reason(register(user.id, authenticator, { rpId: "other.example.com" }))).toMatch(/^PASSKEY_REGISTRATION_FAILED: .*RP ID/i);
    expect(await reason(register(user.id, authenticator, { origin: "https://evil.example.org" }))).toBe(
      "PASSKEY_REGISTRATION_FAILED: The origin https://evil.example.org is not a trusted domain of this project",
    );
    expect(await reason(register(user.id, authenticator, { origin: "http://127.0.0.1:3000" }))).toBe("PASSKEY_REGISTRATION_FAILED: 127.0.0.1 is an invalid domain");

    // Made on the app's domain, it signs in there and nowhere else.
    await register(user.id, authenticator, { origin: APP });
    expect((await signIn(authenticator, { origin: APP })).result!.userId).toBe(user.id);
    expect(await reason(signIn(authenticator, { origin: "http://localhost:3000" }))).toBe(
      "PASSKEY_AUTHENTICATION_FAILED: This passkey was registered for app.example.com, not localhost",
    );
    expect(await reason(signIn(authenticator, { origin: APP, rpId: "example.com" }))).toMatch(/^PASSKEY_AUTHENTICATION_FAILED: .*RP ID/i);

    // Without allow_localhost, localhost is no relying party.
    const strict = await stack.newProject({ passkey_enabled: true, allow_localhost: false, domains: [{ domain: APP, handler_path: "/handler" }] });
    const strictUser = await newUser(strict);
    expect(await reason(register(strictUser.id, new SoftwareAuthenticator(), {}, strict))).toBe(
      "PASSKEY_REGISTRATION_FAILED: The origin http://localhost:3000 is not a trusted domain of this project",
    );
  });

  it("refuses RSA keys under 2048 bits and accepts 2048-bit RS256 keys", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    const e = await rpcError(register(user.id, authenticator, { alg: "RS256", rsaBits: 1024 }));
    expect(e).toMatchObject({ code: "PASSKEY_REGISTRATION_FAILED", message: "RSA keys must have at least 2048 bits (this one has 1024)" });
    const rsa = new SoftwareAuthenticator();
    await register(user.id, rsa, { alg: "RS256", rsaBits: 2048 });
    expect((await signIn(rsa)).result!.userId).toBe(user.id);
  });

  it("asks a user with TOTP for the second factor (attempt code) instead of issuing tokens", async () => {
    const user = await newUser();
    const authenticator = new SoftwareAuthenticator();
    await register(user.id, authenticator);
    await mfa.setTotpSecret({ projectId, userId: user.id, secret: randomBytes(20) });
    const e = await rpcError(signIn(authenticator));
    expect(e).toMatchObject({ code: "MULTI_FACTOR_AUTHENTICATION_REQUIRED" });
    expect((e as { details: { attempt_code: string } }).details.attempt_code).toHaveLength(45);
  });

  it("answers malformed responses with the ceremony's failure error", async () => {
    const user = await newUser();
    const bad = ["not json", "null", "[]", "{}", JSON.stringify({ id: "!!", rawId: "!!", type: "public-key", response: {} })];
    const { options } = await startRegistration(user.id);
    const good = new SoftwareAuthenticator().register(options) as { id: string; response: Record<string, unknown> };
    bad.push(JSON.stringify({ ...good, response: { ...good.response, clientDataJSON: "%%%" } }));
    bad.push(JSON.stringify({ ...good, response: { ...good.response, attestationObject: 42 } }));
    bad.push(JSON.stringify({ ...good, response: { ...good.response, attestationObject: "AAAA" } }));
    bad.push(JSON.stringify({ ...good, type: "other" }));
    bad.push(JSON.stringify({ ...good, padding: "x".repeat(70_000) }));
    for (const credentialJson of bad) {
      const { code } = await startRegistration(user.id);
      expect(await failure(passkeys.registerPasskey({ projectId, userId: user.id, credentialJson, code, client }))).toBe("PASSKEY_REGISTRATION_FAILED");
    }
    for (const json of ["nope", "{}", JSON.stringify({ id: "AAAA", rawId: "AAAA", type: "public-key", response: { clientDataJSON: "AAAA", authenticatorData: "AAAA", signature: "AAAA" } })]) {
      const { code } = await startSignIn();
      expect(await failure(passkeys.signInWithPasskey({ projectId, authenticationResponseJson: json, code, client }))).toBe("PASSKEY_AUTHENTICATION_FAILED");
    }
  });
});
