/**
 * The event bus seen by services: JetStream when NATS_URL is set (nats-bus.ts), otherwise the embedded
 * Postgres-backed bus (pg-bus.ts) so `npm start` needs no NATS server. Both give the same guarantees:
 *  - publish(id, ...) is idempotent on `id` (JetStream's Nats-Msg-Id de-duplication / a unique key);
 *  - consume(): a durable, at-least-once work queue per consumer name, shared by all replicas of a service;
 *    a handler that throws gets the message again later;
 *  - broadcast(): every replica sees every message from now on (cache invalidation); best effort, so users of it
 *    also bound their caches by time and clear them on `onReset` (reconnect).
 */

export interface BusMessage {
  readonly id: string;
  readonly subject: string;
  readonly data: Uint8Array;
  readonly requestId?: string;
  /** Delivery attempt, from 1. */
  readonly attempt: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface ConsumeOptions {
  /** Durable consumer name, unique per (service, purpose), e.g. "teams_permissions-user-created". */
  readonly durable: string;
  /** Exact subject, e.g. "identity.user.created.v1" (without the deployment prefix). */
  readonly subject: string;
  readonly handler: (msg: BusMessage) => Promise<void>;
}

export interface BroadcastOptions {
  /** Subject pattern with NATS wildcards (`*` one token, `>` the rest), without the deployment prefix. */
  readonly subject: string;
  readonly handler: (msg: BusMessage) => void | Promise<void>;
  /** Called after a reconnect, when messages may have been missed: drop whatever depends on them. */
  readonly onReset?: () => void;
}

export interface EventBus {
  readonly kind: "nats" | "postgres";
  publish(msg: { id: string; subject: string; data: Uint8Array; requestId?: string }): Promise<void>;
  consume(opts: ConsumeOptions): Promise<Subscription>;
  broadcast(opts: BroadcastOptions): Promise<Subscription>;
  /**
   * Consumer lag: for each durable consumer this process consumes, the events on the bus it has not yet handled
   * (JetStream: pending + delivered and not acknowledged; Postgres bus: matching events past its position).
   */
  consumerLag(): Promise<ConsumerLag[]>;
  close(): Promise<void>;
}

export interface ConsumerLag {
  /** The durable name given to consume(). */
  readonly consumer: string;
  readonly pending: number;
}

/** NATS subject matching with `*` (one token) and `>` (one or more trailing tokens). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split(".");
  const s = subject.split(".");
  for (let i = 0; i < p.length; i++) {
    if (p[i] === ">") return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== "*" && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/** The producing service of a subject (its first token): each producer has one stream. */
export function producerOf(subject: string): string {
  const first = subject.split(".")[0];
  if (!first) throw new Error(`invalid subject "${subject}"`);
  return first;
}
