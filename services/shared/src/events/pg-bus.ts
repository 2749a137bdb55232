import pg from "pg";
import { DatabaseClient, survivesCheckedOutErrors } from "../db/index.ts";
import type { Logger } from "../log/index.ts";
import type { BroadcastOptions, ConsumeOptions, ConsumerLag, EventBus, Subscription } from "./bus.ts";
import { subjectMatches } from "./bus.ts";

/**
 * How long a loop sleeps when no notification comes: a fallback only, since every publish notifies and a lost
 * LISTEN connection rings every loop when it is back.
 */
const POLL_MS = 5_000;

/**
 * A consumer or subscriber loop's wake-up: a notification rings it at any time, and one that came while the loop was
 * reading (not asleep) makes the next sleep return at once instead of being missed.
 */
class Alarm {
  private rung = false;
  private stopped = false;
  private wakeNow: (() => void) | undefined;
  private cancel: (() => void) | undefined;

  ring(): void {
    this.rung = true;
    this.wakeNow?.();
  }

  /** Ends the current sleep and every later one at once (the loop is stopping). */
  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** Sleeps `ms`, or until rung (`deaf`: rings are kept for later but do not shorten this sleep). */
  sleep(ms: number, opts: { deaf?: boolean } = {}): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.rung && !opts.deaf) {
      this.rung = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeNow = this.cancel = undefined;
        if (!opts.deaf) this.rung = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.cancel = done;
      if (!opts.deaf) this.wakeNow = done;
    });
  }
}

/**
 * The embedded event bus for running without a NATS server (`npm start` with NATS_URL unset): an append-only log
 * in the `vestibule_bus` schema of the same Postgres, woken by LISTEN/NOTIFY and polled as a fallback.
 * It is the broker's storage, not any service's data; services still only see events.
 *
 *  - publish: the `vestibule_bus.publish` function, one round trip: INSERT ... ON CONFLICT (id) DO NOTHING
 *    (de-duplication on the event id), then NOTIFY with the subject. Publishes take a transaction-scoped advisory
 *    lock, so sequence numbers are handed out in commit order: a reader that has seen seq N has seen every event
 *    below N that will ever exist. Without it, two publishes committing out of order let a consumer move past the
 *    later-committing (lower) seq, and that event was never delivered.
 *  - consume: one row per durable consumer holds its position among the events of its subject (read through the
 *    (subject, seq) index: a consumer reads only its own events, and a NOTIFY wakes only the consumers of its
 *    subject); a batch is read and handled while that row is locked (FOR UPDATE), so replicas of a service take turns
 *    and each message is handled by one replica at a time. The position only moves past a message after its handler
 *    succeeded (at-least-once).
 *  - broadcast: each subscriber tails the log from the position it started at.
 * Old events are pruned after `retentionHours`.
 */
export class PgBus implements EventBus {
  readonly kind = "postgres" as const;
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  /** The alarm of each consumer and subscriber loop, with the subject (pattern) that rings it. */
  private readonly alarms = new Map<Alarm, string>();
  private readonly stops = new Set<() => Promise<void>>();
  /** Durable consumers started by this process (for consumerLag). */
  private readonly consumed = new Set<string>();
  private readonly initialised: Promise<void>;
  private closed = false;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly log: Logger,
    private readonly retentionHours = 24 * 7,
  ) {
    this.pool = new pg.Pool({ Client: DatabaseClient, connectionString, max: 4, application_name: "vestibule-bus" });
    // An idle connection that fails is replaced by the pool; say so instead of crashing or staying silent (issue 22).
    this.pool.on("error", (err) => this.log.warn({ err: err.message }, "embedded bus: an idle database connection failed; the pool replaces it"));
    survivesCheckedOutErrors(this.pool, this.log);
    this.initialised = this.init();
    this.initialised.catch((err) => this.log.error({ err: (err as Error).message }, "embedded bus failed to start"));
  }

  private async init(): Promise<void> {
    const c = await this.pool.connect();
    try {
      await c.query("SELECT pg_advisory_lock(hashtext('vestibule:bus:init'))");
      try {
        await c.query(`CREATE SCHEMA IF NOT EXISTS vestibule_bus`);
        await c.query(`CREATE TABLE IF NOT EXISTS vestibule_bus.events (
            seq bigserial PRIMARY KEY,
            id uuid NOT NULL UNIQUE,
            subject text NOT NULL,
            data bytea NOT NULL,
            request_id text,
            created_at timestamptz NOT NULL DEFAULT now())`);
        await c.query(`CREATE TABLE IF NOT EXISTS vestibule_bus.consumers (
            name text PRIMARY KEY,
            subject text NOT NULL,
            position bigint NOT NULL)`);
        await c.query(`CREATE TABLE IF NOT EXISTS vestibule_bus.attempts (
            consumer text NOT NULL,
            seq bigint NOT NULL,
            attempts integer NOT NULL,
            PRIMARY KEY (consumer, seq))`);
        await c.query(`CREATE INDEX IF NOT EXISTS events_subject_seq ON vestibule_bus.events (subject, seq)`);
        // The advisory lock serialises publishes until they commit (see above); the key is the bus's own.
        await c.query(`CREATE OR REPLACE FUNCTION vestibule_bus.publish(p_id uuid, p_subject text, p_data bytea, p_request_id text)
            RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_advisory_xact_lock(hashtext('vestibule:bus:publish'));
              INSERT INTO vestibule_bus.events (id, subject, data, request_id) VALUES (p_id, p_subject, p_data, p_request_id)
                ON CONFLICT (id) DO NOTHING;
              IF FOUND THEN
                PERFORM pg_notify('vestibule_bus', p_subject);
              END IF;
            END $$`);
      } finally {
        await c.query("SELECT pg_advisory_unlock(hashtext('vestibule:bus:init'))");
      }
    } finally {
      c.release();
    }
    await this.listen();
    this.pruneTimer = setInterval(() => void this.prune(), 60 * 60 * 1000);
    this.pruneTimer.unref();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString, application_name: "vestibule-bus-listen" });
    // The connection failing ends it: the "end" handler below wakes the consumers and listens again.
    client.on("error", (err) => this.log.warn({ err: err.message }, "embedded bus: the LISTEN connection failed; listening again"));
    client.on("end", () => {
      if (this.closed) return;
      // Connection lost: wake everyone (they poll anyway) and listen again.
      this.wakeAll();
      setTimeout(() => void this.listen().catch((err: unknown) => this.log.warn({ err: (err as Error).message }, "embedded bus: listening again failed; consumers keep polling")), 1000);
    });
    client.on("notification", (n) => this.wake(n.payload));
    await client.connect();
    await client.query("LISTEN vestibule_bus");
    this.listener = client;
  }

  private wakeAll(): void {
    for (const a of this.alarms.keys()) a.ring();
  }

  /** Rings the loops of `subject` (every loop when a notification carries none). */
  private wake(subject: string | undefined): void {
    if (!subject) return this.wakeAll();
    for (const [a, pattern] of this.alarms) if (subjectMatches(pattern, subject)) a.ring();
  }

  private async prune(): Promise<void> {
    await this.pool
      .query(`DELETE FROM vestibule_bus.events WHERE created_at < now() - make_interval(hours => $1)`, [this.retentionHours])
      .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, "embedded bus: pruning old events failed; next try in an hour"));
  }

  async publish(msg: { id: string; subject: string; data: Uint8Array; requestId?: string }): Promise<void> {
    await this.initialised;
    await this.pool.query(`SELECT vestibule_bus.publish($1, $2, $3, $4)`, [msg.id, msg.subject, Buffer.from(msg.data), msg.requestId ?? null]);
  }

  async consumerLag(): Promise<ConsumerLag[]> {
    if (this.consumed.size === 0) return [];
    await this.initialised;
    const { rows } = await this.pool.query<{ name: string; pending: string }>(
      `SELECT c.name, (SELECT count(*) FROM vestibule_bus.events e WHERE e.seq > c.position AND e.subject = c.subject) AS pending
         FROM vestibule_bus.consumers c WHERE c.name = ANY($1)`,
      [[...this.consumed]],
    );
    return rows.map((r) => ({ consumer: r.name, pending: Number(r.pending) }));
  }

  async consume(opts: ConsumeOptions): Promise<Subscription> {
    await this.initialised;
    this.consumed.add(opts.durable);
    // A new durable consumer starts at the beginning of the retained log (like JetStream DeliverPolicy.All).
    await this.pool.query(
      `INSERT INTO vestibule_bus.consumers (name, subject, position) VALUES ($1, $2, 0) ON CONFLICT (name) DO NOTHING`,
      [opts.durable, opts.subject],
    );
    let stopped = false;
    const alarm = new Alarm();
    this.alarms.set(alarm, opts.subject);
    const loop = async () => {
      let backoff = 0;
      while (!stopped) {
        let progressed = false;
        try {
          progressed = await this.consumeBatch(opts);
          backoff = 0;
        } catch (err) {
          backoff = Math.min(backoff ? backoff * 2 : 500, 30_000);
          this.log.warn({ err: (err as Error).message, durable: opts.durable, retry_in_ms: backoff }, "event handler failed; will be redelivered");
        }
        if (stopped) break;
        // A failing handler backs off whatever is published meanwhile.
        if (backoff) await alarm.sleep(backoff, { deaf: true });
        else if (!progressed) await alarm.sleep(POLL_MS);
      }
    };
    const done = loop();
    const stop = async () => {
      stopped = true;
      alarm.stop();
      this.alarms.delete(alarm);
      await done;
    };
    this.stops.add(stop);
    return { stop: async () => { this.stops.delete(stop); await stop(); } };
  }

  /** Handles up to one batch; returns true if it moved the position. Throws when a handler failed. */
  private async consumeBatch(opts: ConsumeOptions): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const { rows: pos } = await client.query<{ position: number }>(
        `SELECT position FROM vestibule_bus.consumers WHERE name = $1 FOR UPDATE`,
        [opts.durable],
      );
      const start = Number(pos[0]?.position ?? 0);
      const { rows } = await client.query<{ seq: string; id: string; subject: string; data: Buffer; request_id: string | null }>(
        `SELECT seq, id, subject, data, request_id FROM vestibule_bus.events WHERE subject = $2 AND seq > $1 ORDER BY seq LIMIT 100`,
        [start, opts.subject],
      );
      if (rows.length === 0) {
        await client.query("COMMIT");
        return false;
      }
      // Every message of the batch counts a delivery attempt before its handler runs (a crash mid-batch counts too);
      // one statement for the batch instead of one per message.
      const seqs = rows.map((r) => r.seq);
      const { rows: counted } = await client.query<{ seq: string; attempts: number }>(
        `INSERT INTO vestibule_bus.attempts (consumer, seq, attempts) SELECT $1, unnest($2::bigint[]), 1
         ON CONFLICT (consumer, seq) DO UPDATE SET attempts = vestibule_bus.attempts.attempts + 1 RETURNING seq, attempts`,
        [opts.durable, seqs],
      );
      const attempts = new Map(counted.map((c) => [c.seq, c.attempts]));
      let position = start;
      let failure: unknown;
      for (const row of rows) {
        try {
          await opts.handler({
            id: row.id,
            subject: row.subject,
            data: new Uint8Array(row.data),
            requestId: row.request_id ?? undefined,
            attempt: attempts.get(row.seq) ?? 1,
          });
        } catch (err) {
          failure = err;
          // The messages after the failed one were not delivered: take their attempt back.
          await client.query(`DELETE FROM vestibule_bus.attempts WHERE consumer = $1 AND seq > $2 AND attempts = 1`, [opts.durable, row.seq]);
          await client.query(`UPDATE vestibule_bus.attempts SET attempts = attempts - 1 WHERE consumer = $1 AND seq > $2`, [opts.durable, row.seq]);
          break;
        }
        position = Number(row.seq);
      }
      if (position !== start) {
        await client.query(`DELETE FROM vestibule_bus.attempts WHERE consumer = $1 AND seq > $2 AND seq <= $3`, [opts.durable, start, position]);
        await client.query(`UPDATE vestibule_bus.consumers SET position = $2 WHERE name = $1`, [opts.durable, position]);
      }
      await client.query("COMMIT");
      if (failure) throw failure;
      return position !== start;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async broadcast(opts: BroadcastOptions): Promise<Subscription> {
    await this.initialised;
    const { rows } = await this.pool.query<{ max: number | null }>(`SELECT max(seq) AS max FROM vestibule_bus.events`);
    let position = Number(rows[0]?.max ?? 0);
    let stopped = false;
    const alarm = new Alarm();
    this.alarms.set(alarm, opts.subject);
    const loop = async () => {
      while (!stopped) {
        try {
          const { rows: evs } = await this.pool.query<{ seq: number; id: string; subject: string; data: Buffer; request_id: string | null }>(
            `SELECT seq, id, subject, data, request_id FROM vestibule_bus.events WHERE seq > $1 ORDER BY seq LIMIT 500`,
            [position],
          );
          for (const row of evs) {
            position = Number(row.seq);
            if (!subjectMatches(opts.subject, row.subject)) continue;
            try {
              await opts.handler({ id: row.id, subject: row.subject, data: new Uint8Array(row.data), requestId: row.request_id ?? undefined, attempt: 1 });
            } catch (err) {
              this.log.warn({ err: (err as Error).message }, "broadcast handler failed");
            }
          }
          if (evs.length === 500) continue;
        } catch (err) {
          this.log.warn({ err: (err as Error).message }, "broadcast poll failed");
          opts.onReset?.();
        }
        await alarm.sleep(POLL_MS);
      }
    };
    const done = loop();
    const stop = async () => {
      stopped = true;
      alarm.stop();
      this.alarms.delete(alarm);
      await done;
    };
    this.stops.add(stop);
    return { stop: async () => { this.stops.delete(stop); await stop(); } };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await Promise.all([...this.stops].map((s) => s()));
    await this.initialised.catch(() => {});
    await this.listener?.end().catch(() => {});
    await this.pool.end().catch(() => {});
  }
}
