/**
 * User and team API keys, the data vault and TOTP multi-factor sign-in through the published Stack Auth SDK
 * (@stackframe/js 2.8.41, the contract's version, and the latest), pointed at Vestibule with nothing changed but its
 * base URL and keys. Team keys run against the real teams-permissions service.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "otplib";
import * as latest from "@stackframe/js";
import * as v2841 from "stackframe-js-2841";
import { call, headersFor, startStack, type Stack } from "../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true, vault: true, teams: true });
  const admin = headersFor(stack.demo, "admin");
  expect(
    (await call(stack, "PATCH", "/api/v1/internal/projects/current", { headers: admin, body: { config: { allow_user_api_keys: true, allow_team_api_keys: true } } })).status,
  ).toBe(200);
  expect(
    (
      await call(stack, "PATCH", "/api/v1/internal/config/override", {
        headers: admin,
        body: { config_override_string: JSON.stringify({ "dataVault.stores.sdk-store": { displayName: "SDK store" } }) },
      })
    ).status,
  ).toBe(200);
});
afterAll(async () => {
  await stack?.stop();
});

type Sdk = typeof latest;
const sdks: [string, Sdk][] = [
  ["@stackframe/js 2.8.41", v2841 as unknown as Sdk],
  ["@stackframe/js latest", latest],
];

const callbackUrl = "http://localhost:3000/handler/email-verification";
const email = () => `sdk-keys-${randomBytes(5).toString("hex")}@example.com`;

/** A TOTP of the current step, taken early enough in the step that it is still current when the server checks. */
async function currentTotp(secret: Uint8Array): Promise<string> {
  const into = Date.now() % 30_000;
  if (into > 27_000) await new Promise((r) => setTimeout(r, 30_000 - into + 50));
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) });
}

describe.each(sdks)("%s against Vestibule", (_name, sdk) => {
  const options = (extra: Record<string, unknown> = {}) =>
    ({
      baseUrl: stack.url,
      projectId: stack.demo.projectId,
      publishableClientKey: stack.demo.publishableClientKey,
      tokenStore: "memory",
      noAutomaticPrefetch: true,
      ...extra,
    }) as never;
  const clientApp = (extra?: Record<string, unknown>) => new sdk.StackClientApp(options(extra));
  const serverApp = () => new sdk.StackServerApp(options({ secretServerKey: stack.demo.secretServerKey }));

  it("user.createApiKey / listApiKeys / revoke, and the server validates keys with getUser({ apiKey })", async () => {
    const app = clientApp();
    const address = email();
    expect((await app.signUpWithCredential({ email: address, password: "correct horse 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    const expiresAt = new Date(Date.now() + 86_400_000);
    const created = await user.createApiKey({ description: "from the SDK", expiresAt });
    expect(typeof created.value).toBe("string");
    const value = created.value as unknown as string;
    expect(value).toMatch(/^sk_[0-9a-z]{45}[0-9a-f]{32}user1574ck4u7h[0-9a-f]{8}$/);
    expect(created.description).toBe("from the SDK");
    expect(created.expiresAt?.getTime()).toBe(expiresAt.getTime());
    expect(created.isValid()).toBe(true);

    const listed = await user.listApiKeys();
    expect(listed).toHaveLength(1);
    expect(listed[0]!.id).toBe(created.id);
    expect(listed[0]!.value).toEqual({ lastFour: value.slice(-4) });

    const server = serverApp();
    const owner = await server.getUser({ apiKey: value });
    expect(owner?.id).toBe(user.id);
    expect(owner?.primaryEmail).toBe(address);
    expect(await server.getUser({ apiKey: `${value.slice(0, -1)}${value.endsWith("0") ? "1" : "0"}` })).toBeNull();

    await listed[0]!.revoke();
    const after = await user.listApiKeys();
    expect(after[0]!.isValid()).toBe(false);
    expect(after[0]!.whyInvalid()).toBe("manually-revoked");
    // A fresh server app (no SDK-side cache) is refused by the gateway: the revocation reached its check cache.
    expect(await serverApp().getUser({ apiKey: value })).toBeNull();

    const pub = await user.createApiKey({ description: "public", expiresAt: null as never, isPublic: true });
    expect((pub.value as unknown as string).startsWith("pk_")).toBe(true);
    expect((await serverApp().getUser({ apiKey: pub.value as unknown as string }))?.id).toBe(user.id);
  });

  it("team.createApiKey / listApiKeys / revoke, and the server validates team keys with getTeam({ apiKey })", async () => {
    const app = clientApp();
    expect((await app.signUpWithCredential({ email: email(), password: "correct horse 1", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    // The creator holds team_admin, which contains $manage_api_keys.
    const team = await user.createTeam({ displayName: "Key Team" });
    const created = await team.createApiKey({ description: "team deploy key", expiresAt: null as never });
    const value = created.value as unknown as string;
    expect(value).toMatch(/^sk_[0-9a-z]{45}[0-9a-f]{32}team1574ck4u7h[0-9a-f]{8}$/);
    expect(created.description).toBe("team deploy key");
    expect(created.isValid()).toBe(true);

    const listed = await team.listApiKeys();
    expect(listed.map((k) => k.id)).toEqual([created.id]);
    expect(listed[0]!.value).toEqual({ lastFour: value.slice(-4) });

    const server = serverApp();
    expect((await server.getTeam({ apiKey: value }))?.id).toBe(team.id);
    expect((await server.getTeam({ apiKey: value }))?.displayName).toBe("Key Team");
    expect(await server.getTeam({ apiKey: `${value.slice(0, -1)}${value.endsWith("0") ? "1" : "0"}` })).toBeNull();
    // A user key is not a team key.
    const userKey = (await user.createApiKey({ description: "mine", expiresAt: null as never })).value as unknown as string;
    expect(await serverApp().getTeam({ apiKey: userKey })).toBeNull();
    // The server side sees the team's keys too.
    const serverTeam = await server.getTeam(team.id);
    expect((await serverTeam!.listApiKeys()).map((k) => k.id)).toEqual([created.id]);

    await listed[0]!.revoke();
    const after = await team.listApiKeys();
    expect(after[0]!.isValid()).toBe(false);
    expect(after[0]!.whyInvalid()).toBe("manually-revoked");
    expect(await serverApp().getTeam({ apiKey: value })).toBeNull();

    // A member without $manage_api_keys cannot see the team's keys.
    const other = clientApp();
    expect((await other.signUpWithCredential({ email: email(), password: "correct horse 2", verificationCallbackUrl: callbackUrl, noRedirect: true })).status).toBe("ok");
    const otherUser = await other.getUser({ or: "throw" });
    await serverTeam!.addUser(otherUser.id);
    const theirView = await otherUser.getTeam(team.id);
    expect(theirView?.id).toBe(team.id);
    await expect(theirView!.listApiKeys()).rejects.toMatchObject({ errorCode: "API_KEY_NOT_FOUND" });
  });

  it("data vault: setValue / getValue round-trip through client-side encryption; a missing key gives null", async () => {
    const store = await serverApp().getDataVaultStore("sdk-store");
    const secret = `vault-secret-${randomBytes(8).toString("hex")}`;
    const key = `user:${randomBytes(4).toString("hex")}`;
    await store.setValue(key, "the plaintext value ✓", { secret });
    expect(await store.getValue(key, { secret })).toBe("the plaintext value ✓");
    await store.setValue(key, "replaced", { secret });
    expect(await (await serverApp().getDataVaultStore("sdk-store")).getValue(key, { secret })).toBe("replaced");
    expect(await store.getValue(`${key}-missing`, { secret })).toBeNull();
    // Another secret hashes the key differently: for it, nothing is stored.
    expect(await (await serverApp().getDataVaultStore("sdk-store")).getValue(key, { secret: `${secret}-other` })).toBeNull();
  });

  it("an MFA user signs in: the password step stores the attempt code and redirects to the MFA page, the TOTP step signs in", async () => {
    const server = serverApp();
    const address = email();
    const secret = randomBytes(20);
    const created = await server.createUser({ primaryEmail: address, password: "mfa password 1", primaryEmailAuthEnabled: true });
    await created.update({ totpMultiFactorSecret: new Uint8Array(secret) } as never);
    expect((await server.getUser(created.id))?.isMultiFactorRequired).toBe(true);

    // The SDK keeps the attempt code in the browser's sessionStorage and navigates to the MFA page: give it both.
    const session = new Map<string, string>();
    const navigated: string[] = [];
    const globals = globalThis as { window?: unknown };
    const hadWindow = "window" in globals;
    globals.window = {
      location: new URL("http://localhost:3000/handler/sign-in"),
      sessionStorage: { getItem: (k: string) => session.get(k) ?? null, setItem: (k: string, v: string) => void session.set(k, v) },
    };
    const app = clientApp({ redirectMethod: { useNavigate: () => (url: string) => navigated.push(url), navigate: (url: string) => navigated.push(url) } });
    try {
      await expect(app.signInWithCredential({ email: address, password: "mfa password 1", noRedirect: true })).rejects.toThrow(/should have redirected/);
    } finally {
      if (hadWindow) globals.window = undefined;
      else delete globals.window;
    }
    const attemptCode = session.get("stack_mfa_attempt_code") ?? session.get("hexclave_mfa_attempt_code");
    expect(attemptCode).toMatch(/^[0-9a-z]{45}$/);
    expect(navigated.some((u) => u.includes("/handler/mfa"))).toBe(true);
    expect(await app.getUser()).toBeNull();

    const wrong = await app.signInWithMfa("000000" === (await currentTotp(secret)) ? "111111" : "000000", attemptCode!, { noRedirect: true });
    expect(wrong.status).toBe("error");
    expect((wrong as { error: { errorCode?: string } }).error.errorCode).toBe("INVALID_TOTP_CODE");
    const ok = await app.signInWithMfa(await currentTotp(secret), attemptCode!, { noRedirect: true });
    expect(ok.status).toBe("ok");
    const user = await app.getUser({ or: "throw" });
    expect(user.id).toBe(created.id);
    expect(user.isMultiFactorRequired).toBe(true);
  });
});
