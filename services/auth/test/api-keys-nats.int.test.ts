import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyService, ApiKeyType } from "@vestibule/proto/auth/v1/api_key_service";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { startService, type RunningService } from "@vestibule/shared/service";
import { shouldRunNatsTests, testNatsUrl } from "@vestibule/shared/testing";
import { authService } from "../src/server.ts";
import { outcome, startAuthStack, waitFor, type AuthStack } from "./support.ts";

const runNats = await shouldRunNatsTests();

describe.runIf(runNats)("API key revocation over NATS JetStream", () => {
  let stack: AuthStack;
  let replica: RunningService;
  let projectId: string;
  const rpc = (port: number) => createServiceClient(ApiKeyService, { baseUrl: `http://127.0.0.1:${port}`, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });

  beforeAll(async () => {
    stack = await startAuthStack({}, { natsUrl: testNatsUrl() });
    replica = await startService(authService, { env: stack.env, log: createLogger({ service: "test", level: "silent" }) });
    projectId = await stack.newProject();
  });
  afterAll(async () => {
    await replica?.stop();
    await stack?.stop();
  });

  it("reaches the other replica's check cache within a second; a deleted user's keys go through the durable consumer", async () => {
    const a = rpc(stack.auth.port);
    const b = rpc(replica.port);
    const { user } = await stack.users.createUser({ projectId, primaryEmail: "nats-keys@example.com" });
    const { apiKey } = await a.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: user!.id, description: "over nats" });
    const check = (c: typeof a) => outcome(c.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: apiKey!.value }));
    expect(await check(b)).toBe("ok");
    // Cached on the replica: a change written without an event is not seen there.
    await stack.authDb.query(`UPDATE api_keys SET manually_revoked_at = now() WHERE id = $1`, [apiKey!.id]);
    expect(await check(b)).toBe("ok");
    const started = Date.now();
    await a.updateApiKey({ projectId, type: ApiKeyType.USER, apiKeyId: apiKey!.id, revoke: true });
    await waitFor(async () => (await check(b)) === "API_KEY_REVOKED", 1000, 10);
    expect(Date.now() - started).toBeLessThan(1000);

    const second = await a.createApiKey({ projectId, type: ApiKeyType.USER, ownerId: user!.id, description: "second" });
    expect(await outcome(b.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: second.apiKey!.value }))).toBe("ok");
    await stack.users.deleteUser({ projectId, userId: user!.id });
    await waitFor(async () => (await outcome(b.checkApiKey({ projectId, type: ApiKeyType.USER, apiKey: second.apiKey!.value }))) === "API_KEY_NOT_FOUND", 5000);
  });
});
