import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startIdentity, type IdentityHarness } from "./support.ts";

let h: IdentityHarness;
let projectId: string;

beforeAll(async () => {
  h = await startIdentity();
  projectId = await h.newProject();
});
afterAll(async () => {
  await h?.stop();
});

interface Metrics {
  total_users: number;
  daily_users: Array<{ date: string; activity: number }>;
  daily_active_users: Array<{ date: string; activity: number }>;
  users_by_country: Record<string, number>;
  recently_registered: Array<Record<string, unknown>>;
  recently_active: Array<Record<string, unknown>>;
  login_methods: Array<{ method: string; count: number }>;
}

async function metrics(includeAnonymous = false): Promise<Metrics> {
  return JSON.parse((await h.users.getUserMetrics({ projectId, includeAnonymous })).metricsJson) as Metrics;
}

const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - DAY).toISOString().slice(0, 10);
const at = (m: Metrics["daily_users"], date: string) => m.find((p) => p.date === date)?.activity;

/** The aggregate tables must always equal a recount from the users table. */
async function expectAggregatesMatchRecount(): Promise<void> {
  const q = async (sql: string) => (await h.pool.query(sql, [projectId])).rows;
  expect(
    await q(`SELECT day::text, is_anonymous, sign_ups FROM user_daily_stats WHERE project_id = $1 AND sign_ups <> 0 ORDER BY 1, 2`),
  ).toEqual(
    await q(`SELECT (signed_up_at AT TIME ZONE 'UTC')::date::text AS day, is_anonymous, count(*)::int AS sign_ups FROM users WHERE project_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`),
  );
  expect(await q(`SELECT country_code, is_anonymous, users FROM user_country_counts WHERE project_id = $1 AND users <> 0 ORDER BY 1, 2`)).toEqual(
    await q(`SELECT country_code, is_anonymous, count(*)::int AS users FROM users WHERE project_id = $1 AND country_code IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`),
  );
  expect(await q(`SELECT method, is_anonymous, users FROM user_login_method_counts WHERE project_id = $1 AND users <> 0 ORDER BY 1, 2`)).toEqual(
    await q(`SELECT method, is_anonymous, count(*)::int AS users FROM (
               SELECT is_anonymous, 'password' AS method FROM users WHERE project_id = $1 AND has_password
               UNION ALL SELECT is_anonymous, 'otp' FROM users WHERE project_id = $1 AND otp_auth_enabled
               UNION ALL SELECT is_anonymous, 'passkey' FROM users WHERE project_id = $1 AND passkey_auth_enabled
               UNION ALL SELECT DISTINCT ON (u.id, p->>'id') u.is_anonymous, lower(p->>'id') FROM users u, jsonb_array_elements(u.oauth_providers) p WHERE u.project_id = $1
             ) m GROUP BY 1, 2 ORDER BY 1, 2`),
  );
}

describe("GetUserMetrics", () => {
  it("reports totals, daily sign-ups and actives, countries, recent users and login methods from aggregates", async () => {
    const u1 = (await h.users.createUser({ projectId, displayName: "One", primaryEmail: "one@example.com", primaryEmailAuthEnabled: true, hasPassword: true, signUpIp: "8.8.8.8", signUpMethod: "password" })).user!;
    const u2 = (await h.users.createUser({ projectId, displayName: "Two", otpAuthEnabled: true, signUpIp: "81.2.69.142", oauthProviders: [{ id: "github", accountId: "1" }, { id: "google", accountId: "2" }] })).user!;
    const u3 = (await h.users.createUser({ projectId, displayName: "Three", passkeyAuthEnabled: true })).user!;
    const anon = (await h.users.createUser({ projectId, isAnonymous: true, signUpIp: "8.8.4.4" })).user!;
    await expectAggregatesMatchRecount();

    let m = await metrics();
    expect(m.total_users).toBe(3);
    expect(m.daily_users).toHaveLength(31);
    expect(m.daily_users.at(-1)).toEqual({ date: today(), activity: 3 });
    expect(m.daily_users[0]!.date).toBe(new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10));
    expect(m.daily_active_users.every((p) => p.activity === 0)).toBe(true);
    expect(m.users_by_country).toEqual({ GB: 1, US: 1 });
    expect(m.login_methods).toEqual(
      expect.arrayContaining([{ method: "password", count: 1 }, { method: "otp", count: 1 }, { method: "passkey", count: 1 }, { method: "github", count: 1 }, { method: "google", count: 1 }]),
    );
    expect(m.login_methods).toHaveLength(5);
    expect(m.recently_registered.map((u) => u.id)).toEqual([u3.id, u2.id, u1.id]);
    expect(m.recently_registered[2]).toMatchObject({
      id: u1.id,
      display_name: "One",
      primary_email: "one@example.com",
      signed_up_at_millis: Number(u1.signedUpAtMillis),
      last_active_at_millis: Number(u1.signedUpAtMillis),
      has_password: true,
      auth_with_email: true,
    });
    expect(m.recently_active).toEqual([]);

    const withAnon = await metrics(true);
    expect(withAnon.total_users).toBe(4);
    expect(withAnon.users_by_country).toEqual({ GB: 1, US: 2 });
    expect(withAnon.recently_registered[0]!.id).toBe(anon.id);

    // Activity: u2 yesterday then today, u1 several times and in concurrent batches, u3 with an IP (gets a country).
    const now = Date.now();
    await h.users.recordActivity({ activities: [{ projectId, userId: u2.id, atMillis: BigInt(now - DAY) }] });
    await h.users.recordActivity({ activities: [{ projectId, userId: u2.id, atMillis: BigInt(now - 1000) }] });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => h.users.recordActivity({ activities: [{ projectId, userId: u1.id, atMillis: BigInt(now - 500 + i) }] })),
    );
    await h.users.recordActivity({
      activities: [
        { projectId, userId: u1.id, atMillis: BigInt(now) },
        { projectId, userId: u3.id, atMillis: BigInt(now + 5), ip: "8.8.8.8" },
        { projectId, userId: anon.id, atMillis: BigInt(now - 2000) },
        // Unknown users and users of another project are ignored.
        { projectId, userId: "0b3c2f4e-5d6a-4b7c-8d9e-0f1a2b3c4d5e", atMillis: BigInt(now) },
        { projectId: "internal", userId: u1.id, atMillis: BigInt(now) },
      ],
    });
    m = await metrics();
    expect(at(m.daily_active_users, today())).toBe(3);
    if (yesterday() !== today()) expect(at(m.daily_active_users, yesterday())).toBe(1);
    expect(m.users_by_country).toEqual({ GB: 1, US: 2 });
    expect(m.recently_active.map((u) => u.id)).toEqual([u3.id, u1.id, u2.id]);
    expect(m.recently_active[1]).toMatchObject({ id: u1.id, last_active_at_millis: now });
    expect((await h.users.getUser({ projectId, userId: u1.id })).user?.lastActiveAtMillis).toBe(BigInt(now));
    expect(at((await metrics(true)).daily_active_users, today())).toBe(4);
    expect((await metrics(true)).recently_active.map((u) => u.id)).toEqual([u3.id, u1.id, u2.id, anon.id]);
    await expectAggregatesMatchRecount();

    // An anonymous user who signs up for real moves into the non-anonymous counts; a deleted user leaves them.
    await h.users.updateUser({ projectId, userId: anon.id, isAnonymous: false, hasPassword: true });
    await h.users.deleteUser({ projectId, userId: u2.id });
    await h.users.updateUser({ projectId, userId: u3.id, passkeyAuthEnabled: false, otpAuthEnabled: true });
    m = await metrics();
    expect(m.total_users).toBe(3);
    expect(m.daily_users.at(-1)).toEqual({ date: today(), activity: 3 });
    expect(m.users_by_country).toEqual({ US: 3 });
    expect(m.login_methods).toEqual([
      { method: "password", count: 2 },
      { method: "otp", count: 1 },
    ]);
    expect((await metrics(true)).total_users).toBe(3);
    await expectAggregatesMatchRecount();
  });
});

describe("GetUserActivityReport", () => {
  interface Report {
    granularity: string;
    from: string;
    to: string;
    buckets: Array<{ start: string; sign_ups: number; active_users: number }>;
    retention: Array<{ week: string; users: number; retained: Array<{ offset: number; users: number; share: number }> }>;
  }
  const report = async (project: string, days: number, granularity: string) =>
    JSON.parse((await h.users.getUserActivityReport({ projectId: project, includeAnonymous: false, days, granularity })).reportJson) as Report;
  const mondayOf = (ms: number) => {
    const d = new Date(ms);
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
  };

  it("counts sign-ups and distinct active users per bucket and weekly retention from the recorded active days", async () => {
    const project = await h.newProject();
    const [a, b, c] = await Promise.all(["a", "b", "c"].map(async (n) => (await h.users.createUser({ projectId: project, displayName: n })).user!));
    let r = await report(project, 7, "day");
    expect(r.buckets).toHaveLength(7);
    expect(r.buckets.at(-1)).toEqual({ start: today(), sign_ups: 3, active_users: 0 });

    // a was active 8 and 15 days ago and today (three weeks), b twice today: each is one active user per bucket.
    const now = Date.now();
    for (const at of [now - 15 * DAY, now - 8 * DAY, now - 1000, now]) await h.users.recordActivity({ activities: [{ projectId: project, userId: a!.id, atMillis: BigInt(at) }] });
    for (const at of [now - 2000, now - 1000]) await h.users.recordActivity({ activities: [{ projectId: project, userId: b!.id, atMillis: BigInt(at) }] });
    expect(
      (await h.pool.query(`SELECT day::text FROM user_active_days WHERE user_id = $1 ORDER BY day`, [a!.id])).rows.map((x) => x.day),
    ).toEqual([new Date(now - 15 * DAY).toISOString().slice(0, 10), new Date(now - 8 * DAY).toISOString().slice(0, 10), today()]);
    r = await report(project, 30, "day");
    expect(r.buckets.at(-1)).toEqual({ start: today(), sign_ups: 3, active_users: 2 });
    r = await report(project, 30, "month");
    expect(r.buckets.at(-1)!.start).toBe(`${today().slice(0, 7)}-01`);

    // Retention: a and b signed up three weeks ago (backdated here); a was back 15 and 8 days ago, both are back now.
    await h.pool.query(`UPDATE users SET signed_up_at = now() - interval '21 days' WHERE id = ANY($1::uuid[])`, [[a!.id, b!.id]]);
    r = await report(project, 30, "week");
    const cohort = r.retention.find((x) => x.week === mondayOf(now - 21 * DAY))!;
    expect(cohort.users).toBe(2);
    expect(cohort.retained.map((x) => x.offset)).toEqual([1, 2, 3]);
    const activeWeeks = new Set([mondayOf(now - 15 * DAY), mondayOf(now - 8 * DAY)]);
    const expected = [1, 2, 3].map((offset) => {
      const week = new Date(Date.parse(cohort.week) + offset * 7 * DAY).toISOString().slice(0, 10);
      const users = offset === 3 ? 2 : activeWeeks.has(week) ? 1 : 0; // the current week: a and b
      return { offset, users, share: users / 2 };
    });
    expect(cohort.retained).toEqual(expected);
    expect(r.retention.find((x) => x.week === mondayOf(now))!.users).toBe(1); // c

    await expect(h.users.getUserActivityReport({ projectId: project, includeAnonymous: false, days: 0, granularity: "day" })).rejects.toThrow(/days must be/);
    await expect(h.users.getUserActivityReport({ projectId: project, includeAnonymous: false, days: 7, granularity: "year" })).rejects.toThrow(/granularity/);
    void c;
  });
});
