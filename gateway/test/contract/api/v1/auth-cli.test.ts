import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectKnownError, headersFor, startStack, type Stack } from "../../../support.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ auth: true });
});
afterAll(async () => {
  await stack?.stop();
});

const client = () => headersFor(stack.demo, "client");
const callback = "http://localhost:3000/handler/email-verification";
const root = fileURLToPath(new URL("../../../../../", import.meta.url));

async function browserSession(): Promise<{ refreshToken: string; userId: string; email: string }> {
  const email = `cli-${randomBytes(5).toString("hex")}@example.com`;
  const res = await call(stack, "POST", "/api/v1/auth/password/sign-up", { headers: client(), body: { email, password: "a good password", verification_callback_url: callback } });
  return { refreshToken: res.json.refresh_token, userId: res.json.user_id, email };
}

describe("/api/v1/auth/cli", () => {
  it("the example CLI prints the link, a browser session completes it, the CLI gets a refresh token; a second poll answers used", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "deploy/src/cli-login-example.ts", "--api", stack.url, "--project", stack.demo.projectId, "--key", stack.demo.publishableClientKey, "--interval-ms", "100", "--json"],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    try {
      const first = await lines.next();
      if (first.done) throw new Error(`the CLI printed nothing: ${stderr}`);
      const started = JSON.parse(first.value) as { event: string; login_url: string; polling_code: string; expires_at: string };
      expect(started.event).toBe("started");
      const link = new URL(started.login_url);
      expect(`${link.origin}${link.pathname}`).toBe("http://localhost:8101/handler/cli-auth-confirm");
      const loginCode = link.searchParams.get("login_code")!;
      expect(loginCode).toMatch(/^[0-9a-z]{45}$/);
      expect(Date.parse(started.expires_at) - Date.now()).toBeGreaterThan(7_000_000);

      // The CLI keeps waiting until the browser confirms.
      await new Promise((r) => setTimeout(r, 400));
      expect(child.exitCode).toBeNull();
      expect((await call(stack, "POST", "/api/v1/auth/cli/poll", { headers: client(), body: { polling_code: started.polling_code } })).json).toEqual({ status: "waiting" });

      const browser = await browserSession();
      const complete = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: loginCode, refresh_token: browser.refreshToken } });
      expect(complete.status).toBe(200);
      expect(complete.json).toEqual({ success: true });

      const second = await lines.next();
      const signedIn = JSON.parse(second.value as string) as { event: string; user_id: string; primary_email: string; refresh_token: string };
      expect(signedIn).toMatchObject({ event: "signed_in", user_id: browser.userId, primary_email: browser.email });
      expect(signedIn.refresh_token).toMatch(/^[0-9a-z]{45}$/);
      expect(await exited).toBe(0);

      const again = await call(stack, "POST", "/api/v1/auth/cli/poll", { headers: client(), body: { polling_code: started.polling_code } });
      expect(again.status).toBe(200);
      expect(again.json).toEqual({ status: "used" });
      // The CLI's token is a session of its own: it refreshes.
      const refreshed = await call(stack, "POST", "/api/v1/auth/sessions/current/refresh", { headers: { ...client(), "x-stack-refresh-token": signedIn.refresh_token } });
      expect(refreshed.status).toBe(200);
    } finally {
      if (child.exitCode === null) child.kill();
    }
  });

  it("answers success with 201 once, expired after the lifetime, and the contract's errors", async () => {
    const start = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: {} });
    expect(start.status).toBe(200);
    expect(Object.keys(start.json).sort()).toEqual(["expires_at", "login_code", "polling_code"]);
    const browser = await browserSession();
    await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: start.json.login_code, refresh_token: browser.refreshToken } });
    const success = await call(stack, "POST", "/api/v1/auth/cli/poll", { headers: client(), body: { polling_code: start.json.polling_code } });
    expect(success.status).toBe(201);
    expect(success.json).toEqual({ status: "success", refresh_token: expect.stringMatching(/^[0-9a-z]{45}$/) });
    const used = await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: start.json.login_code, refresh_token: browser.refreshToken } });
    expect(used.status).toBe(400);
    expect(used.headers.get("x-stack-known-error")).toBeNull();

    const short = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: { expires_in_millis: 200 } });
    await new Promise((r) => setTimeout(r, 300));
    expect((await call(stack, "POST", "/api/v1/auth/cli/poll", { headers: client(), body: { polling_code: short.json.polling_code } })).json).toEqual({ status: "expired" });
    expect((await call(stack, "POST", "/api/v1/auth/cli/complete", { headers: client(), body: { login_code: short.json.login_code, refresh_token: browser.refreshToken } })).status).toBe(400);

    expectKnownError(await call(stack, "POST", "/api/v1/auth/cli/poll", { headers: client(), body: { polling_code: "unknown" } }), 400, "INVALID_POLLING_CODE");
    const tooLong = await call(stack, "POST", "/api/v1/auth/cli", { headers: client(), body: { expires_in_millis: 86_400_001 } });
    expectKnownError(tooLong, 400, "SCHEMA_ERROR");
    expect(tooLong.json.error).toContain("body.expires_in_millis must be less than or equal to 86400000");
    expectKnownError(await call(stack, "POST", "/api/v1/auth/cli", { body: {} }), 400, "ACCESS_TYPE_REQUIRED");
  });
});
