import { createPool } from "@vestibule/shared/db";
import { verifyAuditChains } from "./verify.ts";

/**
 * `npm run audit:verify`: recomputes every project's audit chain in DATABASE_URL (schema `identity`, or
 * VESTIBULE_IDENTITY_SCHEMA) in one read-only snapshot and prints the first broken row of each project; exit code 1
 * on any break, 2 when the database cannot be read.
 */
async function main(): Promise<number> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("audit:verify: set DATABASE_URL (the PostgreSQL the identity service uses)");
    return 2;
  }
  const schema = process.env.VESTIBULE_IDENTITY_SCHEMA ?? "identity";
  const pool = createPool({ connectionString: url, schema, max: 1, applicationName: "vestibule-audit-verify" });
  const client = await pool.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const report = await verifyAuditChains(client);
    await client.query("COMMIT");
    for (const b of report.breaks) {
      console.log(`BROKEN project=${b.project_id} seq=${b.seq} id=${b.id || "-"} ${b.kind}: ${b.detail}`);
    }
    const summary = `${report.projects} project(s), ${report.entries} entr${report.entries === 1 ? "y" : "ies"} checked`;
    if (report.breaks.length) {
      console.log(`audit:verify FAILED: ${report.breaks.length} broken chain(s); ${summary}`);
      return 1;
    }
    console.log(`audit:verify OK: ${summary}`);
    return 0;
  } finally {
    client.release();
    await pool.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`audit:verify: ${(err as Error).message}`);
    process.exit(2);
  },
);
