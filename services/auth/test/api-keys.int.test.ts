import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyService, ApiKeyType } from "@vestibule/proto/auth/v1/api_key_service";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { hashSecret } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { authService } from "../src/server.ts";
import { failure, outcome, startAuthStack, waitFor, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;
let replica: RunningService;
const rpc = (port: number) => createServiceClient(ApiKeyService, { baseUrl: `http://127.0.0.1:${port}`, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
let keys: ReturnType<typeof rpc>;
let keysB: ReturnType<typeof rpc>;

beforeAll(async () => {
  stack = await startAuthStack();
  projectId = await stack.newProject();
  // A second auth replica on the same database and bus: its check cache must follow the first one's changes.
  replica = await startService(authService, { env: stack.env, log: createLogger({ service: "test", level: "silent" }) });
  keys = rpc(stack.auth.port);
  keysB = rpc(replica.port);
});
afterAll(async () => {
  await replica?.stop();
  await stack?.stop();
});

async function newUser(email: string) {
  const { user } = await stack.users.createUser({ projectId, primaryEmail: email, primaryEmailAuthEnabled: true, primaryEmailVerified: true });
  return user!.id;
}

describe("user and team API keys", () => {
  it("creates a key whose full value appears once; only its hash and last four characters are stored", async () => {
    const userId = await newUser("keys-owner@example.com");
    const { apiKey } = await keys.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: userId, description: "ci", isPublic: false });
    expect(apiKey!.value).toMatch(new RegExp(`^sk_[0-9a-z]{45}${apiKey!.id.replace(/-/g, "")}user1574ck4u7h[0-9a-f]{8}$`));
    expect(apiKey!.lastFour).toBe(apiKey!.value.slice(-4));
    expect(apiKey!.expiresAtMillis).toBeUndefined();
    const { rows } = await stack.authDb.query(`SELECT * FROM api_keys WHERE id = $1`, [apiKey!.id]);
    expect(rows[0].key_hash).toBe(hashSecret(apiKey!.value));
    expect(JSON.stringify(rows[0])).not.toContain(apiKey!.value.slice(3, 48));

    const listed = await keys.listApiKeys({ projectId, type: ApiKeyType.USER, ownerId: userId });
    expect(listed.apiKeys.map((k) => [k.id, k.value, k.lastFour])).toEqual([[apiKey!.id, "", apiKey!.lastFour]]);
    const got = await keys.getApiKey({ projectId, type: ApiKeyType.USER, apiKeyId: apiKey!.id, ownerId: userId });
    expect(got.apiKey!.description).toBe("ci");
    // Another owner, another kind or another project does not see it.
    expect(await failure(keys.getApiKey({ projectId, type: ApiKeyType.USER, apiKeyId: apiKey!.id, ownerId: await newUser("other@example.com") }))).toBe("API_KEY_NOT_FOUND");
    expect(await failure(keys.getApiKey({ projectId, type: ApiKeyType.TEAM, apiKeyId: apiKey!.id }))).toBe("API_KEY_NOT_FOUND");
    expect(await failure(keys.getApiKey({ projectId: await stack.newProject(), type: ApiKeyType.USER, apiKeyId: apiKey!.id }))).toBe("API_KEY_NOT_FOUND");
  });

  it("refuses keys for users that do not exist", async () => {
    expect(
      await failure(keys.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: "5b3e2c1d-0a9f-4e8d-8c7b-6a5f4e3d2c1b", description: "x" })),
    ).toBe("USER_ID_DOES_NOT_EXIST");
  });

  it("checks: valid, wrong type, revoked, expired, unknown, malformed, other project", async () => {
    const userId = await newUser("checks@example.com");
    const { apiKey } = await keys.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: userId, description: "check me" });
    const value = apiKey!.value;
    const checked = await keys.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: value });
    expect(checked.apiKey!.id).toBe(apiKey!.id);
    expect(checked.apiKey!.value).toBe("");
    expect(await failure(keys.checkApiKey({ projectId, type: ApiKeyType.TEAM, apiKey: value }))).toBe("WRONG_API_KEY_TYPE");
    expect(await failure(keys.checkApiKey({ projectId: await stack.newProject(), type: ApiKeyType.USER, apiKey: value }))).toBe("API_KEY_NOT_FOUND");
    expect(await failure(keys.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: value.slice(0, -1) + (value.endsWith("0") ? "1" : "0") }))).toBe(
      "API_KEY_NOT_FOUND",
    );
    expect(await failure(keys.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: "not a key" }))).toBe("API_KEY_NOT_FOUND");

    const team = "0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f";
    const short = await keys.createApiKey({ projectId, type: ApiKeyType.TEAM, ownerId: team, description: "short", expiresAtMillis: BigInt(Date.now() + 800) });
    expect((await keys.checkApiKey({ projectId, type: ApiKeyType.TEAM, apiKey: short.apiKey!.value })).apiKey!.ownerId).toBe(team);
    // Expiry needs no event: the cached row is judged against the clock at each check.
    await waitFor(async () => (await outcome(keys.checkApiKey({ projectId, type: ApiKeyType.TEAM, apiKey: short.apiKey!.value }))) === "API_KEY_EXPIRED", 3000);

    const revoked = await keys.updateApiKey({ projectId, type: ApiKeyType.USER, apiKeyId: apiKey!.id, ownerId: userId, revoke: true });
    const at = revoked.apiKey!.manuallyRevokedAtMillis!;
    expect(Number(at)).toBeGreaterThan(Date.now() - 10_000);
    expect(await failure(keys.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: value }))).toBe("API_KEY_REVOKED");
    // Revoking again keeps the first time; description and expiry still change.
    const again = await keys.updateApiKey({
      projectId,
      type: ApiKeyType.USER,
      apiKeyId: apiKey!.id,
      revoke: true,
      description: "renamed",
      expiresAtMillis: { value: 4_102_444_800_000n },
    });
    expect(again.apiKey).toMatchObject({ manuallyRevokedAtMillis: at, description: "renamed", expiresAtMillis: 4_102_444_800_000n });
    const cleared = await keys.updateApiKey({ projectId, type: ApiKeyType.USER, apiKeyId: apiKey!.id, expiresAtMillis: {} });
    expect(cleared.apiKey!.expiresAtMillis).toBeUndefined();
  });

  it("a revocation reaches the check cache of every replica through the event", async () => {
    const userId = await newUser("replicas@example.com");
    const { apiKey } = await keys.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: userId, description: "replicated" });
    const check = (client: typeof keys) => outcome(client.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: apiKey!.value }));
    expect(await check(keys)).toBe("ok");
    expect(await check(keysB)).toBe("ok");
    // Both replicas now answer from memory: a change written behind their backs (no event) is not seen...
    await stack.authDb.query(`UPDATE api_keys SET manually_revoked_at = now() WHERE id = $1`, [apiKey!.id]);
    expect(await check(keysB)).toBe("ok");
    // ...until the revocation's event arrives, well within a second.
    const started = Date.now();
    await keys.updateApiKey({ projectId, type: ApiKeyType.USER, apiKeyId: apiKey!.id, revoke: true });
    expect(await check(keys)).toBe("API_KEY_REVOKED");
    await waitFor(async () => (await check(keysB)) === "API_KEY_REVOKED", 1000, 10);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("a secret scanner's report revokes a secret key once and e-mails its owner; public keys are refused", async () => {
    const userId = await newUser("leaky@example.com");
    const { apiKey } = await keys.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: userId, description: "pushed to github" });
    expect((await keys.revokeLeakedApiKey({ apiKey: apiKey!.value })).revoked).toBe(true);
    expect(await failure(keys.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: apiKey!.value }))).toBe("API_KEY_REVOKED");
    const mail = await stack.waitForMail("leaky@example.com");
    expect(mail.subject).toBe("An API key of your Test Project account was revoked");
    expect(mail.text).toContain(`"pushed to github" (ending in ${apiKey!.lastFour})`);
    expect(mail.text).not.toContain(apiKey!.value);
    // Already revoked: quiet success, no second e-mail.
    expect((await keys.revokeLeakedApiKey({ apiKey: apiKey!.value })).revoked).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    const { messages } = await stack.mailbox.listMailboxMessages({ to: "leaky@example.com", projectId: "", limit: 10 });
    expect(messages).toHaveLength(1);

    const pub = await keys.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: userId, description: "public", isPublic: true });
    expect(pub.apiKey!.value.startsWith("pk_")).toBe(true);
    expect(await failure(keys.revokeLeakedApiKey({ apiKey: pub.apiKey!.value }))).toBe("PUBLIC_API_KEY_CANNOT_BE_REVOKED");
    expect(await failure(keys.revokeLeakedApiKey({ apiKey: "sk_nothing" }))).toBe("API_KEY_NOT_FOUND");
  });

  it("deleting the user deletes their keys, and replicas stop accepting them", async () => {
    const userId = await newUser("leaving@example.com");
    const { apiKey } = await keys.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: userId, description: "bye" });
    expect(await outcome(keysB.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: apiKey!.value }))).toBe("ok");
    await stack.users.deleteUser({ projectId, userId });
    await waitFor(async () => (await outcome(keysB.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: apiKey!.value }))) === "API_KEY_NOT_FOUND", 5000);
    const { rows } = await stack.authDb.query(`SELECT 1 FROM api_keys WHERE owner_id = $1`, [userId]);
    expect(rows).toHaveLength(0);
  });
});
