import { useState } from "react";
import type { AdminActivityReport, StackAdminApp } from "@vestibule/js";
import { Card, ErrorAlert, Link, Select, Skeleton, useLoad, useTitle } from "@vestibule/ui";
import { BarChart, type ChartPoint } from "./chart.tsx";
import { bucketLabel, bucketName, type Granularity } from "./chart-scale.ts";

const DAY_MS = 86_400_000;
const RANGES = [7, 30, 90] as const;
const GRANULARITY_WORDS: Record<Granularity, { option: string; per: string; period: string }> = {
  day: { option: "Daily", per: "per day", period: "days" },
  week: { option: "Weekly", per: "per week", period: "weeks" },
  month: { option: "Monthly", per: "per month", period: "months" },
};
/** Weeks after sign-up shown by the retention table (its columns). */
const RETENTION_WEEKS = 12;

type Report = AdminActivityReport;

function pointsOf(report: Report, value: (b: Report["buckets"][number]) => number): ChartPoint[] {
  return report.buckets.map((b) => ({ key: b.start, label: bucketLabel(b.start, report.granularity), name: bucketName(b.start, report.granularity), value: value(b) }));
}

/**
 * Weekly cohorts: of the users who signed up in a week, the share active in each later week (from the per-user active
 * days the platform records when it sees a user's requests).
 */
function RetentionTable({ report }: { report: Report }) {
  const cohorts = report.retention.filter((c) => c.users > 0);
  const weeks = Math.min(RETENTION_WEEKS, Math.max(0, ...cohorts.map((c) => c.retained.length)));
  if (cohorts.length === 0) return <p className="vs-muted" style={{ margin: 0 }}>No sign-ups in this range yet.</p>;
  return (
    <div style={{ overflowX: "auto" }}>
      <table className="vs-table" data-testid="retention" style={{ fontVariantNumeric: "tabular-nums" }}>
        <caption className="vs-sr-only">Weekly retention: share of each week's new users active in the weeks after</caption>
        <thead>
          <tr>
            <th scope="col">Signed up</th>
            <th scope="col">Users</th>
            {Array.from({ length: weeks }, (_, i) => (
              <th scope="col" key={i}>
                Week {i + 1}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {cohorts.map((c) => (
            <tr key={c.week}>
              <th scope="row" style={{ whiteSpace: "nowrap", textTransform: "none", fontSize: "inherit", letterSpacing: "normal", color: "inherit", background: "none", height: 48 }}>
                {bucketName(c.week, "week")}
              </th>
              <td>{c.users}</td>
              {Array.from({ length: weeks }, (_, i) => {
                const r = c.retained[i];
                if (!r) return <td key={i} aria-label="not yet" />;
                const pct = Math.round(r.share * 100);
                return (
                  <td key={i} title={`${r.users} of ${c.users}`} style={{ background: `color-mix(in srgb, var(--vs-primary) ${Math.round(r.share * 70)}%, transparent)` }}>
                    {pct}%
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

type Points = { date: string; activity: number }[];
type Analytics = { enabled: false } | { enabled: true; pageViews: Points; activeUsers: Points };

/**
 * Page views and active users per day (last 30 UTC days) from the project's analytics events (the current SDK sends
 * them from browsers), through the named queries of POST /internal/analytics/query.
 */
async function loadAnalytics(adminApp: StackAdminApp): Promise<Analytics> {
  const params = { from_millis: Date.now() - 29 * DAY_MS };
  try {
    const [views, users] = await Promise.all([
      adminApp.queryAnalytics({ query: "page_views_per_day", params, timeout_ms: 5_000 }),
      adminApp.queryAnalytics({ query: "active_users_per_day", params, timeout_ms: 5_000 }),
    ]);
    const points = (rows: Record<string, unknown>[], key: string): Points => rows.map((r) => ({ date: String(r.date), activity: Number(r[key]) }));
    return { enabled: true, pageViews: points(views.result, "page_views"), activeUsers: points(users.result, "active_users") };
  } catch (err) {
    if ((err as { errorCode?: string }).errorCode === "ANALYTICS_NOT_ENABLED") return { enabled: false };
    throw err;
  }
}

const dailyPoints = (points: Points): ChartPoint[] => points.map((p) => ({ key: p.date, label: bucketLabel(p.date, "day"), name: bucketName(p.date, "day"), value: p.activity }));

function AnalyticsCharts({ adminApp }: { adminApp: StackAdminApp }) {
  const analytics = useLoad(() => loadAnalytics(adminApp), [adminApp]);
  const a = analytics.value;
  if (analytics.error) return <ErrorAlert error={analytics.error} />;
  if (a && !a.enabled) {
    return (
      <Card>
        <p className="vs-muted" style={{ margin: 0 }} data-testid="analytics-off">
          Analytics is turned off for this project (config <code>apps.installed.analytics.enabled</code>).
        </p>
      </Card>
    );
  }
  return (
    <div className="vs-grid-2">
      <Card>{a?.enabled ? <BarChart testId="page-views" title="Page views per day" unit="page views" period="days" points={dailyPoints(a.pageViews)} /> : <Skeleton height={200} />}</Card>
      <Card>
        {a?.enabled ? (
          <BarChart testId="analytics-active-users" title="Active users per day (analytics events)" unit="active users" period="days" points={dailyPoints(a.activeUsers)} />
        ) : (
          <Skeleton height={200} />
        )}
      </Card>
    </div>
  );
}

export function OverviewPage({ adminApp, areaHref }: { adminApp: StackAdminApp; areaHref: (s: string, p?: string) => string }) {
  useTitle("Overview · Vestibule");
  const [days, setDays] = useState<number>(30);
  const [granularity, setGranularity] = useState<Granularity>("day");
  const metrics = useLoad(() => adminApp.getMetrics(), [adminApp]);
  const report = useLoad(() => adminApp.getActivityReport({ days, granularity }), [adminApp, days, granularity]);
  const m = metrics.value;
  const r = report.value;
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Overview</h1>
      <ErrorAlert error={metrics.error ?? report.error} />
      <div className="vs-row" style={{ gap: 12, flexWrap: "wrap", alignItems: "flex-end" }}>
        <Select label="Date range" value={String(days)} onChange={(v) => setDays(Number(v))} options={RANGES.map((d) => ({ value: String(d), label: `Last ${d} days` }))} />
        <Select
          label="Granularity"
          value={granularity}
          onChange={(v) => setGranularity(v as Granularity)}
          options={(Object.keys(GRANULARITY_WORDS) as Granularity[]).map((g) => ({ value: g, label: GRANULARITY_WORDS[g].option }))}
        />
      </div>
      <div className="vs-grid-2">
        <Card>
          <div className="vs-label">Total users</div>
          <div style={{ fontSize: "2rem", fontWeight: 700, minHeight: 48 }} data-testid="total-users">
            {m ? m.total_users.toLocaleString() : <Skeleton width={120} height={40} />}
          </div>
          <Link href={areaHref("users")}>Manage users</Link>
        </Card>
        <Card>
          {/* The buckets widen the range to whole weeks or months: say from when the sum counts. */}
          <div className="vs-label">Sign-ups since {r?.buckets[0] ? bucketName(r.buckets[0].start, "day") : "…"}</div>
          <div style={{ fontSize: "2rem", fontWeight: 700, minHeight: 48 }} data-testid="range-sign-ups">
            {r ? r.buckets.reduce((s, b) => s + b.sign_ups, 0).toLocaleString() : <Skeleton width={120} height={40} />}
          </div>
        </Card>
      </div>
      <div className="vs-grid-2">
        <Card>{r ? <BarChart testId="sign-ups-chart" title={`Sign-ups ${GRANULARITY_WORDS[r.granularity].per}`} unit="sign-ups" period={GRANULARITY_WORDS[r.granularity].period} points={pointsOf(r, (b) => b.sign_ups)} /> : <Skeleton height={214} />}</Card>
        <Card>{r ? <BarChart testId="active-users-chart" title={`Active users ${GRANULARITY_WORDS[r.granularity].per}`} unit="active users" period={GRANULARITY_WORDS[r.granularity].period} points={pointsOf(r, (b) => b.active_users)} /> : <Skeleton height={214} />}</Card>
      </div>
      <Card>
        <h2 style={{ margin: "0 0 8px", fontSize: "1.1rem" }}>Retention</h2>
        <p className="vs-hint" style={{ marginTop: 0 }}>
          Of the users who signed up in a week, the share who were active in each week after it.
        </p>
        {r ? <RetentionTable report={r} /> : <Skeleton height={120} />}
      </Card>
      <h2 style={{ margin: 0, fontSize: "1.1rem" }}>Analytics</h2>
      <AnalyticsCharts adminApp={adminApp} />
    </div>
  );
}
