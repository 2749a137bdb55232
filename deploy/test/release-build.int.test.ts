/**
 * The release build: `npm run build` (here without the frontends, which the e2e tests build) writes plain JavaScript
 * to dist/; every process starts from it with no TypeScript tooling loaded (module audit), the services are ready
 * and small (bounds of issue 20, with a margin for a loaded CI machine), the platform started from dist/ answers
 * the public API, and the image's entry point dispatches each process kind (and runs `migrate` for real).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@vestibule/shared/testing";
import { bootstrapProjects } from "../src/bootstrap.ts";
import { checkoutRoot } from "../src/paths.ts";
import { buildRelease, DIST } from "../src/release/build.ts";
import { formatTable, measureProcesses, violations, type ProcessMeasurement } from "../src/release/measure-processes.ts";

const run = promisify(execFile);
const ENTRYPOINT = join(checkoutRoot, "deploy", "container", "entrypoint.sh");

beforeAll(() => {
  buildRelease({ frontends: false, log: () => undefined });
}, 600_000);

describe("release build", () => {
  it("compiles every runtime workspace to JavaScript with its migrations and run-time files", () => {
    for (const entry of ["services/auth/src/main.js", "services/teams-permissions/src/main.js", "gateway/src/main.js", "deploy/src/start.js", "deploy/src/migrate.js", "deploy/src/frontends-main.js"]) {
      expect(existsSync(join(DIST, entry)), entry).toBe(true);
    }
    expect(existsSync(join(DIST, "services/identity/migrations"))).toBe(true);
    expect(existsSync(join(DIST, "services/shared/migrations"))).toBe(true);
    expect(existsSync(join(DIST, "services/email/src/render/render-worker.mjs"))).toBe(true);
    const shared = JSON.parse(readFileSync(join(DIST, "services/shared/package.json"), "utf8")) as { exports: Record<string, string> };
    expect(shared.exports["./db"]).toBe("./src/db/index.js");
    // Imports between files of the build point at .js files.
    expect(readFileSync(join(DIST, "services/auth/src/main.js"), "utf8")).not.toMatch(/from "\.[^"]*\.ts"/);
  });

  it("starts every process from dist/ without TypeScript tooling, within the bounds, and serves the API", async () => {
    let projectStatus = 0;
    // The best of three starts per process: CI runs another test file beside this one (see MeasureOptions.startTries).
    const rows: ProcessMeasurement[] = await measureProcesses({
      startTries: 3,
      whileRunning: async (platform) => {
        const { projects } = await bootstrapProjects({ identityUrl: platform.serviceUrls.identity, serviceSecret: platform.serviceSecret, keyDescription: "release test" });
        const res = await fetch(`${platform.gatewayUrl}/api/v1/projects/current`, {
          headers: {
            "x-stack-project-id": projects.demo.project_id,
            "x-stack-access-type": "client",
            "x-stack-publishable-client-key": projects.demo.publishable_client_key,
          },
        });
        projectStatus = res.status;
        expect(((await res.json()) as { id: string }).id).toBe(projects.demo.project_id);
      },
    });
    console.log(formatTable(rows));
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(["auth", "identity", "teams_permissions", "billing", "email", "vault", "gateway"]));
    // Start-up time gets a 5× margin for a loaded CI machine; memory only 25 %, for every service.
    expect(violations(rows, { ready: 5, rss: 1.25 })).toEqual([]);
    expect(projectStatus).toBe(200);
  }, 1_200_000);
});

describe("image entry point (deploy/container/entrypoint.sh)", () => {
  let fakeNode: string;
  let db: TestDatabase | undefined;
  beforeAll(() => {
    // A stand-in for node that prints what it was asked to run: the dispatch is tested without a container.
    const dir = mkdtempSync(join(tmpdir(), "vestibule-entry-"));
    fakeNode = join(dir, "node");
    writeFileSync(fakeNode, '#!/bin/sh\necho "cwd=$(pwd) host=$HOST args=$*"\n');
    chmodSync(fakeNode, 0o755);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const entry = (args: string[], env: Record<string, string> = {}) =>
    run("sh", [ENTRYPOINT, ...args], { env: { PATH: process.env.PATH!, VESTIBULE_HOME: checkoutRoot, NODE: fakeNode, ...env } });

  it.each([
    ["auth", "services/auth/src/main.js"],
    ["identity", "services/identity/src/main.js"],
    ["teams-permissions", "services/teams-permissions/src/main.js"],
    ["billing", "services/billing/src/main.js"],
    ["email", "services/email/src/main.js"],
    ["vault", "services/vault/src/main.js"],
    ["gateway", "gateway/src/main.js"],
    ["frontends", "deploy/src/frontends-main.js"],
    ["migrate", "deploy/src/migrate.js"],
  ])("%s runs dist/%s", async (kind, file) => {
    const { stdout } = await entry([kind, "--extra"]);
    expect(stdout.trim()).toBe(`cwd=${DIST} host=0.0.0.0 args=${join(DIST, file)} --extra`);
    expect(existsSync(join(DIST, file))).toBe(true);
  });

  it("refuses an unknown or missing kind with exit code 64", async () => {
    for (const args of [["nope"], []]) {
      const err = (await entry(args).catch((e: unknown) => e)) as { code: number; stderr: string };
      expect(err.code).toBe(64);
      expect(err.stderr).toMatch(/usage: <auth\|identity\|teams-permissions\|billing\|email\|vault\|gateway\|frontends\|migrate>/);
    }
  });

  it("migrate applies every schema with the real node, and a second run has nothing to do", async () => {
    db = await createTestDatabase();
    const env = { NODE: process.execPath, DATABASE_URL: db.url, LOG_LEVEL: "warn" };
    const first = await entry(["migrate"], env);
    expect(JSON.parse(first.stdout.trim().split("\n").pop()!)).toMatchObject({ msg: "done", schemas: 6 });
    const again = await entry(["migrate", "--service", "teams-permissions"], env);
    expect(JSON.parse(again.stdout.trim().split("\n").pop()!)).toMatchObject({ msg: "done", schemas: 1, applied: 0 });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'schema_migrations'");
      expect(Number(rows[0]!.n)).toBe(6);
    } finally {
      await client.end();
    }
    const bad = (await entry(["migrate", "--service", "nope"], env).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown service "nope"/);
  }, 120_000);
});
