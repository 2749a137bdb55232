import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shouldRunNatsTests, testNatsUrl } from "@vestibule/shared/testing";
import { CALLBACK, codeFromMail, outcome, startAuthStack, verifyAccessToken, waitFor, type AuthStack } from "./support.ts";

const runNats = await shouldRunNatsTests();

describe.runIf(runNats)("over NATS JetStream", () => {
  let stack: AuthStack;
  let projectId: string;

  beforeAll(async () => {
    stack = await startAuthStack({}, { natsUrl: testNatsUrl() });
    projectId = await stack.newProject();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("e-mails, claim snapshots, configuration changes and user deletion all travel as events", async () => {
    const { result } = await stack.passwords.signUpWithPassword({ projectId, email: "nats@example.com", password: "correct horse battery", verificationCallbackUrl: CALLBACK });
    const code = codeFromMail(await stack.waitForMail("nats@example.com"));
    await stack.verification.verifyContactChannel({ projectId, code });

    await stack.users.updateUser({ projectId, userId: result!.userId, displayName: { value: "Over NATS" } });
    await waitFor(async () => {
      const r = await stack.sessions.refreshSession({ projectId, refreshToken: result!.refreshToken });
      return (await verifyAccessToken(stack, projectId, r.accessToken)).payload.name === "Over NATS";
    });

    await stack.projects.updateProject({ projectId, configUpdateJson: JSON.stringify({ credential_enabled: false }) });
    await waitFor(
      async () =>
        (await outcome(stack.passwords.signInWithPassword({ projectId, email: "nats@example.com", password: "correct horse battery" }))) ===
        "PASSWORD_AUTHENTICATION_NOT_ENABLED",
    );

    await stack.users.deleteUser({ projectId, userId: result!.userId });
    await waitFor(async () => (await outcome(stack.sessions.refreshSession({ projectId, refreshToken: result!.refreshToken }))) === "REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
    const { rows } = await stack.authDb.query(`SELECT 1 FROM password_credentials WHERE user_id = $1`, [result!.userId]);
    expect(rows).toHaveLength(0);
  });
});
