import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EnvelopeSchema, type Envelope } from "@vestibule/proto/event/v1/envelope";
import pg from "pg";
import { currentRequestId, runWithContext } from "../context/index.ts";
import type { Pool, PoolClient } from "../db/index.ts";
import { newId } from "../ids/index.ts";
import type { Logger } from "../log/index.ts";
import { currentTraceparent, extractTraceContext, inSpan, SpanKind, tracingEnabled } from "../tracing/index.ts";
import type { EventBus, Subscription } from "./bus.ts";

/** An event type: its subject and the protobuf message of its payload. */
export interface EventDefinition<Desc extends DescMessage> {
  readonly type: string;
  readonly schema: Desc;
}

export function defineEvent<Desc extends DescMessage>(type: string, schema: Desc): EventDefinition<Desc> {
  if (!/^[a-z_]+\.[a-z_]+\.[a-z_]+\.v\d+$/.test(type)) {
    throw new Error(`event type "${type}" must look like <service>.<entity>.<past_tense_verb>.v<major>`);
  }
  return { type, schema };
}

/**
 * Writes events into the service's outbox table inside the caller's transaction, so the event exists if and only if
 * the state change committed. The relay publishes it afterwards.
 */
export class Outbox {
  constructor(
    private readonly producer: string,
    private readonly schemaName: string,
  ) {}

  get channel(): string {
    return `${this.schemaName}_outbox`;
  }

  async enqueue<Desc extends DescMessage>(
    client: PoolClient,
    def: EventDefinition<Desc>,
    payload: MessageInitShape<Desc>,
    opts: { projectId?: string } = {},
  ): Promise<string> {
    const id = newId();
    const requestId = currentRequestId() ?? "";
    const envelope = create(EnvelopeSchema, {
      id,
      type: def.type,
      producer: this.producer,
      projectId: opts.projectId ?? "",
      occurredAt: timestampFromDate(new Date()),
      requestId,
      payload: toBinary(def.schema, create(def.schema, payload)),
      traceparent: currentTraceparent(),
    });
    // One statement (issue 19: a sign-up enqueues several events); the NOTIFY reaches the relay's LISTEN only when the
    // transaction commits.
    await client.query(
      `WITH queued AS (INSERT INTO outbox (id, subject, envelope, request_id) VALUES ($1, $2, $3, $4) RETURNING id)
       SELECT pg_notify($5, '') FROM queued`,
      [id, def.type, Buffer.from(toBinary(EnvelopeSchema, envelope)), requestId || null, this.channel],
    );
    return id;
  }
}

export interface RelayHandle {
  /** Publishes whatever is pending now (tests, shutdown). */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Moves committed outbox rows to the bus, oldest first: woken by NOTIFY on commit, polling every second as a
 * fallback, backing off while the bus is unreachable (rows stay until published, so nothing is lost while NATS is
 * down). Replicas share the work with FOR UPDATE SKIP LOCKED. Published rows are deleted after a day.
 */
export function startOutboxRelay(opts: { pool: Pool; connectionString: string; schema: string; bus: EventBus; log: Logger; channel: string }): RelayHandle {
  const { pool, bus, log } = opts;
  let stopped = false;
  let wake: (() => void) | undefined;
  let listener: pg.Client | undefined;
  let running: Promise<number> | undefined;
  let lastPrune = 0;

  const publishBatch = async (): Promise<number> => {
    const client = await pool.connect();
    let published = 0;
    try {
      await client.query("BEGIN");
      const { rows } = await client.query<{ seq: number; id: string; subject: string; envelope: Buffer; request_id: string | null }>(
        `SELECT seq, id, subject, envelope, request_id FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT 100 FOR UPDATE SKIP LOCKED`,
      );
      // Published rows are marked with one UPDATE per batch (issue 19: one per row cost a round trip per event).
      const markPublished = (seqs: number[]) =>
        seqs.length === 0 ? undefined : client.query(`UPDATE outbox SET published_at = now(), last_error = NULL WHERE seq = ANY($1::bigint[])`, [seqs]);
      const done: number[] = [];
      for (const row of rows) {
        try {
          await bus.publish({ id: row.id, subject: row.subject, data: new Uint8Array(row.envelope), requestId: row.request_id ?? undefined });
        } catch (err) {
          await markPublished(done);
          await client.query(`UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE seq = $1`, [row.seq, String((err as Error).message).slice(0, 500)]);
          await client.query("COMMIT");
          throw err;
        }
        done.push(row.seq);
        published++;
      }
      await markPublished(done);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    if (Date.now() - lastPrune > 3_600_000) {
      lastPrune = Date.now();
      await pool
        .query(`DELETE FROM outbox WHERE published_at < now() - interval '1 day'`)
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, "pruning published outbox rows failed; next try in an hour"));
    }
    return published;
  };

  const drain = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const n = await publishBatch();
      total += n;
      if (n < 100) return total;
    }
  };

  const flush = (): Promise<number> => {
    if (!running) {
      running = drain().finally(() => {
        running = undefined;
      });
    }
    return running;
  };

  // At most one attempt pending: a failed connect both rejects and ends its client, and scheduling an attempt for
  // each doubled the attempts every second while the database was down (hundreds of LISTEN connections after).
  let relistenTimer: NodeJS.Timeout | undefined;
  const relisten = (): void => {
    if (stopped || relistenTimer) return;
    relistenTimer = setTimeout(() => {
      relistenTimer = undefined;
      void listen();
    }, 1000);
  };
  const listen = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: opts.connectionString, application_name: `vestibule-${opts.schema}-relay` });
    try {
      // The connection failing ends it: the "end" handler listens again, and the relay polls meanwhile.
      c.on("error", (err) => log.warn({ err: err.message, schema: opts.schema }, "outbox relay: the LISTEN connection failed; listening again"));
      c.on("notification", () => wake?.());
      c.on("end", () => {
        if (listener === c) listener = undefined;
        relisten();
      });
      await c.connect();
      await c.query(`LISTEN ${opts.channel}`);
      listener = c;
    } catch (err) {
      // Every second while the database is down: debug only, the relay's publish loop warns about the outage.
      log.debug({ err: (err as Error).message, schema: opts.schema }, "outbox relay: could not LISTEN; trying again in 1 s");
      await c.end().catch(() => {});
      relisten();
    }
  };

  const loop = async () => {
    await listen();
    let backoff = 0;
    while (!stopped) {
      try {
        await flush();
        if (backoff) log.info("event bus reachable again; outbox drained");
        backoff = 0;
      } catch (err) {
        backoff = Math.min(backoff ? backoff * 2 : 250, 5000);
        log.warn({ err: (err as Error).message, retry_in_ms: backoff }, "outbox relay cannot publish; events stay in the outbox");
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => done(), backoff || 1000);
        const done = () => {
          clearTimeout(t);
          wake = undefined;
          resolve();
        };
        wake = backoff ? undefined : done;
      });
    }
  };
  const done = loop();

  return {
    flush,
    async stop() {
      stopped = true;
      wake?.();
      await done;
      clearTimeout(relistenTimer);
      await listener?.end().catch(() => {});
    },
  };
}

export interface ReceivedEvent<Desc extends DescMessage> {
  readonly envelope: Envelope;
  readonly payload: MessageShape<Desc>;
}

/**
 * Subscribes a durable, idempotent consumer: each delivery is decoded and handled inside a transaction that first
 * records (consumer, event id) in processed_events; a redelivered event finds its row and is skipped, so at-least-once
 * delivery changes state exactly once. The handler must do its writes with the given client. `skip`, when it
 * answers true, acknowledges the event with no transaction and no processed_events row: only for events the handler
 * would change nothing for (e.g. webhooks of a project with no endpoint), where a redelivery is as harmless.
 */
export function consumeEvents<Desc extends DescMessage>(opts: {
  bus: EventBus;
  pool: Pool;
  log: Logger;
  consumer: string;
  event: EventDefinition<Desc>;
  handler: (event: ReceivedEvent<Desc>, client: PoolClient) => Promise<void>;
  skip?: (event: ReceivedEvent<Desc>) => Promise<boolean>;
}): Promise<Subscription> {
  return opts.bus.consume({
    durable: opts.consumer,
    subject: opts.event.type,
    handler: async (msg) => {
      const envelope = fromBinary(EnvelopeSchema, msg.data);
      const payload = fromBinary(opts.event.schema, envelope.payload);
      const consume = () => runWithContext({ requestId: envelope.requestId || `event:${envelope.id}` }, async () => {
        if (opts.skip && (await opts.skip({ envelope, payload }))) return;
        const client = await opts.pool.connect();
        try {
          await client.query("BEGIN");
          const { rowCount } = await client.query(
            `INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
            [opts.consumer, envelope.id],
          );
          if (rowCount === 1) {
            await opts.handler({ envelope, payload }, client);
          } else {
            opts.log.debug({ event_id: envelope.id, consumer: opts.consumer }, "duplicate delivery skipped");
          }
          await client.query("COMMIT");
        } catch (err) {
          await client.query("ROLLBACK").catch(() => {});
          throw err;
        } finally {
          client.release();
        }
      });
      if (!tracingEnabled()) return consume();
      // The consumer span continues the trace of the request that caused the event (its envelope's traceparent).
      const parent = extractTraceContext((key) => (key === "traceparent" ? envelope.traceparent || undefined : undefined));
      return inSpan(
        `${opts.event.type} process`,
        {
          kind: SpanKind.CONSUMER,
          parent,
          attributes: { "messaging.operation.type": "process", "messaging.destination.name": opts.event.type, "messaging.consumer.group.name": opts.consumer, "messaging.message.id": envelope.id },
        },
        consume,
      );
    },
  });
}

/** Decodes a bus message's envelope (for broadcast subscribers such as cache invalidation). */
export function decodeEnvelope(data: Uint8Array): Envelope {
  return fromBinary(EnvelopeSchema, data);
}

export function decodePayload<Desc extends DescMessage>(def: EventDefinition<Desc>, envelope: Envelope): MessageShape<Desc> {
  return fromBinary(def.schema, envelope.payload);
}
