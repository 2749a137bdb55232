/**
 * ListUsers search correctness on a larger project: every search access path (sample, index walk, trigram index)
 * returns exactly what a plain filtered scan returns, pages 1 and 2, both directions. Latency is measured by the
 * benchmark (`npm run bench:list -- --users 1000000`), not here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedUsers } from "../../../deploy/src/bench/seed-users.ts";
import { substringPattern } from "../src/domain/users.ts";
import { startIdentity, type IdentityHarness } from "./support.ts";

const SEEDED_USERS = 30_000;

let h: IdentityHarness;
let projectId: string;

beforeAll(async () => {
  h = await startIdentity();
  projectId = await h.newProject();
  const client = await h.pool.connect();
  try {
    const seeded = await seedUsers(client, { projectId, count: SEEDED_USERS });
    console.log(`seeded ${seeded.inserted} users in ${(seeded.totalMs / 1000).toFixed(1)} s`);
  } finally {
    client.release();
  }
}, 180_000);
afterAll(async () => {
  await h?.stop();
});

describe(`ListUsers at ${SEEDED_USERS.toLocaleString("en-US")} users`, () => {
  it("returns the same search pages, whichever access path a term takes, as a plain filtered scan", async () => {
    // Terms from every frequency band: common (served by the sample), around the walk/trigram threshold, rare, e-mail.
    const { rows } = await h.pool.query<{ display_name: string; value: string }>(
      `SELECT u.display_name, c.value FROM users u JOIN contact_channels c ON c.user_id = u.id WHERE u.project_id = $1 ORDER BY random() LIMIT 3`,
      [projectId],
    );
    const terms = ["gmail", "a", "ada", ...rows.flatMap((r) => [r.display_name.split(" ")[1]!, r.display_name, r.value, r.value.slice(0, 6)])];
    for (const term of terms) {
      for (const desc of [false, true]) {
        const dir = desc ? "DESC" : "ASC";
        const expected = await h.pool.query<{ id: string }>(
          `SELECT id FROM users WHERE project_id = $1 AND NOT is_anonymous AND search_text LIKE $2 ORDER BY signed_up_at ${dir}, id ${dir} LIMIT 201`,
          [projectId, substringPattern(term)],
        );
        const ids = expected.rows.map((r) => r.id);
        const first = await h.users.listUsers({ projectId, limit: 100, query: term, desc });
        expect(first.users.map((u) => u.id), term).toEqual(ids.slice(0, 100));
        expect(first.nextCursor, term).toBe(ids[100] ?? "");
        if (first.nextCursor) {
          const second = await h.users.listUsers({ projectId, limit: 100, query: term, desc, cursor: first.nextCursor });
          expect(second.users.map((u) => u.id), term).toEqual(ids.slice(100, 200));
        }
      }
    }
  }, 60_000);
});
