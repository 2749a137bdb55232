import type { StackAdminApp } from "@vestibule/js";
import { Card, ErrorAlert, Link, Skeleton, useLoad, useTitle } from "@vestibule/ui";

/** A bar chart in SVG: one bar per day, with an accessible table of the same numbers for screen readers. */
export function BarChart({ title, points }: { title: string; points: readonly { date: string; activity: number }[] }) {
  const w = 600;
  const h = 160;
  const max = Math.max(1, ...points.map((p) => p.activity));
  const bw = points.length ? w / points.length : w;
  const total = points.reduce((sum, p) => sum + p.activity, 0);
  return (
    <figure style={{ margin: 0, position: "relative" }}>
      <figcaption className="vs-label">{title}</figcaption>
      <svg viewBox={`0 0 ${w} ${h}`} width="100%" height={h} role="img" aria-label={`${title}: ${total} in ${points.length} days`} preserveAspectRatio="none">
        <line x1={0} x2={w} y1={h - 0.5} y2={h - 0.5} stroke="var(--vs-border)" strokeWidth={1} />
        {points.map((p, i) => {
          const bh = (p.activity / max) * (h - 10);
          return (
            <rect key={p.date} x={i * bw + 1} y={h - bh} width={Math.max(1, bw - 2)} height={bh} rx={2} fill="var(--vs-primary)">
              <title>{`${p.date}: ${p.activity}`}</title>
            </rect>
          );
        })}
      </svg>
      {total === 0 ? (
        <p className="vs-muted" aria-hidden="true" style={{ position: "absolute", inset: "40% 0 auto", textAlign: "center", margin: 0 }}>
          Nothing in these {points.length} days yet
        </p>
      ) : null}
      <table className="vs-sr-only">
        <caption>{title}</caption>
        <tbody>
          {points.map((p) => (
            <tr key={p.date}>
              <th scope="row">{p.date}</th>
              <td>{p.activity}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="vs-spread vs-hint">
        <span>{points[0]?.date}</span>
        <span>{points[points.length - 1]?.date}</span>
      </div>
    </figure>
  );
}

const DAY_MS = 86_400_000;

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
  const sum = (p: Points) => p.reduce((s, d) => s + d.activity, 0);
  return (
    <div className="vs-grid-2">
      <Card>
        {a?.enabled ? (
          <div data-testid="page-views" data-total={sum(a.pageViews)}>
            <BarChart title="Page views per day" points={a.pageViews} />
          </div>
        ) : (
          <Skeleton height={200} />
        )}
      </Card>
      <Card>
        {a?.enabled ? (
          <div data-testid="analytics-active-users" data-total={sum(a.activeUsers)}>
            <BarChart title="Active users per day (analytics events)" points={a.activeUsers} />
          </div>
        ) : (
          <Skeleton height={200} />
        )}
      </Card>
    </div>
  );
}

export function OverviewPage({ adminApp, areaHref }: { adminApp: StackAdminApp; areaHref: (s: string, p?: string) => string }) {
  useTitle("Overview · Vestibule");
  const metrics = useLoad(() => adminApp.getMetrics(), [adminApp]);
  const m = metrics.value;
  return (
    <div className="vs-stack">
      <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Overview</h1>
      <ErrorAlert error={metrics.error} />
      <div className="vs-grid-2">
        <Card>
          <div className="vs-label">Total users</div>
          <div style={{ fontSize: "2rem", fontWeight: 700, minHeight: 48 }} data-testid="total-users">
            {m ? m.total_users.toLocaleString() : <Skeleton width={120} height={40} />}
          </div>
          <Link href={areaHref("users")}>Manage users</Link>
        </Card>
        <Card>
          <div className="vs-label">Sign-ups in the last 30 days</div>
          <div style={{ fontSize: "2rem", fontWeight: 700, minHeight: 48 }}>
            {m ? m.daily_users.slice(-30).reduce((s, d) => s + d.activity, 0).toLocaleString() : <Skeleton width={120} height={40} />}
          </div>
        </Card>
      </div>
      <div className="vs-grid-2">
        <Card>{m ? <BarChart title="Sign-ups per day" points={m.daily_users.slice(-30)} /> : <Skeleton height={200} />}</Card>
        <Card>{m ? <BarChart title="Active users per day" points={m.daily_active_users.slice(-30)} /> : <Skeleton height={200} />}</Card>
      </div>
      <h2 style={{ margin: 0, fontSize: "1.1rem" }}>Analytics</h2>
      <AnalyticsCharts adminApp={adminApp} />
    </div>
  );
}
