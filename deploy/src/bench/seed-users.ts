/**
 * Seeds a project with N synthetic users (default 1,000,000) straight into the identity schema, in batches of one
 * INSERT … SELECT FROM generate_series each (users and their primary e-mail channels in one statement), then recounts
 * the project's metrics aggregates and VACUUM ANALYZEs the tables. For benchmarks of user listing, search and metrics: it
 * bypasses the service, so it writes no events.
 *
 *   node --import tsx deploy/src/bench/seed-users.ts --project <project id> [--count 1000000] [--batch 50000]
 *        [--database-url postgres://…] [--schema identity]
 *
 * Without --project it creates a bare "Bench project" row (no API keys) and prints its id. DATABASE_URL is read when
 * --database-url is not given. Data shape (pseudo-random but reproducible per user number): 40 first names × 899
 * two-syllable surnames; e-mails in four common local-part styles plus the user number in hex (numbers continue after
 * the project's existing users, so seeding twice never collides), over 12 domains weighted like real traffic (a third gmail.com), used for auth, half
 * verified; 5 % anonymous users (no name or e-mail); sign-ups spread over the last 90 days with every two users
 * sharing one instant (exercises the id tie-break); 8 countries; a mix of password / OTP / GitHub sign-in methods.
 */
import { pathToFileURL } from "node:url";
import pg from "pg";

export interface SeedUsersOptions {
  readonly projectId: string;
  readonly count: number;
  readonly batchSize?: number;
  /** Sign-ups are spread evenly over this many days ending now. */
  readonly spanDays?: number;
  readonly onProgress?: (inserted: number, count: number) => void;
}

export interface SeedUsersResult {
  readonly inserted: number;
  readonly insertMs: number;
  readonly totalMs: number;
}

const FIRST = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Ken", "Radia", "Tony", "Frances", "John", "Margaret", "Dennis",
  "Linus", "Guido", "Bjarne", "James", "Anders", "Yukihiro", "Brendan", "Niklaus", "Leslie", "Shafi", "Silvio", "Whitfield", "Martin",
  "Adele", "Jean", "Sophie", "Hedy", "Katherine", "Dorothy", "Mary", "Annie", "Evelyn", "Betty", "Kathleen", "Ruth", "Marlyn", "Fran"];
/** Surnames are two syllables: 29 × 31 = 899 of them. */
const SURNAME_HEAD = ["Bran", "Cal", "Dun", "Fair", "Gold", "Hart", "Kings", "Lang", "Mar", "North", "Oak", "Pem", "Quin", "Ros",
  "Sel", "Thorn", "Ul", "Van", "Whit", "Yar", "Ash", "Black", "Crom", "Dal", "Ever", "Fen", "Gar", "Hol", "Kel"];
const SURNAME_TAIL = ["dell", "ford", "well", "ton", "wick", "field", "more", "by", "stone", "worth", "ley", "bridge", "wood", "ham",
  "croft", "dale", "gate", "holm", "lake", "mere", "port", "ridge", "shaw", "son", "thwaite", "vale", "wright", "berg", "mann", "ini", "ez"];
/** E-mail domains, weighted by repetition. */
const DOMAINS = ["gmail.com", "gmail.com", "gmail.com", "gmail.com", "outlook.com", "outlook.com", "yahoo.com", "icloud.com",
  "hotmail.com", "proton.me", "acme.io", "example.org"];
const COUNTRIES = ["US", "DE", "GB", "FR", "IN", "BR", "JP", "CA"];

/** Seeds `count` users into `projectId` through `client` (whose search_path is the identity schema). */
export async function seedUsers(client: pg.ClientBase, opts: SeedUsersOptions): Promise<SeedUsersResult> {
  const started = performance.now();
  const batch = Math.max(1, opts.batchSize ?? 50_000);
  const spanMs = (opts.spanDays ?? 90) * 86_400_000;
  const base = Date.now() - spanMs;
  // User numbers continue after the project's existing users, so seeding twice never repeats an e-mail.
  const { rows: existing } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE project_id = $1`, [opts.projectId]);
  const offset = existing[0]!.n;
  let inserted = 0;
  // Sign-ups are appended in time order, which keeps the sign-up indexes' inserts at their right edge.
  for (let from = 0; from < opts.count; from += batch) {
    const to = Math.min(opts.count, from + batch) - 1;
    await client.query(
      `WITH src AS MATERIALIZED (
         SELECT g, h, gen_random_uuid() AS id, first || ' ' || last AS name, anonymous, signed_up_at,
                CASE WHEN anonymous THEN NULL
                     ELSE CASE (h / 35960) % 4
                            WHEN 0 THEN lower(first) || '.' || lower(last)
                            WHEN 1 THEN lower(left(first, 1) || last)
                            WHEN 2 THEN lower(first || last) || (h % 100)
                            ELSE lower(last) || '_' || lower(first) END
                          || '.' || to_hex(g + $10) || '@' || ($8::text[])[1 + (h / 7) % 12] END AS email
           FROM (SELECT g, h, ($4::text[])[1 + h % 40] AS first,
                        ($5::text[])[1 + (h / 40) % 29] || ($11::text[])[1 + (h / 1160) % 31] AS last,
                        g % 20 = 19 AS anonymous,
                        to_timestamp(($6::float8 + (g / 2) * $7::float8) / 1000) AS signed_up_at
                   -- h: a multiplicative hash of g, so names, domains and flags are independent of sign-up order.
                   FROM (SELECT g, ((g + $10)::int8 * 2654435761) % 4294967296 AS h FROM generate_series($2::int, $3::int) AS g) gs) s
       ), u AS (
         INSERT INTO users (id, project_id, display_name, signed_up_at, is_anonymous, has_password, otp_auth_enabled,
                            oauth_providers, sign_up_method, country_code, search_text)
         SELECT id, $1, CASE WHEN anonymous THEN NULL ELSE name END, signed_up_at, anonymous,
                NOT anonymous AND h % 3 <> 0, NOT anonymous AND h % 5 = 0,
                CASE WHEN NOT anonymous AND h % 7 = 0 THEN jsonb_build_array(jsonb_build_object('id', 'github', 'account_id', g::text, 'email', NULL))
                     ELSE '[]'::jsonb END,
                CASE WHEN anonymous THEN 'anonymous' WHEN h % 7 = 0 THEN 'oauth' ELSE 'password' END,
                ($9::text[])[1 + (h / 3) % 8],
                CASE WHEN anonymous THEN '' ELSE lower(name) || E'\\n' || email END
           FROM src
       )
       INSERT INTO contact_channels (id, project_id, user_id, type, value, is_verified, is_primary, used_for_auth, created_at)
       SELECT gen_random_uuid(), $1, id, 'email', email, h % 2 = 0, true, true, signed_up_at
         FROM src WHERE NOT anonymous`,
      [opts.projectId, from, to, FIRST, SURNAME_HEAD, base, (2 * spanMs) / opts.count, DOMAINS, COUNTRIES, offset, SURNAME_TAIL],
    );
    inserted = to + 1;
    opts.onProgress?.(inserted, opts.count);
  }
  const insertMs = performance.now() - started;
  await recountAggregates(client, opts.projectId);
  // Merge the trigram index's pending list now rather than on the first searches.
  await client.query(`SELECT gin_clean_pending_list(to_regclass('users_search_text_trgm')) WHERE to_regclass('users_search_text_trgm') IS NOT NULL`);
  // Vacuum now (visibility map, statistics) and write the dirty pages out, so that neither autovacuum nor the
  // checkpointer does it in the middle of a benchmark. CHECKPOINT needs a privileged role; without one it is skipped.
  await client.query("VACUUM (ANALYZE) users, contact_channels");
  await client.query("CHECKPOINT").catch(() => {});
  return { inserted, insertMs, totalMs: performance.now() - started };
}

/** Rebuilds a project's sign-up, country and login-method counters from its users (activity counts are kept). */
async function recountAggregates(client: pg.ClientBase, projectId: string): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query(`UPDATE user_daily_stats SET sign_ups = 0 WHERE project_id = $1`, [projectId]);
    await client.query(
      `INSERT INTO user_daily_stats (project_id, day, is_anonymous, sign_ups)
       SELECT project_id, (signed_up_at AT TIME ZONE 'UTC')::date, is_anonymous, count(*) FROM users WHERE project_id = $1 GROUP BY 1, 2, 3
       ON CONFLICT (project_id, day, is_anonymous) DO UPDATE SET sign_ups = EXCLUDED.sign_ups`,
      [projectId],
    );
    await client.query(`DELETE FROM user_country_counts WHERE project_id = $1`, [projectId]);
    await client.query(
      `INSERT INTO user_country_counts (project_id, country_code, is_anonymous, users)
       SELECT project_id, country_code, is_anonymous, count(*) FROM users WHERE project_id = $1 AND country_code IS NOT NULL GROUP BY 1, 2, 3`,
      [projectId],
    );
    await client.query(`DELETE FROM user_login_method_counts WHERE project_id = $1`, [projectId]);
    await client.query(
      `INSERT INTO user_login_method_counts (project_id, method, is_anonymous, users)
       SELECT $1, method, is_anonymous, count(*) FROM (
         SELECT is_anonymous, 'password' AS method FROM users WHERE project_id = $1 AND has_password
         UNION ALL SELECT is_anonymous, 'otp' FROM users WHERE project_id = $1 AND otp_auth_enabled
         UNION ALL SELECT is_anonymous, 'passkey' FROM users WHERE project_id = $1 AND passkey_auth_enabled
         UNION ALL SELECT DISTINCT ON (u.id, lower(p->>'id')) u.is_anonymous, lower(p->>'id')
           FROM users u, jsonb_array_elements(u.oauth_providers) p WHERE u.project_id = $1
       ) m GROUP BY 2, 3`,
      [projectId],
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const databaseUrl = arg("database-url") ?? process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error("give --database-url or set DATABASE_URL");
  const schema = arg("schema") ?? "identity";
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema ${schema}`);
  const count = Number(arg("count") ?? 1_000_000);
  const batchSize = Number(arg("batch") ?? 50_000);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(batchSize) || batchSize < 1) throw new Error("--count and --batch must be positive integers");
  const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    let projectId = arg("project");
    if (!projectId) {
      const { rows } = await client.query<{ id: string }>(`INSERT INTO projects (id, display_name) VALUES (gen_random_uuid()::text, 'Bench project') RETURNING id`);
      projectId = rows[0]!.id;
      process.stdout.write(`created project ${projectId}\n`);
    }
    const result = await seedUsers(client, {
      projectId,
      count,
      batchSize,
      onProgress: (n, total) => process.stdout.write(`\r${n.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} users`),
    });
    process.stdout.write(
      `\nseeded ${result.inserted.toLocaleString("en-US")} users into project ${projectId} in ${(result.totalMs / 1000).toFixed(1)} s ` +
        `(inserts ${(result.insertMs / 1000).toFixed(1)} s, ${Math.round(result.inserted / (result.insertMs / 1000)).toLocaleString("en-US")} users/s)\n`,
    );
  } finally {
    await client.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err: unknown) => {
    process.stderr.write(`seed-users: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
