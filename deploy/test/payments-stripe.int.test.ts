/**
 * A full purchase through the local Stripe-compatible server (issue 16): the real platform (six service processes +
 * gateway) with STRIPE_* pointing at it. Onboarding, a one-time purchase paid with a test card as Stripe.js confirms
 * it, a subscription paid through its first invoice and renewed, the signed webhooks that record them (a redelivered
 * event changes nothing, a bad or missing signature is a 400 that changes nothing).
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { STRIPE_WEBHOOK_PATH } from "../src/stripe-local/launch.ts";
import { callDemo, type Access, type ApiAnswer } from "./platform-api.ts";

let tp: TestPlatform;
beforeAll(async () => {
  // A generous start-up wait: on a loaded machine the seven processes can take over a minute to answer.
  tp = await startTestPlatform({ stripe: true, platform: { readyTimeoutMs: 170_000 } });
  const config = {
    "payments.items.credits": { displayName: "Credits", customerType: "custom" },
    "payments.offers.pack": {
      displayName: "Credit pack",
      customerType: "custom",
      stackable: true,
      prices: { once: { USD: "4.99" } },
      includedItems: { credits: { quantity: 10, repeat: "never", expires: "never" } },
    },
    "payments.offers.pro": {
      displayName: "Pro",
      customerType: "custom",
      prices: { monthly: { USD: "20", interval: [1, "month"] } },
      includedItems: { credits: { quantity: 100, repeat: [1, "month"], expires: "when-repeated" } },
    },
  };
  expect((await call("PATCH", "/internal/config/override", "admin", { config_override_string: JSON.stringify(config) })).status).toBe(200);
}, 240_000);
afterAll(async () => {
  await tp?.stop();
});

const call = (method: string, path: string, access: Access, body?: unknown): Promise<ApiAnswer> => callDemo(tp, method, path, access, body);
const noAuth = async (path: string, body: unknown) => {
  const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};
const quantity = async (customer: string) => (await call("GET", `/payments/items/custom/${customer}/credits`, "server")).json.quantity as number;
const webhook = (payload: string, signature?: string) =>
  fetch(`${tp.gatewayUrl}${STRIPE_WEBHOOK_PATH}`, { method: "POST", headers: { "content-type": "application/json", ...(signature ? { "stripe-signature": signature } : {}) }, body: payload });

async function codeFor(customer: string, offerId: string): Promise<string> {
  const res = await call("POST", "/payments/purchases/create-purchase-url", "client", { customer_type: "custom", customer_id: customer, offer_id: offerId });
  expect(res.status).toBe(200);
  return decodeURIComponent(new URL(res.json.url).pathname.split("/handler/purchase/")[1]!);
}

describe("payments through the local Stripe server", () => {
  let account: string;

  it("sets up the project's connected account: account-info is 404 before, onboarding link, then charges enabled", async () => {
    expect((await call("GET", "/internal/payments/stripe/account-info", "admin")).code).toBe("STRIPE_ACCOUNT_INFO_NOT_FOUND");
    const setup = await call("POST", "/internal/payments/setup", "admin", {});
    expect(setup.status).toBe(200);
    expect(setup.json.url).toMatch(/^http/);
    const before = await call("GET", "/internal/payments/stripe/account-info", "admin");
    expect(before.json).toMatchObject({ account_id: expect.stringMatching(/^acct_/), charges_enabled: false });
    account = before.json.account_id;
    const done = await fetch(new URL(setup.json.url), { method: "POST", body: new URLSearchParams({ return_url: "http://localhost/done" }), redirect: "manual" });
    expect(done.status).toBe(303);
    expect((await call("GET", "/internal/payments/stripe/account-info", "admin")).json).toEqual({ account_id: account, charges_enabled: true, details_submitted: true, payouts_enabled: true });
    // the same account on a second setup
    expect((await call("POST", "/internal/payments/setup", "admin", {})).status).toBe(200);
    expect((await call("GET", "/internal/payments/stripe/account-info", "admin")).json.account_id).toBe(account);
    const widgets = await call("POST", "/internal/payments/stripe-widgets/account-session", "admin", {});
    expect(widgets.json.client_secret).toEqual(expect.any(String));
  });

  it("one-time purchase: purchase-session → Stripe.js confirms the card → the signed webhook records it once", async () => {
    const fullCode = await codeFor("stripe-buyer", "pack");
    const valid = await noAuth("/payments/purchases/validate-code", { full_code: fullCode });
    expect(valid.json.stripe_account_id).toBe(account);
    const session = await noAuth("/payments/purchases/purchase-session", { full_code: fullCode, price_id: "once", quantity: 2 });
    expect(session.status).toBe(200);
    const clientSecret = session.json.client_secret as string;
    const browser = new Stripe(tp.stripe!.publishableKey, { host: tp.stripe!.host, port: tp.stripe!.port, protocol: "http" });
    const piId = clientSecret.split("_secret_")[0]!;
    const paid = await browser.paymentIntents.confirm(
      piId,
      { client_secret: clientSecret, payment_method_data: { type: "card", card: { number: "4242424242424242", exp_month: 1, exp_year: 2040, cvc: "123" } } } as Stripe.PaymentIntentConfirmParams,
      { stripeAccount: account },
    );
    expect(paid).toMatchObject({ status: "succeeded", amount: 998 });
    await tp.stripe!.webhooksIdle();
    expect(await quantity("stripe-buyer")).toBe(20);

    // The same event delivered again changes nothing.
    const event = tp.stripe!.events.find((e) => e.type === "payment_intent.succeeded" && (e.data as { object: { id: string } }).object.id === piId)!;
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: tp.stripe!.webhookSecret });
    const again = await webhook(payload, signature);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(await quantity("stripe-buyer")).toBe(20);
    const tx = await call("GET", "/internal/payments/transactions?type=one_time", "admin");
    expect(tx.json.transactions.filter((t: { customer_id: string }) => t.customer_id === "stripe-buyer")).toHaveLength(1);
    expect(tx.json.transactions[0]).toMatchObject({ type: "one_time", quantity: 2, test_mode: false, offer_display_name: "Credit pack", status: "active" });

    // A bad or missing signature: 400, nothing changes (a forged event for a new purchase code).
    const forged = JSON.stringify({ ...event, id: "evt_forged_1" });
    const bad = await webhook(forged, Stripe.webhooks.generateTestHeaderString({ payload: forged, secret: "whsec_wrong" }));
    expect(bad.status).toBe(400);
    expect((await webhook(forged)).status).toBe(400);
    expect(await quantity("stripe-buyer")).toBe(20);

    // A refund marks the purchase refunded: its items that never expire stay, the transaction says refunded.
    const stripe = new Stripe(tp.stripe!.secretKey, { host: tp.stripe!.host, port: tp.stripe!.port, protocol: "http" });
    await stripe.refunds.create({ payment_intent: piId }, { stripeAccount: account });
    await tp.stripe!.webhooksIdle();
    const refunded = await call("GET", "/internal/payments/transactions?type=one_time", "admin");
    expect(refunded.json.transactions[0].status).toBe("refunded");
  });

  it("subscription: the first invoice's client secret pays it; the webhook records the subscription, a renewal extends it", async () => {
    const fullCode = await codeFor("stripe-subscriber", "pro");
    const session = await noAuth("/payments/purchases/purchase-session", { full_code: fullCode, price_id: "monthly" });
    expect(session.status).toBe(200);
    const clientSecret = session.json.client_secret as string;
    const browser = new Stripe(tp.stripe!.publishableKey, { host: tp.stripe!.host, port: tp.stripe!.port, protocol: "http" });
    const paid = await browser.paymentIntents.confirm(
      clientSecret.split("_secret_")[0]!,
      { client_secret: clientSecret, payment_method_data: { type: "card", card: { number: "4242424242424242", exp_month: 1, exp_year: 2040, cvc: "123" } } } as Stripe.PaymentIntentConfirmParams,
      { stripeAccount: account },
    );
    expect(paid.status).toBe("succeeded");
    await tp.stripe!.webhooksIdle();
    expect(await quantity("stripe-subscriber")).toBe(100);
    const products = await call("GET", "/payments/products/custom/stripe-subscriber", "server");
    expect(products.json.items).toEqual([expect.objectContaining({ id: "pro", type: "subscription", subscription: expect.objectContaining({ cancel_at_period_end: false }) })]);
    const firstEnd = Date.parse(products.json.items[0].subscription.current_period_end);

    const created = tp.stripe!.events.find((e) => e.type === "customer.subscription.created")!;
    const subId = (created.data as { object: { id: string } }).object.id;
    const local = { method: "POST", headers: { authorization: `Bearer ${tp.stripe!.secretKey}`, "stripe-account": account } };
    // Renewal: a paid cycle invoice moves the period end.
    expect((await fetch(`${tp.stripe!.url}/_local/subscriptions/${subId}/advance`, local)).status).toBe(200);
    await tp.stripe!.webhooksIdle();
    const renewed = await call("GET", "/payments/products/custom/stripe-subscriber", "server");
    expect(Date.parse(renewed.json.items[0].subscription.current_period_end)).toBeGreaterThan(firstEnd);
    expect(await quantity("stripe-subscriber")).toBe(100);
    // Cancel at period end, then the period ends: the subscription and its repeated items are gone.
    const stripe = new Stripe(tp.stripe!.secretKey, { host: tp.stripe!.host, port: tp.stripe!.port, protocol: "http" });
    await stripe.subscriptions.update(subId, { cancel_at_period_end: true }, { stripeAccount: account });
    await tp.stripe!.webhooksIdle();
    expect((await call("GET", "/payments/products/custom/stripe-subscriber", "server")).json.items[0].subscription.cancel_at_period_end).toBe(true);
    expect((await fetch(`${tp.stripe!.url}/_local/subscriptions/${subId}/advance`, local)).status).toBe(200);
    await tp.stripe!.webhooksIdle();
    expect((await call("GET", "/payments/products/custom/stripe-subscriber", "server")).json.items).toEqual([]);
    expect(await quantity("stripe-subscriber")).toBe(0);
  });
});
