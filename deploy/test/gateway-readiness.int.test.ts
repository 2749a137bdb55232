/**
 * The gateway's /health is readiness of its dependencies: 200 while every service is SERVING, 503 naming the service
 * that is down (checks cached briefly), 200 again once it is back; after SIGTERM it reports draining (503) while
 * API requests are still answered during VESTIBULE_DRAIN_DELAY_MS. /health/live stays 200 throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function healthUntil(url: string, want: number, timeoutMs = 20_000): Promise<{ status: number; body: string }> {
  const deadline = Date.now() + timeoutMs;
  let last = { status: 0, body: "" };
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`);
      last = { status: res.status, body: await res.text() };
      if (last.status === want) return last;
    } catch (err) {
      last = { status: -1, body: String(err) };
    }
    await sleep(200);
  }
  return last;
}

describe("gateway readiness", () => {
  let tp: TestPlatform;
  beforeAll(async () => {
    tp = await startTestPlatform({ platform: { env: { VESTIBULE_DRAIN_DELAY_MS: "4000" } } });
  }, 120_000);
  afterAll(async () => {
    await tp?.stop();
  });

  it("follows the services' health: 503 naming a service that is down, 200 when it is back", async () => {
    expect(await healthUntil(tp.gatewayUrl, 200)).toEqual({ status: 200, body: "OK" });
    await tp.platform.killService("vault");
    const down = await healthUntil(tp.gatewayUrl, 503);
    expect(down.status).toBe(503);
    expect(down.body).toBe("not ready: vault UNREACHABLE");
    expect((await fetch(`${tp.gatewayUrl}/health/live`)).status).toBe(200);
    await tp.platform.restartService("vault");
    expect(await healthUntil(tp.gatewayUrl, 200)).toEqual({ status: 200, body: "OK" });
  }, 90_000);

  it("reports draining after SIGTERM while it still answers requests", async () => {
    const pid = tp.platform.pids().gateway!;
    process.kill(pid, "SIGTERM");
    const draining = await healthUntil(tp.gatewayUrl, 503, 3_000);
    expect(draining).toEqual({ status: 503, body: "draining" });
    const demo = tp.projects.demo;
    const res = await fetch(`${tp.gatewayUrl}/api/v1/projects/current`, {
      headers: { "x-stack-project-id": demo.project_id, "x-stack-access-type": "client", "x-stack-publishable-client-key": demo.publishable_client_key },
    });
    expect(res.status).toBe(200);
  }, 30_000);
});
