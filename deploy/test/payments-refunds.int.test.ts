/**
 * Partial refunds through the local Stripe-compatible server (issue 16, latest-sdk.md E `refundTransaction`): the real
 * platform with STRIPE_* pointing at it. A one-time purchase paid by card is refunded in parts (each a Stripe refund of
 * that amount, the sum capped at what was paid), a subscription is refunded from its invoice and canceled at period
 * end, and the refund webhooks Stripe sends back do not end a purchase Vestibule refunded only in part.
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asCurrentSdkHeaders } from "@vestibule/shared/testing";
import { startTestPlatform, type TestPlatform } from "../src/test-platform.ts";
import { callDemo, callPlatform, demoHeaders, type Access, type ApiAnswer } from "./platform-api.ts";

let tp: TestPlatform;
let account: string;
let stripe: Stripe;
let browser: Stripe;

const call = (method: string, path: string, access: Access, body?: unknown): Promise<ApiAnswer> => callDemo(tp, method, path, access, body);
/** The current SDK's admin (x-hexclave-* headers): entry-based transactions, refunds listed. */
const currentAdmin = (method: string, path: string, body?: unknown) =>
  callPlatform(tp, method, path, asCurrentSdkHeaders(demoHeaders(tp, "admin")), body);
const refund = (body: Record<string, unknown>) => currentAdmin("POST", "/internal/payments/transactions/refund", body);
const noAuth = async (path: string, body: unknown) => {
  const res = await fetch(`${tp.gatewayUrl}/api/v1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
};
const card = { type: "card", card: { number: "4242424242424242", exp_month: 1, exp_year: 2040, cvc: "123" } };

beforeAll(async () => {
  tp = await startTestPlatform({ stripe: true, platform: { readyTimeoutMs: 170_000 } });
  const config = {
    "payments.items.credits": { displayName: "Credits", customerType: "custom" },
    "payments.offers.pack": { displayName: "Credit pack", customerType: "custom", stackable: true, prices: { once: { USD: "25" } }, includedItems: { credits: { quantity: 10 } } },
    "payments.offers.pro": { displayName: "Pro", customerType: "custom", prices: { monthly: { USD: "20", interval: [1, "month"] } }, includedItems: { credits: { quantity: 100, repeat: [1, "month"], expires: "when-repeated" } } },
  };
  expect((await call("PATCH", "/internal/config/override", "admin", { config_override_string: JSON.stringify(config) })).status).toBe(200);
  const setup = await call("POST", "/internal/payments/setup", "admin", {});
  expect((await fetch(new URL(setup.json.url), { method: "POST", body: new URLSearchParams({ return_url: "http://localhost/done" }), redirect: "manual" })).status).toBe(303);
  account = (await call("GET", "/internal/payments/stripe/account-info", "admin")).json.account_id;
  stripe = new Stripe(tp.stripe!.secretKey, { host: tp.stripe!.host, port: tp.stripe!.port, protocol: "http" });
  browser = new Stripe(tp.stripe!.publishableKey, { host: tp.stripe!.host, port: tp.stripe!.port, protocol: "http" });
}, 240_000);
afterAll(async () => {
  await tp?.stop();
});

/** Buys `offerId` for a custom customer through the purchase page's Stripe flow; answers the paid payment intent id. */
async function buy(customer: string, offerId: string, priceId: string): Promise<string> {
  const url = await call("POST", "/payments/purchases/create-purchase-url", "client", { customer_type: "custom", customer_id: customer, offer_id: offerId });
  const fullCode = decodeURIComponent(new URL(url.json.url).pathname.split("/handler/purchase/")[1]!);
  const session = await noAuth("/payments/purchases/purchase-session", { full_code: fullCode, price_id: priceId });
  expect(session.status).toBe(200);
  const secret = session.json.client_secret as string;
  const piId = secret.split("_secret_")[0]!;
  const paid = await browser.paymentIntents.confirm(piId, { client_secret: secret, payment_method_data: card } as Stripe.PaymentIntentConfirmParams, { stripeAccount: account });
  expect(paid.status).toBe("succeeded");
  await tp.stripe!.webhooksIdle();
  return piId;
}

async function purchaseOf(customer: string, type: "one_time" | "subscription"): Promise<{ id: string; status: string }> {
  const tx = await call("GET", `/internal/payments/transactions?type=${type}&customer_id=${customer}`, "admin");
  expect(tx.json.transactions).toHaveLength(1);
  return tx.json.transactions[0];
}

describe("partial refunds through Stripe", () => {
  it("one-time purchase: partial refunds up to what was paid, each a Stripe refund of that amount; the purchase stays active", async () => {
    const piId = await buy("refund-buyer", "pack", "once");
    const purchase = await purchaseOf("refund-buyer", "one_time");
    const first = await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "10.50" });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ success: true, refund_transaction_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const over = await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "14.51" });
    expect(over.status).toBe(400);
    expect(over.json.error).toContain("Refund amount (14.51 USD) cannot exceed the remaining refundable amount (14.50 USD)");
    const badMoney = await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "1.999" });
    expect(badMoney.json.error).toContain("Too many decimals; USD only has 2 decimals");
    expect((await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "4.50" })).status).toBe(200);
    await tp.stripe!.webhooksIdle();

    // Stripe holds exactly the two refunds; the charge.refunded webhooks did not end the purchase.
    const refunds = await stripe.refunds.list({ payment_intent: piId }, { stripeAccount: account });
    expect(refunds.data.map((r) => r.amount).sort((a, b) => a - b)).toEqual([450, 1050]);
    expect(refunds.data.every((r) => r.metadata?.vestibule_purchase_id === purchase.id)).toBe(true);
    expect((await purchaseOf("refund-buyer", "one_time")).status).toBe("active");
    expect((await call("GET", "/payments/items/custom/refund-buyer/credits", "server")).json.quantity).toBe(10);

    // The rest, then nothing is left: ALREADY_REFUNDED; ending it now still works.
    expect((await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "10" })).status).toBe(200);
    const again = await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "0.01" });
    expect(again.code).toBe("ONE_TIME_PURCHASE_ALREADY_REFUNDED");
    expect((await stripe.refunds.list({ payment_intent: piId }, { stripeAccount: account })).data).toHaveLength(3);
    expect((await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "0", end_action: "now" })).status).toBe(200);
    await tp.stripe!.webhooksIdle();
    expect((await purchaseOf("refund-buyer", "one_time")).status).toBe("refunded");

    // The current shape: refund transactions with a money_transfer entry against the purchase's payment.
    const list = (await currentAdmin("GET", "/internal/payments/transactions?customer_id=refund-buyer")).json.transactions;
    const moneyRefunds = list.filter((t: { type: string; entries: { type: string }[] }) => t.type === "refund" && t.entries.some((e) => e.type === "money_transfer"));
    expect(moneyRefunds.map((t: { entries: { charged_amount: { USD: string } }[] }) => t.entries[0]!.charged_amount.USD).sort()).toEqual(["10.00", "10.50", "4.50"]);
    expect(moneyRefunds[0].entries[0]).toMatchObject({ type: "money_transfer", adjusted_transaction_id: purchase.id, adjusted_entry_index: 1, customer_type: "custom", customer_id: "refund-buyer" });
    const bought = list.find((t: { id: string }) => t.id === purchase.id);
    expect(bought.adjusted_by).toHaveLength(4);
  });

  it("a refund made in Stripe's dashboard and a dispute: a refund and a chargeback transaction that end the purchase", async () => {
    const piId = await buy("dashboard-refund", "pack", "once");
    const purchase = await purchaseOf("dashboard-refund", "one_time");
    const outside = await stripe.refunds.create({ payment_intent: piId, amount: 700 }, { stripeAccount: account });
    await tp.stripe!.webhooksIdle();
    expect((await purchaseOf("dashboard-refund", "one_time")).status).toBe("refunded");
    let list = (await currentAdmin("GET", "/internal/payments/transactions?customer_id=dashboard-refund")).json.transactions;
    const recorded = list.filter((t: { type: string }) => t.type === "refund");
    expect(recorded).toHaveLength(1);
    expect(list.find((t: { id: string }) => t.id === purchase.id).adjusted_by).toEqual([{ transaction_id: recorded[0].id, entry_index: 0 }]);
    // Vestibule knows what Stripe refunded: 25.00 paid, 7.00 refunded outside, so 18.01 is too much.
    const over = await refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "18.01" });
    expect(over.json.error).toContain("cannot exceed the remaining refundable amount (18.00 USD)");
    expect(outside.amount).toBe(700);

    const disputed = await buy("disputed-buyer", "pack", "once");
    const pi = await stripe.paymentIntents.retrieve(disputed, {}, { stripeAccount: account });
    const dispute = await fetch(`${tp.stripe!.url}/_local/charges/${pi.latest_charge as string}/dispute`, { method: "POST", headers: { authorization: `Bearer ${tp.stripe!.secretKey}`, "stripe-account": account } });
    expect(dispute.status).toBe(200);
    await tp.stripe!.webhooksIdle();
    const chargeback = await purchaseOf("disputed-buyer", "one_time");
    expect(chargeback.status).toBe("refunded");
    list = (await currentAdmin("GET", "/internal/payments/transactions?customer_id=disputed-buyer")).json.transactions;
    expect(list.filter((t: { type: string }) => t.type === "refund")).toEqual([]);
    const [chargebackTx] = list.filter((t: { type: string }) => t.type === "chargeback");
    expect(chargebackTx.entries).toEqual([
      { type: "money_transfer", adjusted_transaction_id: chargeback.id, adjusted_entry_index: 1, customer_type: "custom", customer_id: "disputed-buyer", charged_amount: { USD: "25.00" }, net_amount: { USD: "25.00" } },
      { type: "product_revocation", adjusted_transaction_id: chargeback.id, adjusted_entry_index: 0, quantity: 1 },
    ]);
    expect(list.find((t: { id: string }) => t.id === chargeback.id).adjusted_by).toEqual([{ transaction_id: chargebackTx.id, entry_index: 0 }]);
    const filtered = (await currentAdmin("GET", "/internal/payments/transactions?type=chargeback&customer_id=disputed-buyer")).json.transactions;
    expect(filtered.map((t: { id: string }) => t.id)).toEqual([chargebackTx.id]);
    expect((await call("GET", "/payments/items/custom/disputed-buyer/credits", "server")).json.quantity).toBe(0);
  });

  it("concurrent partial refunds never exceed what was paid together", async () => {
    const piId = await buy("refund-race", "pack", "once");
    const purchase = await purchaseOf("refund-race", "one_time");
    const answers = await Promise.all(Array.from({ length: 6 }, () => refund({ type: "one-time-purchase", id: purchase.id, amount_usd: "10" })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(4);
    const refunds = await stripe.refunds.list({ payment_intent: piId }, { stripeAccount: account });
    expect(refunds.data.map((r) => r.amount)).toEqual([1000, 1000]);
  });

  it("subscription: refunds come from an invoice of that subscription; end_action at-period-end cancels it at the period's end", async () => {
    await buy("refund-subscriber", "pro", "monthly");
    const sub = await purchaseOf("refund-subscriber", "subscription");
    const created = tp.stripe!.events.find((e) => e.type === "customer.subscription.created" && (e.data as { object: { metadata: Record<string, string> } }).object.metadata?.vestibule_price_id === "monthly")!;
    const stripeSubId = (created.data as { object: { id: string } }).object.id;
    const invoices = await stripe.invoices.list({ subscription: stripeSubId }, { stripeAccount: account });
    expect(invoices.data).toHaveLength(1);
    const invoiceId = invoices.data[0]!.id!;

    const unknown = await refund({ type: "subscription", id: sub.id, invoice_id: "in_does_not_exist", amount_usd: "1" });
    expect(unknown.status).toBe(404);
    expect(unknown.code).toBe("SUBSCRIPTION_INVOICE_NOT_FOUND");
    const over = await refund({ type: "subscription", id: sub.id, invoice_id: invoiceId, amount_usd: "20.01" });
    expect(over.json.error).toContain("cannot exceed the remaining refundable amount (20.00 USD)");
    const ok = await refund({ type: "subscription", id: sub.id, invoice_id: invoiceId, amount_usd: "5", end_action: "at-period-end" });
    expect(ok.status).toBe(200);
    await tp.stripe!.webhooksIdle();
    expect((await stripe.subscriptions.retrieve(stripeSubId, {}, { stripeAccount: account })).cancel_at_period_end).toBe(true);
    const products = await call("GET", "/payments/products/custom/refund-subscriber", "server");
    expect(products.json.items[0].subscription).toMatchObject({ cancel_at_period_end: true });
    // Without invoice_id: the latest paid invoice, with what is left on it.
    const rest = await refund({ type: "subscription", id: sub.id, amount_usd: "15.01" });
    expect(rest.json.error).toContain("remaining refundable amount (15.00 USD)");
    expect((await refund({ type: "subscription", id: sub.id, amount_usd: "15", end_action: "now" })).status).toBe(200);
    await tp.stripe!.webhooksIdle();
    expect((await stripe.subscriptions.retrieve(stripeSubId, {}, { stripeAccount: account })).status).toBe("canceled");
    expect((await call("GET", "/payments/products/custom/refund-subscriber", "server")).json.items).toEqual([]);
    expect((await purchaseOf("refund-subscriber", "subscription")).status).toBe("refunded");
    expect((await refund({ type: "subscription", id: sub.id, amount_usd: "1" })).code).toBe("SUBSCRIPTION_ALREADY_REFUNDED");
  });
});
