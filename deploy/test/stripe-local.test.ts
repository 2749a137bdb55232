/**
 * The local Stripe-compatible server driven by the real `stripe` SDK, as billing drives it: connected accounts and
 * onboarding, payment intents with test cards, the publishable-key confirm path of Stripe.js, subscriptions and
 * invoices, refunds, disputes, setup intents, Stripe's errors, and webhooks verified with `stripe.webhooks.constructEvent`
 * (signature, account, retries).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startLocalStripe, type LocalStripe } from "../src/stripe-local/index.ts";

const WEBHOOK_SECRET = "whsec_test_local_stripe";
let local: LocalStripe;
let stripe: Stripe;
let receiver: Server;
/** Verified events the receiver accepted, and how many requests to refuse with 500 before accepting. */
const received: Stripe.Event[] = [];
let refuseNext = 0;
let badSignatures = 0;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        const event = stripe.webhooks.constructEvent(Buffer.concat(chunks), String(req.headers["stripe-signature"]), WEBHOOK_SECRET);
        if (refuseNext > 0) {
          refuseNext--;
          res.writeHead(500).end();
          return;
        }
        received.push(event);
        res.writeHead(200).end("{}");
      } catch {
        badSignatures++;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  local = await startLocalStripe({
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe`,
    webhookSecret: WEBHOOK_SECRET,
    retryDelaysMs: [20, 50, 100],
  });
  stripe = new Stripe(local.secretKey, { host: "127.0.0.1", port: local.port, protocol: "http", maxNetworkRetries: 1 });
});
afterAll(async () => {
  await local?.stop();
  await new Promise((r) => receiver?.close(r));
});
beforeEach(() => {
  refuseNext = 0;
});

async function eventsOf(type: string): Promise<Stripe.Event[]> {
  await local.webhooksIdle();
  return received.filter((e) => e.type === type);
}

async function onboardedAccount(): Promise<Stripe.Account> {
  const account = await stripe.accounts.create({ type: "express", country: "US", capabilities: { card_payments: { requested: true }, transfers: { requested: true } } });
  await fetch(`${local.url}/_local/accounts/${account.id}/complete-onboarding`, { method: "POST", headers: { authorization: `Bearer ${local.secretKey}` } });
  return account;
}

describe("local Stripe: Connect", () => {
  it("creates an account, onboards it through the account link page, and sends account.updated for it", async () => {
    const account = await stripe.accounts.create({ type: "standard", email: "owner@example.com", metadata: { tenancyId: "t1" } });
    expect(account).toMatchObject({ object: "account", charges_enabled: false, details_submitted: false, metadata: { tenancyId: "t1" } });
    const link = await stripe.accountLinks.create({ account: account.id, type: "account_onboarding", refresh_url: "http://app.test/refresh", return_url: "http://app.test/done" });
    expect(link.object).toBe("account_link");
    const page = await fetch(link.url);
    expect(await page.text()).toContain("Complete onboarding");
    const done = await fetch(link.url, { method: "POST", body: new URLSearchParams({ return_url: "http://app.test/done" }), redirect: "manual" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("http://app.test/done");
    expect(await stripe.accounts.retrieve(account.id)).toMatchObject({ charges_enabled: true, payouts_enabled: true, details_submitted: true });
    const updated = (await eventsOf("account.updated")).find((e) => e.account === account.id);
    expect(updated?.data.previous_attributes).toMatchObject({ charges_enabled: false });
    const session = await stripe.accountSessions.create({ account: account.id, components: { payments: { enabled: true } } });
    expect(session.client_secret).toMatch(/^accs_secret__/);
  });

  it("scopes objects to the connected account named by Stripe-Account", async () => {
    const account = await onboardedAccount();
    const customer = await stripe.customers.create({ email: "a@example.com", metadata: { customerId: "u1" } }, { stripeAccount: account.id });
    await expect(stripe.customers.retrieve(customer.id)).rejects.toMatchObject({ statusCode: 404, code: "resource_missing" });
    const found = await stripe.customers.search({ query: "metadata['customerId']:'u1'" }, { stripeAccount: account.id });
    expect(found.data.map((c) => c.id)).toEqual([customer.id]);
    await expect(stripe.customers.list({}, { stripeAccount: "acct_doesnotexist" })).rejects.toMatchObject({ statusCode: 403, code: "account_invalid" });
  });
});

describe("local Stripe: payment intents", () => {
  it("4242… pays: payment_intent.succeeded and charge.succeeded arrive signed, tagged with the account", async () => {
    const account = await onboardedAccount();
    const opts = { stripeAccount: account.id };
    const customer = await stripe.customers.create({ email: "p@example.com" }, opts);
    const pi = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", customer: customer.id, metadata: { purchaseKind: "ONE_TIME", offerId: "pro" } }, opts);
    expect(pi).toMatchObject({ status: "requires_payment_method", client_secret: expect.stringMatching(new RegExp(`^${pi.id}_secret_`)) });
    const confirmed = await stripe.paymentIntents.confirm(pi.id, { payment_method: "pm_card_visa" }, opts);
    expect(confirmed).toMatchObject({ status: "succeeded", amount_received: 1500, latest_charge: expect.stringMatching(/^ch_/) });
    const [event] = (await eventsOf("payment_intent.succeeded")).filter((e) => (e.data.object as Stripe.PaymentIntent).id === pi.id);
    expect(event).toMatchObject({ account: account.id, api_version: Stripe.API_VERSION });
    expect(event!.data.object).toMatchObject({ metadata: { offerId: "pro" }, amount: 1500 });
    await expect(stripe.paymentIntents.confirm(pi.id, { payment_method: "pm_card_visa" }, opts)).rejects.toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
  });

  it("4000 0000 0000 0002 is declined: a StripeCardError, the intent waits for another method, payment_failed is sent", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 900, currency: "eur" });
    const pm = await stripe.paymentMethods.create({ type: "card", card: { number: "4000000000000002", exp_month: 12, exp_year: 2040, cvc: "123" } });
    const err = await stripe.paymentIntents.confirm(pi.id, { payment_method: pm.id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(err).toMatchObject({ statusCode: 402, code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." });
    expect(await stripe.paymentIntents.retrieve(pi.id)).toMatchObject({ status: "requires_payment_method", last_payment_error: { code: "card_declined" } });
    expect((await eventsOf("payment_intent.payment_failed")).some((e) => (e.data.object as Stripe.PaymentIntent).id === pi.id)).toBe(true);
    // A second attempt with a good card pays.
    expect((await stripe.paymentIntents.confirm(pi.id, { payment_method: "pm_card_mastercard" })).status).toBe("succeeded");
  });

  it("the publishable key confirms with the client secret only, as Stripe.js does", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 500, currency: "usd" });
    const browser = new Stripe(local.publishableKey, { host: "127.0.0.1", port: local.port, protocol: "http" });
    await expect(browser.paymentIntents.create({ amount: 1, currency: "usd" })).rejects.toMatchObject({ statusCode: 401 });
    await expect(browser.paymentIntents.confirm(pi.id, { client_secret: "pi_wrong_secret_x", payment_method_data: { type: "card", card: { number: "4242424242424242", exp_month: 1, exp_year: 2040, cvc: "123" } } } as Stripe.PaymentIntentConfirmParams)).rejects.toMatchObject({ statusCode: 400 });
    const paid = await browser.paymentIntents.confirm(pi.id, { client_secret: pi.client_secret, payment_method_data: { type: "card", card: { number: "4242424242424242", exp_month: 1, exp_year: 2040, cvc: "123" } } } as Stripe.PaymentIntentConfirmParams);
    expect(paid.status).toBe("succeeded");
    const js = await fetch(local.stripeJsUrl);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(await js.text()).toContain("window.Stripe = Stripe");
  });

  it("answers Stripe's errors: bad key, unknown object, missing parameter; idempotency keys replay", async () => {
    const bad = new Stripe("sk_test_wrong_key_1234", { host: "127.0.0.1", port: local.port, protocol: "http" });
    await expect(bad.customers.list()).rejects.toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    await expect(stripe.paymentIntents.retrieve("pi_missing")).rejects.toMatchObject({ statusCode: 404, code: "resource_missing", message: "No such payment intent: 'pi_missing'" });
    await expect(stripe.paymentIntents.create({ currency: "usd" } as Stripe.PaymentIntentCreateParams)).rejects.toMatchObject({ statusCode: 400, code: "parameter_missing", param: "amount" });
    const a = await stripe.customers.create({ email: "same@example.com" }, { idempotencyKey: "idem-1" });
    const b = await stripe.customers.create({ email: "same@example.com" }, { idempotencyKey: "idem-1" });
    expect(b.id).toBe(a.id);
  });
});

describe("local Stripe: refunds and disputes", () => {
  it("refunds partly, refuses more than what is left, refunds the rest, then refuses again; charge.refunded each time", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 2000, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    expect(pi.status).toBe("succeeded");
    const part = await stripe.refunds.create({ payment_intent: pi.id, amount: 500 });
    expect(part).toMatchObject({ object: "refund", amount: 500, status: "succeeded", payment_intent: pi.id });
    await expect(stripe.refunds.create({ payment_intent: pi.id, amount: 1600 })).rejects.toMatchObject({ statusCode: 400, code: "amount_too_large" });
    await stripe.refunds.create({ payment_intent: pi.id });
    await expect(stripe.refunds.create({ payment_intent: pi.id })).rejects.toMatchObject({ statusCode: 400, code: "charge_already_refunded" });
    const refunded = (await eventsOf("charge.refunded")).filter((e) => (e.data.object as Stripe.Charge).payment_intent === pi.id);
    expect(refunded.map((e) => (e.data.object as Stripe.Charge).amount_refunded)).toEqual([500, 2000]);
    const dispute = await fetch(`${local.url}/_local/charges/${pi.latest_charge as string}/dispute`, { method: "POST", headers: { authorization: `Bearer ${local.secretKey}` } });
    expect(dispute.status).toBe(200);
    expect((await eventsOf("charge.dispute.created")).some((e) => (e.data.object as Stripe.Dispute).payment_intent === pi.id)).toBe(true);
  });
});

describe("local Stripe: subscriptions and invoices", () => {
  it("default_incomplete: the first invoice's client secret pays it, activating the subscription; period end cancels", async () => {
    const customer = await stripe.customers.create({ email: "sub@example.com" });
    const product = await stripe.products.create({ name: "Pro" });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      items: [{ price_data: { currency: "usd", unit_amount: 1000, product: product.id, recurring: { interval: "month", interval_count: 1 } }, quantity: 2 }],
      metadata: { offerId: "pro" },
      expand: ["latest_invoice.confirmation_secret", "latest_invoice.payment_intent"],
    } as Stripe.SubscriptionCreateParams);
    expect(sub.status).toBe("incomplete");
    const invoice = sub.latest_invoice as Stripe.Invoice & { payment_intent: Stripe.PaymentIntent };
    expect(invoice).toMatchObject({ amount_due: 2000, status: "open", confirmation_secret: { client_secret: expect.stringMatching(/^pi_/) } });
    const piId = invoice.confirmation_secret!.client_secret.split("_secret_")[0]!;
    await stripe.paymentIntents.confirm(piId, { payment_method: "pm_card_visa" });
    const active = await stripe.subscriptions.retrieve(sub.id);
    expect(active).toMatchObject({ status: "active", default_payment_method: expect.stringMatching(/^pm_/) });
    expect((await eventsOf("invoice.paid")).some((e) => (e.data.object as Stripe.Invoice).id === invoice.id)).toBe(true);
    expect((await eventsOf("customer.subscription.updated")).some((e) => (e.data.object as Stripe.Subscription).id === sub.id && (e.data.object as Stripe.Subscription).status === "active")).toBe(true);

    // Renewal: a new paid invoice charged to the saved method.
    const renew = await fetch(`${local.url}/_local/subscriptions/${sub.id}/advance`, { method: "POST", headers: { authorization: `Bearer ${local.secretKey}` } });
    expect(renew.status).toBe(200);
    const invoices = await stripe.invoices.list({ customer: customer.id });
    expect(invoices.data.map((i) => [i.status, i.billing_reason])).toEqual([["paid", "subscription_cycle"], ["paid", "subscription_create"]]);

    const cancelling = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
    expect(cancelling.cancel_at_period_end).toBe(true);
    await fetch(`${local.url}/_local/subscriptions/${sub.id}/advance`, { method: "POST", headers: { authorization: `Bearer ${local.secretKey}` } });
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe("canceled");
    expect((await eventsOf("customer.subscription.deleted")).some((e) => (e.data.object as Stripe.Subscription).id === sub.id)).toBe(true);
  });

  it("a setup intent saves a card that becomes the default; a subscription then charges it at once", async () => {
    const customer = await stripe.customers.create({ email: "si@example.com" });
    const si = await stripe.setupIntents.create({ customer: customer.id });
    const confirmed = await stripe.setupIntents.confirm(si.id, { payment_method: "pm_card_visa" });
    expect(confirmed.status).toBe("succeeded");
    const methods = await stripe.paymentMethods.list({ customer: customer.id, type: "card" });
    expect(methods.data.map((m) => m.card?.last4)).toEqual(["4242"]);
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: confirmed.payment_method as string } });
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price_data: { currency: "usd", unit_amount: 700, product: (await stripe.products.create({ name: "Team" })).id, recurring: { interval: "year" } } }] });
    expect(sub.status).toBe("active");
    await stripe.subscriptions.cancel(sub.id);
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe("canceled");
  });
});

describe("local Stripe: webhook deliveries", () => {
  it("retries a refused delivery with the same event until it is accepted", async () => {
    refuseNext = 2;
    const customer = await stripe.customers.create({ email: "retry@example.com" });
    await local.webhooksIdle();
    const created = local.events.find((e) => e.type === "customer.created" && (e.data as { object: { id: string } }).object.id === customer.id)!;
    const attempts = local.deliveries.filter((d) => d.eventId === created.id);
    expect(attempts.map((d) => d.status)).toEqual([500, 500, 200]);
    expect(received.filter((e) => e.id === created.id)).toHaveLength(1);
    expect(badSignatures).toBe(0);
  });

  it("deliveries signed with another secret fail verification, are retried, then given up", async () => {
    badSignatures = 0;
    const other = await startLocalStripe({ webhookUrl: local.deliveries.length ? `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe` : undefined, webhookSecret: "whsec_other", retryDelaysMs: [10] });
    try {
      await new Stripe(other.secretKey, { host: "127.0.0.1", port: other.port, protocol: "http" }).customers.create({ email: "x@example.com" });
      await other.webhooksIdle();
      expect(other.deliveries.map((d) => d.status)).toEqual([400, 400]);
      expect(badSignatures).toBe(2);
    } finally {
      await other.stop();
    }
  });
});

describe("local Stripe: state file", () => {
  it("keeps accounts, customers and cards across a restart (npm start's .vestibule/stripe-local.json)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "local-stripe-"));
    const stateFile = join(dir, "state.json");
    try {
      const first = await startLocalStripe({ webhookSecret: "whsec_x", stateFile });
      const s1 = new Stripe(first.secretKey, { host: "127.0.0.1", port: first.port, protocol: "http" });
      const account = await s1.accounts.create({ type: "express" });
      const customer = await s1.customers.create({ email: "keep@example.com" }, { stripeAccount: account.id });
      const declined = await s1.paymentMethods.create({ type: "card", card: { number: "4000000000000002", exp_month: 1, exp_year: 2040 } }, { stripeAccount: account.id });
      await first.stop();
      const second = await startLocalStripe({ webhookSecret: "whsec_x", stateFile });
      try {
        const s2 = new Stripe(second.secretKey, { host: "127.0.0.1", port: second.port, protocol: "http" });
        expect((await s2.accounts.retrieve(account.id)).id).toBe(account.id);
        expect((await s2.customers.retrieve(customer.id, {}, { stripeAccount: account.id })) as Stripe.Customer).toMatchObject({ email: "keep@example.com" });
        const pi = await s2.paymentIntents.create({ amount: 100, currency: "usd" }, { stripeAccount: account.id });
        await expect(s2.paymentIntents.confirm(pi.id, { payment_method: declined.id }, { stripeAccount: account.id })).rejects.toMatchObject({ code: "card_declined" });
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
