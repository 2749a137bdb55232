import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkServiceHealth, PROCESS_NAMES, SERVICE_NAMES } from "../src/platform.ts";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the platform launcher (six service processes + gateway)", () => {
  let tp: TestPlatform;
  beforeAll(async () => {
    tp = await startTestPlatform();
  });
  afterAll(async () => {
    await tp?.stop();
  });

  it("starts every process, each answering its readiness check", async () => {
    expect(Object.keys(tp.platform.pids()).sort()).toEqual([...PROCESS_NAMES].sort());
    for (const name of SERVICE_NAMES) {
      expect(await checkServiceHealth(tp.platform.serviceUrls[name]), name).toEqual({ status: "SERVING", serving: true });
    }
    expect((await fetch(`${tp.gatewayUrl}/health`)).status).toBe(200);
  });

  it("bootstraps the internal and demo projects with keys, usable through the gateway", async () => {
    const demo = tp.projects.demo;
    expect(tp.projects.internal.project_id).toBe("internal");
    expect(demo.publishable_client_key).not.toBe("");
    const res = await fetch(`${tp.gatewayUrl}/api/v1/projects/current`, {
      headers: {
        "x-stack-project-id": demo.project_id,
        "x-stack-access-type": "client",
        "x-stack-publishable-client-key": demo.publishable_client_key,
      },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { display_name: string }).display_name).toBe("Demo Project");
  });

  it("kills a service and brings it back", async () => {
    const url = tp.platform.serviceUrls.billing;
    const before = tp.platform.pids().billing!;
    await tp.platform.killService("billing");
    expect(alive(before)).toBe(false);
    await expect(checkServiceHealth(url, 500)).rejects.toThrow();
    await tp.platform.restartService("billing");
    expect(tp.platform.pids().billing).not.toBe(before);
    expect((await checkServiceHealth(url)).serving).toBe(true);
  });

  it("stops every process and drops the database", async () => {
    const pids = Object.values(tp.platform.pids());
    const database = new URL(tp.databaseUrl).pathname.slice(1);
    await tp.stop();
    expect(pids.filter(alive)).toEqual([]);
    const admin = new URL(tp.databaseUrl);
    admin.pathname = "/postgres";
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
      expect(rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});
