/**
 * Vitest global setup (`test.globalSetup` in vitest.config.ts): when DATABASE_URL is unset, starts one embedded
 * Postgres (data under `.vestibule/test-pg`) for the whole run and points DATABASE_URL at it, so that every test
 * process shares it; stops it when the run ends. With DATABASE_URL set (CI) it does nothing.
 */
import { startEmbeddedPostgres } from "./embedded-postgres.ts";
import { TEST_PG_DIR, TEST_PG_PORT } from "./test-platform.ts";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DATABASE_URL) return undefined;
  const pg = await startEmbeddedPostgres({
    dataDir: TEST_PG_DIR,
    port: TEST_PG_PORT,
    database: "postgres",
    // Another test run in progress keeps its cluster; this run gets .vestibule/test-pg-2 (and so on).
    whenBusy: "next-dir",
    onInfo: (message) => process.stderr.write(`test postgres | ${message}\n`),
  });
  process.env.DATABASE_URL = pg.urlFor("postgres");
  return async () => {
    delete process.env.DATABASE_URL;
    await pg.stop();
  };
}
