import type { BlockList } from "node:net";
import pg from "pg";
import type { Pool } from "@vestibule/shared/db";
import { newId } from "@vestibule/shared/ids";
import type { Logger } from "@vestibule/shared/log";
import type { SecretBox } from "@vestibule/shared/secrets";
import { retryDelayAfter, type WebhookConfig } from "./config.ts";
import { postWebhook } from "./sender.ts";
import { openSecret, signedHeaders } from "./signing.ts";
import { webhookStore, type EndpointRow, type MessageRow } from "./store.ts";

export interface WebhookDeliveryDeps {
  readonly pool: Pool;
  readonly connectionString: string;
  readonly log: Logger;
  readonly secrets: SecretBox;
  readonly config: WebhookConfig;
  readonly schedule: readonly number[];
  readonly allow: BlockList;
  /** Called once when an endpoint was disabled for failing too long (tell its owners). */
  readonly onDisabled: (endpoint: EndpointRow) => Promise<void>;
}

/**
 * Delivers webhook messages, at least once. The queue is the `webhook_messages` table, shared by every replica:
 * claims take due rows with FOR UPDATE SKIP LOCKED and hold them by a lease (next_attempt_at moves past the request
 * timeout), so a deliverer killed mid-request loses nothing: the lease runs out and another attempt goes with the same
 * webhook-id. Woken by NOTIFY webhook_queue, polled every `pollMs`. At most `concurrency` requests per replica and
 * `endpointConcurrency` per endpoint, each bounded by `timeoutMs`, so a slow or dead endpoint ties up only its own
 * slots. Failures are retried on the schedule (config.ts); an endpoint failing for `disableAfterMs` is disabled.
 * Also prunes attempts and finished messages past the retention.
 */
export class WebhookDelivery {
  private readonly inFlight = new Map<string, number>();
  private running = 0;
  private pumping = false;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  private readonly idle = new Set<() => void>();

  constructor(private readonly deps: WebhookDeliveryDeps) {}

  async start(): Promise<void> {
    await this.listen();
    this.schedule(0);
    const prune = () => {
      webhookStore
        .prune(this.deps.pool, this.deps.config.retentionDays)
        .then((n) => (n.attempts || n.messages ? this.deps.log.info(n, "pruned old webhook attempts and messages") : undefined))
        .catch((err) => this.deps.log.warn({ err }, "pruning webhook attempts failed"));
    };
    prune();
    this.pruneTimer = setInterval(prune, this.deps.config.pruneIntervalMs);
    this.pruneTimer.unref();
  }

  kick(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.listener?.end().catch(() => {});
    this.listener = undefined;
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.deps.connectionString });
    const retry = () => setTimeout(() => void this.listen().catch(() => {}), 1_000).unref();
    client.on("error", (err) => {
      this.deps.log.warn({ err }, "webhook queue listener lost its connection; polling until it is back");
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => {});
      retry();
    });
    client.on("notification", () => this.schedule(0));
    try {
      await client.connect();
      await client.query("LISTEN webhook_queue");
      this.listener = client;
    } catch (err) {
      this.deps.log.warn({ err }, "webhook queue listener could not connect; polling");
      await client.end().catch(() => {});
      retry();
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pump();
    }, delayMs);
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        await this.fill();
      } while (this.again && !this.stopped);
    } catch (err) {
      this.deps.log.warn({ err }, "claiming webhook messages failed; retrying");
    } finally {
      this.pumping = false;
      this.schedule(this.deps.config.pollMs);
    }
  }

  private async fill(): Promise<void> {
    const { config } = this.deps;
    while (!this.stopped && this.running < config.concurrency) {
      const busy = [...this.inFlight].filter(([, n]) => n >= config.endpointConcurrency).map(([e]) => e);
      const claimed = await webhookStore.claimDue(this.deps.pool, {
        limit: config.concurrency - this.running,
        perEndpoint: config.endpointConcurrency,
        busyEndpoints: busy,
        leaseMs: config.leaseMs,
      });
      if (claimed.length === 0) return;
      let taken = 0;
      for (const message of claimed) {
        const n = this.inFlight.get(message.endpoint_id) ?? 0;
        if (n >= config.endpointConcurrency) {
          // Over this replica's per-endpoint limit: give the claim back now rather than at the lease's end.
          await this.deps.pool.query(`UPDATE webhook_messages SET attempts = attempts - 1, next_attempt_at = now() WHERE id = $1`, [message.id]);
          continue;
        }
        taken++;
        this.running++;
        this.inFlight.set(message.endpoint_id, n + 1);
        void this.deliver(message).finally(() => {
          this.running--;
          const left = (this.inFlight.get(message.endpoint_id) ?? 1) - 1;
          if (left > 0) this.inFlight.set(message.endpoint_id, left);
          else this.inFlight.delete(message.endpoint_id);
          if (this.running === 0) for (const resolve of this.idle) resolve();
          this.schedule(0);
        });
      }
      if (taken === 0) return;
    }
  }

  /** Every secret a delivery is signed with: the current one, and the previous one during its overlap window. */
  private async secretsOf(endpoint: EndpointRow): Promise<string[]> {
    const list = [await openSecret(this.deps.secrets, endpoint.id, endpoint.secret_sealed)];
    if (endpoint.previous_secret_sealed && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > new Date()) {
      list.push(await openSecret(this.deps.secrets, endpoint.id, endpoint.previous_secret_sealed));
    }
    return list;
  }

  private async deliver(message: MessageRow): Promise<void> {
    const { pool, log, config } = this.deps;
    const fields = { webhook_id: message.id, endpoint_id: message.endpoint_id, project_id: message.project_id, attempt: message.attempts };
    try {
      const endpoint = await webhookStore.endpointById(pool, message.endpoint_id);
      if (!endpoint) return;
      const body = JSON.stringify(message.payload);
      const headers = signedHeaders(await this.secretsOf(endpoint), message.id, new Date(), body);
      const outcome = await postWebhook(endpoint.url, body, headers, { timeoutMs: config.timeoutMs, allow: this.deps.allow });
      const succeeded = "status" in outcome && outcome.status >= 200 && outcome.status < 300;
      await webhookStore.recordAttempt(pool, {
        id: newId(),
        message_id: message.id,
        endpoint_id: endpoint.id,
        project_id: message.project_id,
        event_type: message.event_type,
        response_status: "status" in outcome ? outcome.status : 0,
        succeeded,
        latency_ms: outcome.latencyMs,
        response_excerpt: "excerpt" in outcome ? outcome.excerpt : "",
        error: "error" in outcome ? outcome.error : "",
        trigger: message.trigger,
      });
      if (succeeded) {
        await webhookStore.markDelivered(pool, message.id, endpoint.id);
        log.info({ ...fields, status: (outcome as { status: number }).status, latency_ms: outcome.latencyMs }, "webhook delivered");
        return;
      }
      const retryIn = retryDelayAfter(this.deps.schedule, message.attempts);
      const failingSince = await webhookStore.markFailed(pool, message.id, endpoint.id, retryIn);
      log.warn({ ...fields, status: "status" in outcome ? outcome.status : 0, error: "error" in outcome ? outcome.error : undefined, retry_in_ms: retryIn }, "webhook delivery failed");
      if (Date.now() - failingSince.getTime() >= config.disableAfterMs) {
        const reason = `Disabled automatically: every delivery failed since ${failingSince.toISOString()}.`;
        if (await webhookStore.disableEndpoint(pool, endpoint.id, reason)) {
          log.warn({ endpoint_id: endpoint.id, project_id: endpoint.project_id }, "webhook endpoint disabled after failing for too long");
          await this.deps.onDisabled({ ...endpoint, enabled: false, disabled_reason: reason }).catch((err) =>
            log.error({ err, endpoint_id: endpoint.id }, "telling the owners about a disabled webhook endpoint failed"),
          );
        }
      }
    } catch (err) {
      // Recording the outcome failed (database down): the lease runs out and the message is tried again.
      log.error({ ...fields, err }, "webhook delivery could not be recorded");
    }
  }
}
