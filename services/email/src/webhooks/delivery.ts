import type { BlockList } from "node:net";
import type { Pool } from "@vestibule/shared/db";
import { newId } from "@vestibule/shared/ids";
import type { Logger } from "@vestibule/shared/log";
import type { SecretBox } from "@vestibule/shared/secrets";
import { ClaimPump } from "@vestibule/shared/queue";
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
  private readonly pump: ClaimPump<MessageRow>;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: WebhookDeliveryDeps) {
    const { config, pool } = deps;
    this.pump = new ClaimPump<MessageRow>({
      name: "webhook queue",
      channel: "webhook_queue",
      connectionString: deps.connectionString,
      log: deps.log,
      pollMs: config.pollMs,
      concurrency: config.concurrency,
      groupLimit: config.endpointConcurrency,
      claim: (limit, busyEndpoints) => webhookStore.claimDue(pool, { limit, perEndpoint: config.endpointConcurrency, busyEndpoints, leaseMs: config.leaseMs }),
      groupOf: (message) => message.endpoint_id,
      // Over this replica's per-endpoint limit: give the claim back now rather than at the lease's end.
      release: async (message) => {
        await pool.query(`UPDATE webhook_messages SET attempts = attempts - 1, next_attempt_at = now() WHERE id = $1`, [message.id]);
      },
      handle: (message) => this.deliver(message),
    });
  }

  async start(): Promise<void> {
    await this.pump.start();
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
    this.pump.kick();
  }

  async stop(): Promise<void> {
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.pump.stop();
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
        await webhookStore.markDelivered(pool, message, endpoint.id);
        log.info({ ...fields, status: (outcome as { status: number }).status, latency_ms: outcome.latencyMs }, "webhook delivered");
        return;
      }
      const retryIn = retryDelayAfter(this.deps.schedule, message.attempts);
      const failingSince = await webhookStore.markFailed(pool, message, endpoint.id, retryIn);
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
