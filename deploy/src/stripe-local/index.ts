/**
 * A local Stripe-compatible server on loopback: Stripe cannot be reached from these machines, so tests and `npm start`
 * in development point the official `stripe` SDK at it (`new Stripe(key, { host, port, protocol: "http" })`).
 * Production names the real API and nothing else changes.
 *
 * Why our own: the npm candidates do not fit. `stripe-stateful-mock` (last release 2024, "half-baked") has no
 * payment/setup intents, account links or sessions and sends no webhooks; `stripe-mock` is a Go binary without
 * state. This implements just the calls billing makes, with Stripe's form-encoded requests, bearer keys,
 * `Stripe-Account` scoping, response shapes and errors, and signed webhook deliveries with retries:
 * accounts, account links (a local onboarding page), account sessions, customers (+search), payment methods,
 * setup intents, payment intents (test cards: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined), charges,
 * refunds, products, prices, subscriptions (cancel_at_period_end, item switch, cancel), invoices, payment method
 * configurations, events, and a
 * Stripe.js stand-in at /v3 (stripe-js.ts). Local helpers under /_local/ do what happens outside the API in real
 * Stripe: complete onboarding, dispute a charge, end a subscription period (renew or cancel).
 *
 *   const stripe = await startLocalStripe({ webhookUrl, webhookSecret: "whsec_..." });
 *   new Stripe(stripe.secretKey, { host: "127.0.0.1", port: stripe.port, protocol: "http" });
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import type { LocalStripeState } from "./context.ts";
import { installInvoiceHook } from "./billing.ts";
import { createLocalStripeServer } from "./server.ts";
import { LocalStripeStore, type StripeObject } from "./store.ts";
import { WebhookSender, newEvent, type WebhookDelivery } from "./webhooks.ts";

export type { StripeObject } from "./store.ts";
export type { WebhookDelivery } from "./webhooks.ts";

export const LOCAL_STRIPE_SECRET_KEY = "sk_test_vestibule_local";
export const LOCAL_STRIPE_PUBLISHABLE_KEY = "pk_test_vestibule_local";
export const LOCAL_STRIPE_DEFAULT_PORT = 8118;

export interface LocalStripeOptions {
  /** Default 0 (a free port). */
  readonly port?: number;
  readonly host?: string;
  /** Where events are POSTed (signed). Can be set later with `setWebhookUrl` (e.g. once the gateway's URL is known). */
  readonly webhookUrl?: string;
  readonly webhookSecret: string;
  readonly secretKey?: string;
  readonly publishableKey?: string;
  /** Waits before each webhook retry (default 0.5 s, 2 s, 5 s, 15 s, 60 s). */
  readonly retryDelaysMs?: readonly number[];
  /**
   * Keep the objects (accounts, customers, payment methods, subscriptions, ...) in this JSON file across restarts, so
   * ids billing stored stay valid (npm start uses .vestibule/stripe-local.json). Default: memory only.
   */
  readonly stateFile?: string;
  readonly log?: (line: string) => void;
}

export interface LocalStripe {
  /** http://host:port (what `STRIPE_API_URL` names). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly secretKey: string;
  readonly publishableKey: string;
  readonly webhookSecret: string;
  /** URL of the Stripe.js stand-in. */
  readonly stripeJsUrl: string;
  /** Every event so far, oldest first. */
  readonly events: readonly StripeObject[];
  /** Every webhook delivery attempt. */
  readonly deliveries: readonly WebhookDelivery[];
  setWebhookUrl(url: string | undefined): void;
  /** Resolves when every webhook is delivered or given up. */
  webhooksIdle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalStripe(options: LocalStripeOptions): Promise<LocalStripe> {
  const host = options.host ?? "127.0.0.1";
  const events: StripeObject[] = [];
  const sender = new WebhookSender({ webhookUrl: options.webhookUrl, webhookSecret: options.webhookSecret, retryDelaysMs: options.retryDelaysMs, log: options.log });
  const state: LocalStripeState = {
    store: new LocalStripeStore(),
    baseUrl: "",
    apiVersion: Stripe.API_VERSION,
    cardOutcome: new Map(),
    emit(type, object, account, previous) {
      const event = newEvent(type, object, account, state.apiVersion, previous);
      events.push(event);
      sender.send(event);

    },
    changed() {
      if (options.stateFile && !saveTimer) {
        saveTimer = setTimeout(() => {
          saveTimer = undefined;
          save();
        }, 250);
      }
    },
  };
  installInvoiceHook(state);
  let saveTimer: NodeJS.Timeout | undefined;
  const save = (): void => {
    if (!options.stateFile) return;
    writeFileSync(options.stateFile, JSON.stringify({ objects: state.store.dump(), cards: [...state.cardOutcome] }));
  };
  if (options.stateFile && existsSync(options.stateFile)) {
    const snapshot = JSON.parse(readFileSync(options.stateFile, "utf8")) as { objects: Parameters<LocalStripeStore["load"]>[0]; cards: [string, string | null][] };
    state.store.load(snapshot.objects);
    for (const [pm, outcome] of snapshot.cards) state.cardOutcome.set(pm, outcome);
  }
  const keys = { secretKey: options.secretKey ?? LOCAL_STRIPE_SECRET_KEY, publishableKey: options.publishableKey ?? LOCAL_STRIPE_PUBLISHABLE_KEY };
  const server = createLocalStripeServer(state, keys, () => events);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  state.baseUrl = url;
  return {
    url,
    host,
    port,
    ...keys,
    webhookSecret: options.webhookSecret,
    stripeJsUrl: `${url}/v3`,
    events,
    deliveries: sender.deliveries,
    setWebhookUrl: (u) => sender.setUrl(u),
    webhooksIdle: () => sender.idle(),
    async stop() {
      clearTimeout(saveTimer);
      save();
      sender.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
