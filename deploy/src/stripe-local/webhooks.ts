/**
 * Events and their signed webhook deliveries. Every event is POSTed to the configured URL with
 * `Stripe-Signature: t=<unix>,v1=<HMAC-SHA256(secret, "<t>.<body>")>` (signed by the `stripe` SDK's own signer, so
 * `stripe.webhooks.constructEvent` accepts it) and retried with backoff until a 2xx answer or the attempts run out.
 */
import Stripe from "stripe";
import { newId, nowSeconds, type StripeObject } from "./store.ts";

export interface WebhookDelivery {
  readonly eventId: string;
  readonly type: string;
  readonly attempt: number;
  /** HTTP status, or 0 when the request failed (connection refused, timeout). */
  readonly status: number;
  readonly at: number;
}

export interface WebhookSenderOptions {
  webhookUrl?: string;
  readonly webhookSecret: string;
  /** Waits before each retry; default 0.5 s, 2 s, 5 s, 15 s, 60 s (then the event is given up). */
  readonly retryDelaysMs?: readonly number[];
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
}

const DEFAULT_RETRY_DELAYS = [500, 2_000, 5_000, 15_000, 60_000];

export class WebhookSender {
  readonly deliveries: WebhookDelivery[] = [];
  private readonly pending = new Set<Promise<void>>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private stopped = false;
  private readonly signer = Stripe.webhooks;

  constructor(private readonly options: WebhookSenderOptions) {}

  setUrl(url: string | undefined): void {
    this.options.webhookUrl = url;
  }

  get url(): string | undefined {
    return this.options.webhookUrl;
  }

  send(event: StripeObject): void {
    if (!this.options.webhookUrl || this.stopped) return;
    const p = this.deliver(event, this.options.webhookUrl, 1).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Resolves when no delivery is in flight or waiting for a retry. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  stop(): void {
    this.stopped = true;
    for (const [t, wake] of this.timers) {
      clearTimeout(t);
      wake();
    }
    this.timers.clear();
  }

  private async deliver(event: StripeObject, url: string, attempt: number): Promise<void> {
    const payload = JSON.stringify(event);
    const header = this.signer.generateTestHeaderString({ payload, secret: this.options.webhookSecret, timestamp: nowSeconds() });
    let status = 0;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": header, "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" },
        body: payload,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch {
      status = 0;
    }
    this.deliveries.push({ eventId: event.id, type: event.type as string, attempt, status, at: Date.now() });
    if (status >= 200 && status < 300) return;
    const delays = this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS;
    if (this.stopped || attempt > delays.length) {
      this.options.log?.(`webhook ${event.type as string} ${event.id} given up after ${attempt} attempt(s) (last status ${status})`);
      return;
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, delays[attempt - 1]);
      this.timers.set(t, resolve);
    });
    if (!this.stopped) await this.deliver(event, url, attempt + 1);
  }
}

/** Stripe's event object; the data is a snapshot taken when it happened. */
export function newEvent(type: string, object: StripeObject, account: string | null, apiVersion: string, previous?: Record<string, unknown>): StripeObject {
  return {
    id: newId("evt"),
    object: "event",
    api_version: apiVersion,
    created: nowSeconds(),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    ...(account ? { account } : {}),
    data: { object: publicView(object), ...(previous ? { previous_attributes: publicView(previous) } : {}) },
  };
}

/** A deep copy without the server's private fields (names starting with `_`). */
export function publicView<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k.startsWith("_") ? undefined : v))) as T;
}
