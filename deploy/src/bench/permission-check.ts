/**
 * `node --import tsx deploy/src/bench/permission-check.ts [--members 10000] [--definitions 200] [--checks 20000]`:
 * permission-check latency at scale. Creates a scratch database on DATABASE_URL (or the local PostgreSQL at
 * 127.0.0.1:5432/test), runs the identity and teams-permissions services in this process, writes a definition graph of
 * N team permissions (each containing up to 3 earlier ones and sometimes a system permission, so chains run deep)
 * through the project configuration, seeds one team with M members holding 1-3 direct grants each, then times
 * "may this user do X in this team" one check at a time:
 *   - the service's check itself (PermissionChecker.checkTeam: the in-memory closure plus one indexed read), the hot
 *     path every RPC and every other caller goes through; issue 19's target is p99 under 2 ms at 10,000 members
 *     (bench/targets.ts), and its verdict is printed;
 *   - the same through the CheckTeamPermission RPC (gRPC over h2c on loopback, client and server in this process),
 *     which adds one RPC hop.
 * Also prints how long building the closure of the whole graph takes. The database is dropped at the end.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createPool } from "@vestibule/shared/db";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService } from "@vestibule/shared/service";
import { createTestDatabase } from "@vestibule/shared/testing";
import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { PermissionService } from "@vestibule/proto/teams_permissions/v1/permission_service";
import { identityService } from "@vestibule/identity";
import { teamsPermissionsService } from "@vestibule/teams-permissions";
import { teamsRuntime } from "@vestibule/teams-permissions/runtime";
import { LATENCY_TARGETS, scaleNote, verdict } from "./targets.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Prints the latency figures of `samples`; answers their p99. */
function report(name: string, samples: number[], unit = "checks"): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  process.stdout.write(
    `${name.padEnd(44)} p50 ${percentile(sorted, 50).toFixed(3)} ms  p99 ${percentile(sorted, 99).toFixed(3)} ms  max ${sorted[sorted.length - 1]!.toFixed(3)} ms  mean ${mean.toFixed(3)} ms  (${samples.length} ${unit})\n`,
  );
  return percentile(sorted, 99);
}

const SYSTEM = ["$update_team", "$delete_team", "$read_members", "$remove_members", "$invite_members", "$manage_api_keys"];

async function main(): Promise<void> {
  const memberCount = arg("--members", 10_000);
  const definitionCount = arg("--definitions", 200);
  const checkCount = arg("--checks", 20_000);
  process.env.DATABASE_URL ||= "postgres://postgres@127.0.0.1:5432/test";
  const db = await createTestDatabase("vestibule_bench");
  const env = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    VESTIBULE_MODE: "development", // tests and benchmarks use the development conveniences (dev mailbox)
    LOG_LEVEL: "silent",
    PORT: "0",
  };
  const log = createLogger({ service: "bench", level: "silent" });
  const identity = await startService(identityService, { env, log });
  const teamsEnv = { ...env, VESTIBULE_IDENTITY_URL: `http://127.0.0.1:${identity.port}` };
  const teams = await startService(teamsPermissionsService, { env: teamsEnv, log });
  const pool = createPool({ connectionString: db.url, schema: "teams_permissions", max: 4 });
  try {
    const rpc = (port: number) => ({ baseUrl: `http://127.0.0.1:${port}`, caller: "bench", secret: env.VESTIBULE_SERVICE_SECRET, timeoutMs: 60_000 });
    const projects = createServiceClient(ProjectService, rpc(identity.port));
    const permissions = createServiceClient(PermissionService, rpc(teams.port));

    // The definition graph: p000 ... p199, each containing up to 3 earlier definitions (a DAG with long chains).
    const ids = Array.from({ length: definitionCount }, (_, i) => `bench:p${String(i).padStart(3, "0")}`);
    const override: Record<string, unknown> = {};
    let edges = 0;
    ids.forEach((id, i) => {
      const contained: Record<string, true> = {};
      if (i > 0) contained[ids[i - 1]!] = true; // a chain through every definition
      for (let k = 0; k < 2 && i > 1; k++) contained[ids[Math.floor(Math.random() * (i - 1))]!] = true;
      if (i % 10 === 0) contained[SYSTEM[(i / 10) % SYSTEM.length]!] = true;
      edges += Object.keys(contained).length;
      override[`rbac.permissions.${id}`] = { scope: "team", description: `Benchmark permission ${i}`, containedPermissionIds: contained };
    });
    const { project } = await projects.createProject({ displayName: "Permission benchmark" });
    const projectId = project!.id;
    const { project: configured } = await projects.updateConfigOverride({ projectId, configOverrideJson: JSON.stringify(override) });
    process.stdout.write(`${definitionCount} team definitions (+6 system), ${edges} contained-permission edges, chain depth ${definitionCount}\n`);

    // One team, M members with 1-3 direct grants each (seeded with SQL: the check does not need the users in identity).
    const teamId = randomUUID();
    await pool.query(`INSERT INTO teams (id, project_id, display_name) VALUES ($1, $2, 'Benchmark team')`, [teamId, projectId]);
    const members = Array.from({ length: memberCount }, () => randomUUID());
    const started = performance.now();
    for (let offset = 0; offset < members.length; offset += 2000) {
      const batch = members.slice(offset, offset + 2000);
      await pool.query(`INSERT INTO team_members (team_id, user_id, project_id) SELECT $1, u, $2 FROM unnest($3::uuid[]) u`, [teamId, projectId, batch]);
      const grantUsers: string[] = [];
      const grantIds: string[] = [];
      for (const user of batch) {
        const n = 1 + Math.floor(Math.random() * 3);
        const picked = new Set<string>();
        while (picked.size < n) picked.add(ids[Math.floor(Math.random() * ids.length)]!);
        for (const id of picked) {
          grantUsers.push(user);
          grantIds.push(id);
        }
      }
      await pool.query(
        `INSERT INTO team_permission_grants (team_id, user_id, permission_id, project_id) SELECT $1, u, p, $2 FROM unnest($3::uuid[], $4::text[]) AS g(u, p)`,
        [teamId, projectId, grantUsers, grantIds],
      );
    }
    await pool.query(`ANALYZE team_members; ANALYZE team_permission_grants`);
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM team_permission_grants WHERE team_id = $1`, [teamId]);
    process.stdout.write(`seeded ${memberCount.toLocaleString("en-US")} members with ${rows[0]!.n.toLocaleString("en-US")} direct grants in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

    // Building the closure of the whole graph (what an identity.project.* event costs each replica, once).
    const rt = teamsRuntime(teams.ctx);
    const builds: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      rt.settings.put(configured!);
      builds.push(performance.now() - t0);
      rt.settings.invalidate(projectId);
    }
    report("closure build (parse + expand all definitions)", builds, "builds");
    await rt.settings.get(projectId, Number(configured!.version));

    // Checks: a random member, a random permission (definitions and system permissions alike).
    const targets = [...ids, ...SYSTEM];
    const pick = () => ({ userId: members[Math.floor(Math.random() * members.length)]!, permissionId: targets[Math.floor(Math.random() * targets.length)]! });
    let granted = 0;
    const measure = async (name: string, check: (userId: string, permissionId: string) => Promise<boolean>) => {
      for (let i = 0; i < 2000; i++) {
        const c = pick();
        await check(c.userId, c.permissionId); // warm-up: connections, prepared statements, JIT
      }
      const samples: number[] = [];
      granted = 0;
      for (let i = 0; i < checkCount; i++) {
        const c = pick();
        const t0 = performance.now();
        if (await check(c.userId, c.permissionId)) granted++;
        samples.push(performance.now() - t0);
      }
      const p99 = report(name, samples);
      process.stdout.write(`${"".padEnd(44)} ${((granted / checkCount) * 100).toFixed(1)} % of the checks granted\n`);
      return p99;
    };
    const hotPathP99 = await measure("check (service hot path, in process)", async (userId, permissionId) => (await rt.checker.checkTeam(projectId, teamId, userId, permissionId)).granted);
    await measure("check over the CheckTeamPermission RPC", async (userId, permissionId) => (await permissions.checkTeamPermission({ projectId, teamId, userId, permissionId })).granted);
    // A non-member costs the same one read.
    const stranger = randomUUID();
    await measure("check of a non-member (in process)", async (_userId, permissionId) => (await rt.checker.checkTeam(projectId, teamId, stranger, permissionId)).isMember);
    const target = LATENCY_TARGETS.permissionCheck;
    process.stdout.write(
      `target: permission check (service hot path), p99 < ${target.p99Ms} ms: ${verdict(hotPathP99 < target.p99Ms)}${scaleNote(target, memberCount, "members")}\n`,
    );
  } finally {
    await pool.end();
    await teams.stop();
    await identity.stop();
    await db.drop();
  }
}

await main();
