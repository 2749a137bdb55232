/**
 * Identity's audit-log capability (AuditService) on real Postgres: one hash chain per project under concurrent
 * appends, idempotent appends, `before` from the resource's previous entry, secrets removed, filters and cursor, and
 * `npm run audit:verify` (the real script, as a child process) passing an intact chain and naming the row of an
 * edited, deleted or reordered one.
 */
import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditService } from "@vestibule/proto/audit/v1/audit_service";
import { createPool, type Pool } from "@vestibule/shared/db";
import { createLogger } from "@vestibule/shared/log";
import { createServiceClient } from "@vestibule/shared/rpc";
import { generateMasterKeyEntry } from "@vestibule/shared/secrets";
import { startService, type RunningService } from "@vestibule/shared/service";
import { createTestDatabase, type TestDatabase } from "@vestibule/shared/testing";
import { identityService } from "../src/server.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const log = createLogger({ service: "test", level: "silent" });
let db: TestDatabase;
let identity: RunningService;
let pool: Pool;
let audit: ReturnType<typeof createServiceClient<typeof AuditService>>;

beforeAll(async () => {
  db = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VESTIBULE_MASTER_KEYS: generateMasterKeyEntry(),
    VESTIBULE_SERVICE_SECRET: randomBytes(32).toString("hex"),
    LOG_LEVEL: "silent",
    PORT: "0",
    VESTIBULE_DB_POOL_SIZE: "8",
  };
  identity = await startService(identityService, { env, log });
  pool = createPool({ connectionString: db.url, schema: "identity", max: 2 });
  audit = createServiceClient(AuditService, { baseUrl: `http://127.0.0.1:${identity.port}`, caller: "gateway", secret: env.VESTIBULE_SERVICE_SECRET!, timeoutMs: 60_000 });
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await identity?.stop();
  await db?.drop();
});

function entry(projectId: string, over: Partial<{ resourceId: string; action: string; after: unknown; entryId: string; actorType: string }> = {}) {
  return {
    entryId: over.entryId ?? randomUUID(),
    projectId,
    actor: { type: over.actorType ?? "server_key", id: "key-set-1", projectId, ip: "203.0.113.7", userAgent: "test" },
    action: over.action ?? "user.update",
    resourceType: "user",
    resourceId: over.resourceId ?? "u1",
    afterJson: JSON.stringify(over.after ?? { id: over.resourceId ?? "u1", display_name: "x" }),
    requestId: "req-1",
    requestLine: "PATCH /api/v1/users/u1",
  };
}

function verify(): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile("npm", ["run", "--silent", "audit:verify"], { cwd: root, env: { ...process.env, DATABASE_URL: db.url } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

describe("audit chain", () => {
  it("concurrent appends to one project form one chain without forks, seq 1..n", async () => {
    const project = `p-${randomUUID()}`;
    await Promise.all(Array.from({ length: 40 }, (_, i) => audit.appendAuditEntry(entry(project, { resourceId: `u${i % 5}` }))));
    const { rows } = await pool.query<{ seq: string; prev_hash: string; hash: string }>(`SELECT seq, prev_hash, hash FROM audit_entries WHERE project_id = $1 ORDER BY seq`, [project]);
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(rows[0]!.prev_hash).toBe("0".repeat(64));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    expect(new Set(rows.map((r) => r.prev_hash)).size).toBe(40);
  }, 60_000);

  it("a redelivered append (same entry id) adds no row; before comes from the resource's previous entry; secrets are dropped", async () => {
    const project = `p-${randomUUID()}`;
    const first = entry(project, { action: "user.create", after: { id: "u1", display_name: "Ann", password: "hunter2", has_password: true } });
    const a = await audit.appendAuditEntry(first);
    const again = await audit.appendAuditEntry(first);
    expect(a.appended).toBe(true);
    expect(again.appended).toBe(false);
    expect(again.entry?.hash).toBe(a.entry?.hash);
    const b = await audit.appendAuditEntry(entry(project, { after: { id: "u1", display_name: "Bea", secret_server_key: "ssk_x" } }));
    expect(JSON.parse(b.entry!.beforeJson)).toEqual({ id: "u1", display_name: "Ann", password: "[redacted]", has_password: true });
    expect(JSON.parse(b.entry!.afterJson)).toEqual({ id: "u1", display_name: "Bea", secret_server_key: "[redacted]" });
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM audit_entries WHERE project_id = $1`, [project]);
    expect(rows[0].n).toBe(2);
    expect(b.entry!.prevHash).toBe(a.entry!.hash);
  });

  it("stores values jsonb refuses (lone surrogates, NUL) as U+FFFD instead of losing the entry; the chain verifies", async () => {
    const project = `p-${randomUUID()}`;
    const after = { id: "u1", display_name: "lone \ud800 high, \udc00 low, nul \u0000 end", ["k\ud83d"]: "pair \ud83d\ude00 kept" };
    const r = await audit.appendAuditEntry(entry(project, { after }));
    expect(r.appended).toBe(true);
    expect(JSON.parse(r.entry!.afterJson)).toEqual({ id: "u1", display_name: "lone \ufffd high, \ufffd low, nul \ufffd end", ["k\ufffd"]: "pair \ud83d\ude00 kept" });
    const ok = await verify();
    expect(ok.code, ok.out).toBe(0);
  });

  it("filters and pages with a cursor, newest first", async () => {
    const project = `p-${randomUUID()}`;
    for (let i = 0; i < 7; i++) await audit.appendAuditEntry(entry(project, { resourceId: i % 2 ? "odd" : "even", actorType: i < 3 ? "admin_key" : "server_key" }));
    const seen: bigint[] = [];
    let cursor: string | undefined;
    do {
      const page = await audit.listAuditEntries({ projectId: project, limit: 3, cursor });
      seen.push(...page.entries.map((e) => e.seq));
      cursor = page.nextCursor || undefined;
    } while (cursor);
    expect(seen).toEqual([7n, 6n, 5n, 4n, 3n, 2n, 1n]);
    const odd = await audit.listAuditEntries({ projectId: project, resourceId: "odd", limit: 10 });
    expect(odd.entries.map((e) => e.seq)).toEqual([6n, 4n, 2n]);
    const keys = await audit.listAuditEntries({ projectId: project, actorType: "admin_key", resourceId: "even", limit: 10 });
    expect(keys.entries.map((e) => e.seq)).toEqual([3n, 1n]);
    const none = await audit.listAuditEntries({ projectId: project, sinceMillis: BigInt(Date.now() + 60_000), limit: 10 });
    expect(none.entries).toEqual([]);
    await expect(audit.listAuditEntries({ projectId: project, cursor: "garbage" })).rejects.toThrow(/Invalid cursor/);
  });
});

describe("npm run audit:verify", () => {
  it("passes intact chains and names the first broken row of an edited, deleted or reordered chain", async () => {
    expect(await verify()).toMatchObject({ code: 0 });

    const edited = `p-${randomUUID()}`;
    const deleted = `p-${randomUUID()}`;
    const tail = `p-${randomUUID()}`;
    const reordered = `p-${randomUUID()}`;
    for (const p of [edited, deleted, tail, reordered]) for (let i = 0; i < 5; i++) await audit.appendAuditEntry(entry(p, { resourceId: `r${i}` }));
    const idOf = async (p: string, seq: number) =>
      (await pool.query<{ id: string }>(`SELECT id FROM audit_entries WHERE project_id = $1 AND seq = $2`, [p, seq])).rows[0]!.id;
    const ok = await verify();
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/audit:verify OK/);

    const editedId = await idOf(edited, 3);
    await pool.query(`UPDATE audit_entries SET after = '{"id":"r2","display_name":"forged"}' WHERE project_id = $1 AND seq = 3`, [edited]);
    const deletedNext = await idOf(deleted, 3);
    await pool.query(`DELETE FROM audit_entries WHERE project_id = $1 AND seq = 2`, [deleted]);
    await pool.query(`DELETE FROM audit_entries WHERE project_id = $1 AND seq = 5`, [tail]);
    const movedId = await idOf(reordered, 2);
    await pool.query(`UPDATE audit_entries SET seq = -1 WHERE project_id = $1 AND seq = 2`, [reordered]);
    await pool.query(`UPDATE audit_entries SET seq = 2 WHERE project_id = $1 AND seq = 4`, [reordered]);
    await pool.query(`UPDATE audit_entries SET seq = 4 WHERE project_id = $1 AND seq = -1`, [reordered]);

    const broken = await verify();
    expect(broken.code, broken.out).toBe(1);
    expect(broken.out).toContain(`BROKEN project=${edited} seq=3 id=${editedId} edited`);
    expect(broken.out).toContain(`BROKEN project=${deleted} seq=3 id=${deletedNext} deleted`);
    expect(broken.out).toMatch(new RegExp(`BROKEN project=${tail} seq=5 id=- deleted: the newest row\\(s\\) seq 5\\.\\.5 were deleted`));
    expect(broken.out).toMatch(new RegExp(`BROKEN project=${reordered} seq=2 id=[0-9a-f-]+ reordered: the row was written as seq 4`));
    expect(broken.out).toContain("audit:verify FAILED: 4 broken chain(s)");
    expect(movedId).toBeTruthy();
  }, 120_000);
});
