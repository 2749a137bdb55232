import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliLoginService, CliLoginStatus } from "@vestibule/proto/auth/v1/cli_login_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { CALLBACK, failure, startAuthStack, type AuthStack } from "./support.ts";

let stack: AuthStack;
let projectId: string;
let cli: ReturnType<typeof createServiceClient<typeof CliLoginService>>;

beforeAll(async () => {
  stack = await startAuthStack();
  projectId = await stack.newProject({ allow_localhost: true });
  cli = createServiceClient(CliLoginService, { baseUrl: stack.env.VESTIBULE_AUTH_URL!, caller: "test", secret: stack.env.VESTIBULE_SERVICE_SECRET! });
});
afterAll(async () => {
  await stack?.stop();
});

async function browserSession(email: string, pid = projectId) {
  const { result } = await stack.passwords.signUpWithPassword({ projectId: pid, email, password: "correct horse battery", verificationCallbackUrl: CALLBACK });
  return result!;
}

describe("CLI login", () => {
  it("waiting until a browser session completes it, then the CLI's own refresh token once, then used", async () => {
    const before = Date.now();
    const started = await cli.startCliLogin({ projectId });
    expect(started.pollingCode).toMatch(/^[0-9a-z]{45}$/);
    expect(started.loginCode).toMatch(/^[0-9a-z]{45}$/);
    expect(started.loginCode).not.toBe(started.pollingCode);
    expect(Number(started.expiresAtMillis) - before).toBeGreaterThanOrEqual(7_200_000 - 1000);
    expect(Number(started.expiresAtMillis) - before).toBeLessThanOrEqual(7_200_000 + 1000);
    expect((await cli.pollCliLogin({ projectId, pollingCode: started.pollingCode })).status).toBe(CliLoginStatus.WAITING);

    const browser = await browserSession("cli@example.com");
    // The polling code does not complete anything, and a code of this project is unknown in another.
    expect(await failure(cli.completeCliLogin({ projectId, loginCode: started.pollingCode, refreshToken: browser.refreshToken }))).toMatch(/^400 Invalid login code/);
    await cli.completeCliLogin({ projectId, loginCode: started.loginCode, refreshToken: browser.refreshToken });
    expect(await failure(cli.completeCliLogin({ projectId, loginCode: started.loginCode, refreshToken: browser.refreshToken }))).toBe(
      "400 This login code was already used.",
    );

    const success = await cli.pollCliLogin({ projectId, pollingCode: started.pollingCode });
    expect(success.status).toBe(CliLoginStatus.SUCCESS);
    expect(success.refreshToken).toMatch(/^[0-9a-z]{45}$/);
    // A session of its own for the same user: it refreshes, and it is not the browser's.
    expect(success.refreshToken).not.toBe(browser.refreshToken);
    const refreshed = await stack.sessions.refreshSession({ projectId, refreshToken: success.refreshToken });
    expect(refreshed.userId).toBe(browser.userId);
    expect(refreshed.sessionId).not.toBe(browser.sessionId);
    expect((await stack.sessions.listSessions({ projectId, userId: browser.userId })).sessions).toHaveLength(2);

    expect(await cli.pollCliLogin({ projectId, pollingCode: started.pollingCode })).toMatchObject({ status: CliLoginStatus.USED, refreshToken: "" });
    // Nothing of the token is left in the table.
    const { rows } = await stack.authDb.query(`SELECT refresh_token_ciphertext, delivered_at FROM cli_logins WHERE login_code_hash IS NOT NULL`);
    expect(rows.every((r) => r.refresh_token_ciphertext === null)).toBe(true);
  });

  it("expired attempts poll as expired and cannot be completed; bounds of expires_in_millis", async () => {
    const started = await cli.startCliLogin({ projectId, expiresInMillis: 300n });
    await new Promise((r) => setTimeout(r, 400));
    expect((await cli.pollCliLogin({ projectId, pollingCode: started.pollingCode })).status).toBe(CliLoginStatus.EXPIRED);
    const browser = await browserSession("late@example.com");
    expect(await failure(cli.completeCliLogin({ projectId, loginCode: started.loginCode, refreshToken: browser.refreshToken }))).toMatch(/^400 The login code has expired/);
    expect(await failure(cli.startCliLogin({ projectId, expiresInMillis: 86_400_001n }))).toMatch(/^400 /);
    const max = await cli.startCliLogin({ projectId, expiresInMillis: 86_400_000n });
    expect(Number(max.expiresAtMillis)).toBeGreaterThan(Date.now() + 86_000_000);
  });

  it("unknown polling codes, bad refresh tokens and refresh tokens of another project are refused", async () => {
    expect(await failure(cli.pollCliLogin({ projectId, pollingCode: "x".repeat(45) }))).toBe("INVALID_POLLING_CODE");
    expect(await failure(cli.pollCliLogin({ projectId, pollingCode: "" }))).toBe("INVALID_POLLING_CODE");
    const started = await cli.startCliLogin({ projectId });
    const otherProject = await stack.newProject({ allow_localhost: true });
    expect(await failure(cli.pollCliLogin({ projectId: otherProject, pollingCode: started.pollingCode }))).toBe("INVALID_POLLING_CODE");
    const foreign = await browserSession("foreign@example.com", otherProject);
    expect(await failure(cli.completeCliLogin({ projectId, loginCode: started.loginCode, refreshToken: foreign.refreshToken }))).toBe(
      "400 The refresh token belongs to another project.",
    );
    expect(await failure(cli.completeCliLogin({ projectId, loginCode: started.loginCode, refreshToken: "nope" }))).toMatch(/^400 The refresh token is not valid/);
    expect((await cli.pollCliLogin({ projectId, pollingCode: started.pollingCode })).status).toBe(CliLoginStatus.WAITING);
  });
});
