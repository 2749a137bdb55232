import { spawn } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "@vestibule/shared/testing";
import { checkServiceHealth, PROCESS_NAMES, SERVICE_NAMES } from "../src/platform.ts";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { SERVICES } from "../src/services.ts";
import { checkoutRoot } from "../src/paths.ts";

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: checkoutRoot, env });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.on("close", (code) => resolve({ stdout, code }));
  });
}

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

  it("reports SERVING for all six services with the health probe script", async () => {
    const env: Record<string, string> = { ...process.env } as Record<string, string>;
    for (const name of SERVICE_NAMES) env[SERVICES[name].env] = tp.platform.serviceUrls[name];
    const { stdout, code } = await run(process.execPath, ["--import", "tsx", "deploy/src/health-probe.ts"], env);
    expect(code).toBe(0);
    for (const name of SERVICE_NAMES) expect(stdout).toMatch(new RegExp(`^${name}\\s+SERVING$`, "m"));
  });

  it("checks every replica a variable lists, and fails when one is down", async () => {
    const env: Record<string, string> = { ...process.env } as Record<string, string>;
    for (const name of SERVICE_NAMES) env[SERVICES[name].env] = tp.platform.serviceUrls[name];
    const [closed] = await freePorts(1);
    const vault = tp.platform.serviceUrls.vault;
    env[SERVICES.vault.env] = `${vault},http://127.0.0.1:${closed}`;
    const { stdout, code } = await run(process.execPath, ["--import", "tsx", "deploy/src/health-probe.ts", "--service", "vault", "--timeout", "1000"], env);
    expect(code).toBe(1);
    expect(stdout).toContain(`vault SERVING (${vault})`);
    expect(stdout).toMatch(new RegExp(`^vault UNREACHABLE \\(http://127\\.0\\.0\\.1:${closed}: `, "m"));
  });

  it("answers a dead service's routes with a plain-text 503 and recovers when it is back", async () => {
    const demo = tp.projects.demo;
    const admin = {
      "x-stack-project-id": demo.project_id,
      "x-stack-access-type": "admin",
      "x-stack-super-secret-admin-key": demo.super_secret_admin_key,
    };
    expect((await fetch(`${tp.gatewayUrl}/api/v1/internal/api-keys`, { headers: admin })).status).toBe(200);
    const before = tp.platform.pids().identity!;
    await tp.platform.killService("identity");
    expect(alive(before)).toBe(false);
    await expect(checkServiceHealth(tp.platform.serviceUrls.identity, 500)).rejects.toThrow();
    const down = await fetch(`${tp.gatewayUrl}/api/v1/internal/api-keys`, { headers: admin });
    expect(down.status).toBe(503);
    expect(down.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(down.headers.get("x-stack-known-error")).toBeNull();
    expect(await down.text()).toMatch(/identity is not reachable/);
    await tp.platform.restartService("identity");
    expect(tp.platform.pids().identity).not.toBe(before);
    const started = Date.now();
    for (;;) {
      const res = await fetch(`${tp.gatewayUrl}/api/v1/internal/api-keys`, { headers: admin });
      if (res.status === 200) break;
      if (Date.now() - started > 10_000) throw new Error(`gateway did not recover: ${res.status} ${await res.text()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
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
