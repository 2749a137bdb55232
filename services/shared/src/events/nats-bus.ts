import { connect, type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type ConsumerMessages,
} from "@nats-io/jetstream";
import { withoutCredentials, type Logger } from "../log/index.ts";
import type { BroadcastOptions, BusMessage, ConsumeOptions, ConsumerLag, EventBus, Subscription } from "./bus.ts";
import { producerOf } from "./bus.ts";

/**
 * JetStream bus. One stream per producing service (`VESTIBULE_<PRODUCER>` with subjects `<producer>.>`), durable
 * pull consumers (one per durable name and subject: nats-server 2.9 has a single filter subject per consumer),
 * message id = event id for de-duplication, and plain core subscriptions for broadcast.
 *
 * The connection is made in the background and retried forever, so a service starts (and keeps writing its outbox)
 * while NATS is down; publish() fails fast until it is back, and the outbox relay retries.
 *
 * `prefix` isolates deployments or test runs sharing one NATS server: subjects become `<prefix>.<subject>` and
 * stream/consumer names get the prefix too. Streams keep messages `retentionHours` (VESTIBULE_EVENT_RETENTION_HOURS,
 * default 7 days): long enough for a consumer to catch up after an outage, without unbounded disk use.
 */
export class NatsBus implements EventBus {
  readonly kind = "nats" as const;
  private nc: NatsConnection | undefined;
  private js: JetStreamClient | undefined;
  private jsm: JetStreamManager | undefined;
  private readonly ensuredStreams = new Map<string, Promise<void>>();
  private readonly connected: Promise<void>;
  private closed = false;
  private readonly stops = new Set<() => Promise<void>>();
  /** Durable consumers started by this process and their subjects (for consumerLag). */
  private readonly consumed = new Map<string, string>();

  constructor(
    private readonly servers: string,
    private readonly log: Logger,
    private readonly prefix = "",
    /** Messages older than this leave the streams (as the Postgres bus prunes its events): bounded disk use. */
    private readonly retentionHours = 24 * 7,
    /** Copies of each stream on a NATS cluster (VESTIBULE_EVENT_REPLICAS; 3 survives the loss of one node). */
    private readonly replicas = 1,
  ) {
    this.connected = this.connectLoop();
    this.connected.catch(() => {});
  }

  private subject(s: string): string {
    return this.prefix ? `${this.prefix}.${s}` : s;
  }

  private unprefixed(s: string): string {
    return this.prefix && s.startsWith(`${this.prefix}.`) ? s.slice(this.prefix.length + 1) : s;
  }

  private streamName(producer: string): string {
    const p = this.prefix ? `${this.prefix.replace(/[^A-Za-z0-9_-]/g, "_")}_` : "";
    return `${p}VESTIBULE_${producer.toUpperCase()}`;
  }

  private durableName(durable: string): string {
    const p = this.prefix ? `${this.prefix}_` : "";
    return `${p}${durable}`.replace(/[^A-Za-z0-9_-]/g, "_");
  }

  private async connectLoop(): Promise<void> {
    let delay = 250;
    while (!this.closed) {
      try {
        this.nc = await connect({
          // A cluster's nodes, comma-separated: the client fails over between them.
          servers: this.servers.split(",").map((s) => s.trim()).filter((s) => s !== ""),
          name: "vestibule",
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
          timeout: 3000,
        });
        this.js = jetstream(this.nc, { timeout: 3000 });
        this.jsm = await jetstreamManager(this.nc, { timeout: 3000 });
        this.log.info({ servers: withoutCredentials(this.servers) }, "connected to NATS");
        void this.watchStatus(this.nc);
        return;
      } catch (err) {
        this.log.warn({ err: (err as Error).message, retry_in_ms: delay }, "NATS not reachable; retrying");
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
    throw new Error("bus closed");
  }

  private readonly resetListeners = new Set<() => void>();

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") this.log.warn("NATS disconnected");
      if (s.type === "reconnect") {
        this.log.info("NATS reconnected");
        for (const l of this.resetListeners) l();
      }
    }
  }

  private ensureStream(producer: string): Promise<void> {
    let p = this.ensuredStreams.get(producer);
    if (!p) {
      p = (async () => {
        const name = this.streamName(producer);
        const subjects = [this.subject(`${producer}.>`)];
        const maxAge = this.retentionHours * 3600 * 1_000_000_000; // nanoseconds
        try {
          const info = await this.jsm!.streams.info(name);
          // Streams made before a retention was set (or with another one) get the configured one, and the replicas.
          if (info.config.max_age !== maxAge || info.config.num_replicas !== this.replicas) {
            await this.jsm!.streams.update(name, { ...info.config, max_age: maxAge, num_replicas: this.replicas });
          }
        } catch {
          try {
            await this.jsm!.streams.add({ name, subjects, duplicate_window: 2 * 60 * 1_000_000_000, max_age: maxAge, num_replicas: this.replicas });
          } catch (err) {
            // Another replica may have created it in between.
            await this.jsm!.streams.info(name).catch(() => {
              throw err;
            });
          }
        }
      })();
      p.catch(() => this.ensuredStreams.delete(producer));
      this.ensuredStreams.set(producer, p);
    }
    return p;
  }

  async publish(msg: { id: string; subject: string; data: Uint8Array; requestId?: string }): Promise<void> {
    if (!this.nc || this.nc.isClosed() || !this.js) throw new Error("NATS is not connected");
    await this.ensureStream(producerOf(msg.subject));
    const h = natsHeaders();
    if (msg.requestId) h.set("vestibule-request-id", msg.requestId);
    await this.js.publish(this.subject(msg.subject), msg.data, { msgID: msg.id, headers: h, timeout: 3000 });
  }

  async consumerLag(): Promise<ConsumerLag[]> {
    if (!this.jsm) return [];
    const out: ConsumerLag[] = [];
    for (const [consumer, subject] of this.consumed) {
      try {
        const info = await this.jsm.consumers.info(this.streamName(producerOf(subject)), this.durableName(consumer));
        out.push({ consumer, pending: info.num_pending + info.num_ack_pending });
      } catch {
        // Not created yet (the stream or consumer appears with the first consume loop).
      }
    }
    return out;
  }

  async consume(opts: ConsumeOptions): Promise<Subscription> {
    this.consumed.set(opts.durable, opts.subject);
    let stopped = false;
    let messages: ConsumerMessages | undefined;
    const run = async () => {
      await this.connected;
      let delay = 500;
      while (!stopped) {
        try {
          const producer = producerOf(opts.subject);
          await this.ensureStream(producer);
          const stream = this.streamName(producer);
          const durable = this.durableName(opts.durable);
          try {
            await this.jsm!.consumers.info(stream, durable);
          } catch {
            await this.jsm!.consumers.add(stream, {
              durable_name: durable,
              filter_subject: this.subject(opts.subject),
              ack_policy: AckPolicy.Explicit,
              deliver_policy: DeliverPolicy.All,
              ack_wait: 30 * 1_000_000_000,
              max_deliver: -1,
            });
          }
          const consumer = await this.js!.consumers.get(stream, durable);
          messages = await consumer.consume({ max_messages: 64 });
          delay = 500;
          for await (const m of messages) {
            const msg: BusMessage = {
              id: m.headers?.get("Nats-Msg-Id") ?? "",
              subject: this.unprefixed(m.subject),
              data: m.data,
              requestId: m.headers?.get("vestibule-request-id") || undefined,
              attempt: m.info.deliveryCount,
            };
            try {
              await opts.handler(msg);
              m.ack();
            } catch (err) {
              const backoff = Math.min(1000 * 2 ** Math.min(m.info.deliveryCount - 1, 5), 30_000);
              this.log.warn({ err: (err as Error).message, subject: msg.subject, attempt: msg.attempt }, "event handler failed; will be redelivered");
              m.nak(backoff);
            }
          }
        } catch (err) {
          if (stopped) break;
          this.log.warn({ err: (err as Error).message, durable: opts.durable }, "consumer interrupted; restarting");
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, 5000);
        }
      }
    };
    const done = run();
    const stop = async () => {
      stopped = true;
      await messages?.close().catch(() => {});
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
    };
    this.stops.add(stop);
    return { stop: async () => { this.stops.delete(stop); await stop(); } };
  }

  async broadcast(opts: BroadcastOptions): Promise<Subscription> {
    let sub: { unsubscribe(): void } | undefined;
    let stopped = false;
    if (opts.onReset) this.resetListeners.add(opts.onReset);
    const start = (async () => {
      await this.connected;
      if (stopped) return;
      const s = this.nc!.subscribe(this.subject(opts.subject));
      sub = s;
      for await (const m of s) {
        try {
          await opts.handler({
            id: m.headers?.get("Nats-Msg-Id") ?? "",
            subject: this.unprefixed(m.subject),
            data: m.data,
            requestId: m.headers?.get("vestibule-request-id") || undefined,
            attempt: 1,
          });
        } catch (err) {
          this.log.warn({ err: (err as Error).message }, "broadcast handler failed");
        }
      }
    })();
    start.catch(() => {});
    const stop = async () => {
      stopped = true;
      if (opts.onReset) this.resetListeners.delete(opts.onReset);
      sub?.unsubscribe();
    };
    this.stops.add(stop);
    return { stop: async () => { this.stops.delete(stop); await stop(); } };
  }

  /** Resolves once connected (for tests and start-up ordering). */
  async ready(): Promise<void> {
    await this.connected;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.stops].map((s) => s()));
    if (this.nc && !this.nc.isClosed()) await this.nc.drain().catch(() => this.nc?.close());
  }
}
