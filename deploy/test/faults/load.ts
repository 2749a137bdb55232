/**
 * Steady mixed load for the fault tests, through the cluster's balancer: password sign-ins (writes: a new session),
 * GET /users/me (idempotent reads) and PATCH /users/me with a new display name (writes that produce
 * identity.user.updated.v1), from a few concurrent workers. Counts requests and failures per kind; a failure is a
 * network error or any status other than 200.
 */
import pg from "pg";
import { callPlatform, demoHeaders, type ApiAnswer } from "../platform-api.ts";
import type { TestPlatform } from "../../src/test-platform.ts";

export type Kind = "sign-in" | "read" | "write";
export const KINDS: readonly Kind[] = ["sign-in", "read", "write"];

export interface Tally {
  requests: number;
  failed: number;
  /** A few failures, for the report. */
  samples: string[];
}

export type Counts = Record<Kind, { requests: number; failed: number }>;

export interface Load {
  readonly tally: Readonly<Record<Kind, Tally>>;
  /** Requests and failures so far, per kind (subtract two with `countsSince`). */
  snapshot(): Counts;
  /** Successful PATCHes (each committed a write, so an event). */
  okWrites(): number;
  /** Stops the workers and waits for their last requests. */
  stop(): Promise<void>;
}

interface User {
  email: string;
  password: string;
  accessToken: string;
}

const call = (tp: TestPlatform, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<ApiAnswer> =>
  callPlatform(tp, method, path, headers, body, { timeoutMs: 15_000 });

/** Signs up `users` users, then runs `workers` loops of sign-in : read : write = 1 : 3 : 2 until stopped. */
export async function startLoad(tp: TestPlatform, opts: { users?: number; workers?: number } = {}): Promise<Load> {
  const client = demoHeaders(tp, "client");
  const users: User[] = [];
  for (let i = 0; i < (opts.users ?? 6); i++) {
    const email = `load-${i}-${Date.now()}@example.com`;
    const password = `load password ${i}`;
    const res = await call(tp, "POST", "/auth/password/sign-up", client, { email, password });
    if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
    users.push({ email, password, accessToken: res.json.access_token });
  }
  const tally = Object.fromEntries(KINDS.map((k): [Kind, Tally] => [k, { requests: 0, failed: 0, samples: [] }])) as Record<Kind, Tally>;
  let okWrites = 0;
  let running = true;
  let n = 0;
  const record = (kind: Kind, ok: boolean, what: string): void => {
    tally[kind].requests++;
    if (!ok) {
      tally[kind].failed++;
      if (tally[kind].samples.length < 5) tally[kind].samples.push(what.replace(/\s+/g, " "));
    }
  };
  const once = async (worker: number): Promise<void> => {
    const user = users[(n + worker) % users.length]!;
    const pick = n++ % 6;
    const kind: Kind = pick === 0 ? "sign-in" : pick <= 3 ? "read" : "write";
    const auth = { ...client, "x-stack-access-token": user.accessToken };
    try {
      if (kind === "sign-in") {
        const res = await call(tp, "POST", "/auth/password/sign-in", client, { email: user.email, password: user.password });
        if (res.status === 200) user.accessToken = res.json.access_token;
        record(kind, res.status === 200, `${res.status} ${res.text.slice(0, 160)}`);
      } else if (kind === "read") {
        const res = await call(tp, "GET", "/users/me", auth);
        record(kind, res.status === 200, `${res.status} ${res.text.slice(0, 160)}`);
      } else {
        const res = await call(tp, "PATCH", "/users/me", auth, { display_name: `load ${worker} ${n} ${Date.now()}` });
        if (res.status === 200) okWrites++;
        record(kind, res.status === 200, `${res.status} ${res.text.slice(0, 160)}`);
      }
    } catch (err) {
      record(kind, false, `network: ${(err as Error).message} ${String((err as { cause?: Error }).cause?.message ?? "")}`);
    }
  };
  const loops = Array.from({ length: opts.workers ?? 4 }, async (_, worker) => {
    while (running) await once(worker);
  });
  return {
    tally,
    snapshot: () => Object.fromEntries(KINDS.map((k) => [k, { requests: tally[k].requests, failed: tally[k].failed }])) as Counts,
    okWrites: () => okWrites,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Requests and failures since `before`, per kind and in all. */
export function countsSince(load: Load, before: Counts): Counts & { all: { requests: number; failed: number } } {
  const now = load.snapshot();
  const d = Object.fromEntries(KINDS.map((k) => [k, { requests: now[k].requests - before[k].requests, failed: now[k].failed - before[k].failed }])) as Counts;
  const all = { requests: KINDS.reduce((s, k) => s + d[k].requests, 0), failed: KINDS.reduce((s, k) => s + d[k].failed, 0) };
  return { ...d, all };
}

/** identity.user.updated.v1 events in identity's outbox, and how many of them each consumer (any schema) processed. */
export async function countUserUpdatedEvents(databaseUrl: string): Promise<{ produced: number; unpublished: number; consumers: Record<string, number> }> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const schemas = async (table: string): Promise<string[]> =>
      (await db.query<{ s: string }>(`SELECT table_schema AS s FROM information_schema.tables WHERE table_name = $1`, [table])).rows.map((r) => r.s);
    const ids: string[] = [];
    let unpublished = 0;
    for (const schema of await schemas("outbox")) {
      const { rows } = await db.query<{ id: string; published: boolean }>(
        `SELECT id, published_at IS NOT NULL AS published FROM "${schema}".outbox WHERE subject LIKE '%identity.user.updated.v1'`,
      );
      ids.push(...rows.map((r) => r.id));
      unpublished += rows.filter((r) => !r.published).length;
    }
    const consumers: Record<string, number> = {};
    for (const schema of await schemas("processed_events")) {
      const { rows } = await db.query<{ consumer: string; n: string }>(
        `SELECT consumer, count(*) AS n FROM "${schema}".processed_events WHERE event_id = ANY($1::uuid[]) GROUP BY consumer`,
        [ids],
      );
      for (const r of rows) consumers[`${schema}/${r.consumer}`] = Number(r.n);
    }
    return { produced: ids.length, unpublished, consumers };
  } finally {
    await db.end();
  }
}

export type EventCounts = Awaited<ReturnType<typeof countUserUpdatedEvents>>;

/** Every event published and processed by each consumer (one at least), or what there is after `timeoutMs`. */
export async function waitForEvents(databaseUrl: string, timeoutMs = 30_000): Promise<{ events: EventCounts; seconds: number }> {
  const start = Date.now();
  const caughtUp = (e: EventCounts) => e.unpublished === 0 && Object.keys(e.consumers).length > 0 && Object.values(e.consumers).every((n) => n === e.produced);
  let events = await countUserUpdatedEvents(databaseUrl);
  while (!caughtUp(events) && Date.now() - start < timeoutMs) {
    await new Promise((r) => setTimeout(r, 250));
    events = await countUserUpdatedEvents(databaseUrl);
  }
  return { events, seconds: (Date.now() - start) / 1000 };
}

/** The events table of a fault test (`since`: the counts before it; the consumers' columns are for the whole run). */
export function eventRows(events: EventCounts, since: EventCounts, okWrites: number, seconds: number): Array<Array<string | number>> {
  return [
    ["produced in this test", "its successful PATCHes", "produced in all", "unpublished", ...Object.keys(events.consumers).map((c) => `processed by ${c}`), "caught up in (s)"],
    [events.produced - since.produced, okWrites, events.produced, events.unpublished, ...Object.values(events.consumers), seconds.toFixed(1)],
  ];
}

/** Prints rows as an aligned text table (first row: the header). */
export function printTable(title: string, rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const sep = `|-${widths.map((w) => "-".repeat(w)).join("-|-")}-|`;
  const text = [`\n${title}`, line(cells[0]!), sep, ...cells.slice(1).map(line)].join("\n");
  process.stdout.write(`${text}\n`);
  return text;
}
