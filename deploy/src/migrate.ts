/**
 * The `migrate` process kind (Kubernetes migration Job, `entrypoint.sh migrate`): applies every service's
 * migrations (the runtime tables, then the service's own) to its schema and exits. The same code and the same
 * advisory lock as a service's own start, so running it before a rollout only moves the work out of the pods'
 * start-up; a service still checks (and, if needed, applies) its migrations when it starts.
 *
 *   DATABASE_URL=postgres://... node dist/deploy/src/migrate.js [--service identity ...]
 *
 * Exit 0 when every schema is up to date, 1 on a failed migration, 2 on a configuration error.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPool, migrate, readMigrations } from "@vestibule/shared/db";
import { createLogger } from "@vestibule/shared/log";
import { checkoutRoot } from "./paths.ts";
import { SERVICES, SERVICE_NAMES, type ServiceName } from "./services.ts";

export interface MigrateResult {
  readonly service: ServiceName;
  readonly applied: readonly string[];
}

/** Migrations of one service, read from its folder in this tree (sources or release build). */
export function migrationsOf(name: ServiceName): ReturnType<typeof readMigrations> {
  return [
    ...readMigrations(join(checkoutRoot, "services", "shared", "migrations"), "runtime:"),
    ...readMigrations(join(checkoutRoot, "services", SERVICES[name].dir, "migrations")),
  ];
}

export async function migrateAll(options: {
  databaseUrl: string;
  services?: readonly ServiceName[];
  logLevel?: string;
}): Promise<MigrateResult[]> {
  const results: MigrateResult[] = [];
  for (const service of options.services ?? SERVICE_NAMES) {
    const log = createLogger({ service: `migrate:${service}`, level: options.logLevel ?? "info" });
    const pool = createPool({ connectionString: options.databaseUrl, schema: service, max: 1, applicationName: "vestibule-migrate" });
    try {
      const applied = await migrate(pool, service, migrationsOf(service), log);
      log.info({ schema: service, applied: applied.length }, applied.length ? "migrations applied" : "schema up to date");
      results.push({ service, applied });
    } finally {
      await pool.end();
    }
  }
  return results;
}

function parseServices(argv: readonly string[]): ServiceName[] | undefined {
  const picked: ServiceName[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== "--service") throw new Error(`unknown argument ${argv[i]} (usage: migrate [--service <name>]...)`);
    const raw = (argv[++i] ?? "").replace(/-/g, "_");
    if (!(SERVICE_NAMES as readonly string[]).includes(raw)) throw new Error(`unknown service "${argv[i] ?? ""}" (one of ${SERVICE_NAMES.join(", ")})`);
    picked.push(raw as ServiceName);
  }
  return picked.length ? picked : undefined;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let services: ServiceName[] | undefined;
  const databaseUrl = process.env.DATABASE_URL;
  try {
    services = parseServices(process.argv.slice(2));
    if (!databaseUrl) throw new Error("DATABASE_URL is required");
  } catch (err) {
    process.stderr.write(`migrate: ${(err as Error).message}\n`);
    process.exit(2);
  }
  try {
    const results = await migrateAll({ databaseUrl: databaseUrl!, services, logLevel: process.env.LOG_LEVEL || "info" });
    const total = results.reduce((n, r) => n + r.applied.length, 0);
    process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), service: "migrate", msg: "done", schemas: results.length, applied: total })}\n`);
    process.exit(0);
  } catch (err) {
    process.stderr.write(`migrate: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
