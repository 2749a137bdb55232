/**
 * A customer's billing through its Stripe customer (latest-sdk.md E; issue 16): getBilling, payment-method setup
 * intents and set-default, invoices, switchSubscription and the admin's payment method configs, through the gateway
 * and the real billing service on Postgres, with the official `stripe` SDK pointed at the local Stripe server (which
 * also plays Stripe.js confirming a card, and delivers signed webhooks to the gateway).
 */
import pg from "pg";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asCurrentSdkHeaders } from "@vestibule/shared/testing";
import type { LocalStripe } from "../../../../../deploy/src/stripe-local/index.ts";
import { call, expectKnownError, headersFor, type ApiResponse, type Stack } from "../../../support.ts";
import { signUp, type SignedUpUser } from "../../../teams-support.ts";
import { PAYMENTS_CONFIG, startPaymentsStack } from "../../../payments-support.ts";

const CONFIG = {
  ...PAYMENTS_CONFIG,
  // A second paid plan of the "plans" product line (with `free` and `pro`): monthly or yearly.
  "payments.products.max": {
    displayName: "Max",
    customerType: "user",
    productLineId: "plans",
    prices: { monthly: { USD: "30", interval: [1, "month"] }, yearly: { USD: "300", interval: [1, "year"] }, euro: { EUR: "30", interval: [1, "month"] } },
    includedItems: { credits: { quantity: 500, repeat: "never", expires: "when-purchase-expires" } },
  },
};

let stripe: LocalStripe;
let stack: Stack;
let admin: Record<string, string>;
let server: Record<string, string>;
let client: Record<string, string>;
let alice: SignedUpUser;
let bob: SignedUpUser;
let account: string;
/** The platform's view of Stripe (secret key), and a browser's (publishable key, as Stripe.js). */
let platform: Stripe;
let browser: Stripe;

beforeAll(async () => {
  ({ stack, stripe } = await startPaymentsStack("whsec_billing_test"));
  platform = new Stripe(stripe.secretKey, { host: stripe.host, port: stripe.port, protocol: "http" });
  browser = new Stripe(stripe.publishableKey, { host: stripe.host, port: stripe.port, protocol: "http" });
  admin = headersFor(stack.demo, "admin");
  server = headersFor(stack.demo, "server");
  client = headersFor(stack.demo, "client");
  expect((await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify(CONFIG) } })).status).toBe(200);
  alice = await signUp(stack);
  bob = await signUp(stack);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await stripe?.stop();
});

const api = (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<ApiResponse> => call(stack, method, `/api/v1${path}`, { headers, body });
const billing = (type: string, id: string, headers: Record<string, string>) => api("GET", `/payments/billing/${type}/${id}`, headers);
const setupIntent = (type: string, id: string, headers: Record<string, string>) => api("POST", `/payments/payment-method/${type}/${id}/setup-intent`, headers, {});
const setDefault = (type: string, id: string, headers: Record<string, string>, body: unknown) => api("POST", `/payments/payment-method/${type}/${id}/set-default`, headers, body);
const invoices = (type: string, id: string, headers: Record<string, string>, query = "") => api("GET", `/payments/invoices/${type}/${id}${query}`, headers);
const switchTo = (id: string, headers: Record<string, string>, body: unknown) => api("POST", `/payments/products/user/${id}/switch`, headers, body);
const credits = async (id: string) => (await api("GET", `/payments/items/user/${id}/credits`, server)).json.quantity as number;

/** Confirms a setup intent with a card, as Stripe.js does in the browser (publishable key + client secret). */
async function confirmCard(clientSecret: string, number = "4242424242424242"): Promise<Stripe.SetupIntent> {
  const id = clientSecret.split("_secret_")[0]!;
  return browser.setupIntents.confirm(
    id,
    { client_secret: clientSecret, payment_method_data: { type: "card", card: { number, exp_month: 12, exp_year: 2040, cvc: "123" } } } as Stripe.SetupIntentConfirmParams,
    { stripeAccount: account },
  );
}

/** A user's subscription purchase and its one product change, in the current SDK's admin transactions. */
async function switchHistory(userId: string): Promise<{ purchase: Record<string, any>; change: Record<string, any> }> {
  const currentAdmin = headersFor(stack.demo, "admin", "x-hexclave-");
  const list = (await api("GET", `/internal/payments/transactions?customer_id=${userId}`, currentAdmin)).json.transactions as Record<string, any>[];
  const changes = (await api("GET", `/internal/payments/transactions?type=product-change&customer_id=${userId}`, currentAdmin)).json.transactions as Record<string, any>[];
  expect(changes).toHaveLength(1);
  const purchase = list.find((t) => t.type === "purchase" && t.entries[0].subscription_id);
  expect(purchase).toBeDefined();
  return { purchase: purchase!, change: changes[0]! };
}

/** A customer with a confirmed default card: answers the default payment method the gateway reported. */
async function addDefaultCard(user: SignedUpUser, number = "4242424242424242"): Promise<Record<string, unknown>> {
  const si = await setupIntent("user", user.userId, user.headers);
  expect(si.status).toBe(200);
  const confirmed = await confirmCard(si.json.client_secret, number);
  const res = await setDefault("user", user.userId, user.headers, { setup_intent_id: confirmed.id });
  expect(res.status).toBe(200);
  return res.json.default_payment_method;
}

describe("before the project has a Stripe account", () => {
  it("billing answers no customer; setup intents and method configs are STRIPE_ACCOUNT_INFO_NOT_FOUND", async () => {
    const res = await billing("user", alice.userId, alice.headers);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ has_customer: false, default_payment_method: null });
    expectKnownError(await setupIntent("user", alice.userId, alice.headers), 404, "STRIPE_ACCOUNT_INFO_NOT_FOUND");
    expectKnownError(await api("GET", "/internal/payments/method-configs", admin), 404, "STRIPE_ACCOUNT_INFO_NOT_FOUND");
    expect((await invoices("user", alice.userId, alice.headers)).json).toEqual({ items: [], is_paginated: true, pagination: { next_cursor: null } });

    const setup = await api("POST", "/internal/payments/setup", admin, {});
    expect(setup.status).toBe(200);
    const done = await fetch(new URL(setup.json.url), { method: "POST", body: new URLSearchParams({}), redirect: "manual" });
    expect(done.status).toBe(200);
    account = (await api("GET", "/internal/payments/stripe/account-info", admin)).json.account_id;
    expect(account).toMatch(/^acct_/);
  });
});

describe("who may act on a customer's billing", () => {
  it("clients: only their own user and teams they administer; server keys: any existing customer", async () => {
    expectKnownError(await billing("user", alice.userId, client), 401, "USER_AUTHENTICATION_REQUIRED");
    const other = await billing("user", bob.userId, alice.headers);
    expect(other.status).toBe(403);
    expect(other.text).toBe("Clients can only manage their own billing.");
    const otherSetup = await setupIntent("user", bob.userId, alice.headers);
    expect([otherSetup.status, otherSetup.text]).toEqual([403, "Clients can only manage their own payment method."]);
    expect((await switchTo(bob.userId, alice.headers, { from_product_id: "free", to_product_id: "pro" })).status).toBe(403);
    expect((await invoices("user", bob.userId, alice.headers)).status).toBe(403);

    const team = await api("POST", "/teams", alice.headers, { display_name: "Alice's team", creator_user_id: "me" });
    expect(team.status).toBe(201);
    expect(await api("POST", `/team-memberships/${team.json.id}/${bob.userId}`, server, {})).toMatchObject({ status: 201 });
    expect((await billing("team", team.json.id, alice.headers)).json).toEqual({ has_customer: false, default_payment_method: null });
    const member = await billing("team", team.json.id, bob.headers);
    expectKnownError(member, 401, "TEAM_PERMISSION_REQUIRED");
    expect(member.json.details).toEqual({ team_id: team.json.id, user_id: bob.userId, permission_id: "team_admin" });
    // The team administrator may add the team's card.
    const teamSi = await setupIntent("team", team.json.id, alice.headers);
    expect(teamSi.status).toBe(200);
    expect(teamSi.json.stripe_account_id).toBe(account);

    expect((await billing("user", bob.userId, server)).status).toBe(200);
    expectKnownError(await billing("user", "6f1d4c1e-1111-4111-8111-111111111111", server), 404, "USER_NOT_FOUND");
    expectKnownError(await billing("team", "6f1d4c1e-1111-4111-8111-111111111111", admin), 404, "TEAM_NOT_FOUND");
    expectKnownError(await billing("custom", "c-1", server), 400, "SCHEMA_ERROR");
    expectKnownError(await setDefault("user", alice.userId, alice.headers, {}), 400, "SCHEMA_ERROR");
  });

  it("items and products: a current-SDK client reads its own user's and administered teams' only; seed-era callers any", async () => {
    const a = asCurrentSdkHeaders(alice.headers);
    const b = asCurrentSdkHeaders(bob.headers);
    const anon = asCurrentSdkHeaders(client);
    const item = (type: string, id: string, itemId: string, headers: Record<string, string>) => api("GET", `/payments/items/${type}/${id}/${itemId}`, headers);
    const products = (type: string, id: string, headers: Record<string, string>) => api("GET", `/payments/products/${type}/${id}`, headers);
    expect((await item("user", alice.userId, "credits", a)).json).toMatchObject({ id: "credits", quantity: expect.any(Number) });
    expect((await products("user", alice.userId, a)).status).toBe(200);
    expectKnownError(await item("user", alice.userId, "credits", anon), 401, "USER_AUTHENTICATION_REQUIRED");
    const other = await item("user", bob.userId, "credits", a);
    expect([other.status, other.text]).toEqual([403, "Clients can only access their own user or team items."]);
    const otherProducts = await products("user", bob.userId, a);
    expect([otherProducts.status, otherProducts.text]).toEqual([403, "Clients can only access their own user or team products."]);
    const custom = await item("custom", "c-any", "tokens", a);
    expect([custom.status, custom.text]).toEqual([403, "Clients can only access their own user or team items."]);
    expect((await products("custom", "c-any", a)).status).toBe(403);

    const team = await api("POST", "/teams", alice.headers, { display_name: "Alice's readers", creator_user_id: "me" });
    expect(team.status).toBe(201);
    expect(await api("POST", `/team-memberships/${team.json.id}/${bob.userId}`, server, {})).toMatchObject({ status: 201 });
    expect((await item("team", team.json.id, "seats", a)).json).toMatchObject({ id: "seats", quantity: 0 });
    expectKnownError(await item("team", team.json.id, "seats", b), 401, "TEAM_PERMISSION_REQUIRED");
    expectKnownError(await products("team", team.json.id, b), 401, "TEAM_PERMISSION_REQUIRED");
    // Server keys: any customer, custom ones included.
    expect((await item("custom", "c-any", "tokens", asCurrentSdkHeaders(server))).json).toMatchObject({ id: "tokens", quantity: 0 });
    // Seed-era callers: contract §10 (the 2.8.41 StackServerApp reads items as a client without a user).
    expect((await item("custom", "c-any", "tokens", client)).json).toMatchObject({ id: "tokens", quantity: 0 });
    expect((await item("user", bob.userId, "credits", alice.headers)).status).toBe(200);
  });
});

describe("payment methods", () => {
  it("a setup intent confirmed with a card becomes the default payment method; one Stripe customer per customer", async () => {
    const si = await setupIntent("user", alice.userId, alice.headers);
    expect(si.status).toBe(200);
    expect(si.json).toEqual({ client_secret: expect.stringMatching(/^seti_.+_secret_/), stripe_account_id: account });
    expect((await billing("user", alice.userId, alice.headers)).json).toEqual({ has_customer: true, default_payment_method: null });
    const siId = si.json.client_secret.split("_secret_")[0];

    const early = await setDefault("user", alice.userId, alice.headers, { setup_intent_id: siId });
    expect(early.status).toBe(400);
    expect(early.text).toMatch(/has not succeeded/);

    await confirmCard(si.json.client_secret);
    const res = await setDefault("user", alice.userId, alice.headers, { setup_intent_id: siId });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, default_payment_method: { id: expect.stringMatching(/^pm_/), brand: "visa", last4: "4242", exp_month: 12, exp_year: 2040 } });
    expect((await billing("user", alice.userId, alice.headers)).json).toEqual({ has_customer: true, default_payment_method: res.json.default_payment_method });
    const customer = (await platform.customers.retrieve((await platform.setupIntents.retrieve(siId, {}, { stripeAccount: account })).customer as string, {}, { stripeAccount: account })) as Stripe.Customer;
    expect(customer.invoice_settings.default_payment_method).toBe(res.json.default_payment_method.id);
    expect(customer.metadata).toMatchObject({ vestibule_customer: `user:${alice.userId}` });

    // A second card: same Stripe customer, new default.
    const second = await setupIntent("user", alice.userId, server);
    const secondId = second.json.client_secret.split("_secret_")[0];
    expect((await platform.setupIntents.retrieve(secondId, {}, { stripeAccount: account })).customer).toBe(customer.id);
    await confirmCard(second.json.client_secret, "5555555555554444");
    const mastercard = await setDefault("user", alice.userId, server, { setup_intent_id: secondId });
    expect(mastercard.json.default_payment_method).toMatchObject({ brand: "mastercard", last4: "4444" });
    expect((await billing("user", alice.userId, alice.headers)).json.default_payment_method.last4).toBe("4444");
  });

  it("concurrent first setup intents of a customer share one Stripe customer", async () => {
    const dave = await signUp(stack);
    const intents = await Promise.all(Array.from({ length: 5 }, () => setupIntent("user", dave.userId, dave.headers)));
    expect(intents.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const owners = await Promise.all(intents.map(async (r) => (await platform.setupIntents.retrieve(r.json.client_secret.split("_secret_")[0], {}, { stripeAccount: account })).customer));
    expect(new Set(owners).size).toBe(1);
    const found = await platform.customers.search({ query: `metadata['vestibule_customer']:'user:${dave.userId}'` }, { stripeAccount: account });
    expect(found.data.map((c) => c.id)).toEqual([owners[0]]);
  });

  it("refuses another customer's setup intent, unknown ids and declined cards; the default stays", async () => {
    const bobSi = await setupIntent("user", bob.userId, bob.headers);
    await confirmCard(bobSi.json.client_secret);
    const bobSiId = bobSi.json.client_secret.split("_secret_")[0];
    const stolen = await setDefault("user", alice.userId, alice.headers, { setup_intent_id: bobSiId });
    expect(stolen.status).toBe(404);
    expect(stolen.text).toBe(`Setup intent ${JSON.stringify(bobSiId)} not found for this customer.`);
    expect((await setDefault("user", alice.userId, alice.headers, { setup_intent_id: "seti_doesnotexist" })).status).toBe(404);
    expect((await setDefault("user", alice.userId, alice.headers, { setup_intent_id: "x".repeat(300) })).status).toBe(404);

    const declined = await setupIntent("user", alice.userId, alice.headers);
    await expect(confirmCard(declined.json.client_secret, "4000000000000002")).rejects.toMatchObject({ type: "StripeCardError" });
    const refused = await setDefault("user", alice.userId, alice.headers, { setup_intent_id: declined.json.client_secret.split("_secret_")[0] });
    expect(refused.status).toBe(400);
    expect((await billing("user", alice.userId, alice.headers)).json.default_payment_method.last4).toBe("4444");
  });

  it("a Stripe customer deleted in Stripe's dashboard: no customer, then a new one at the next setup intent", async () => {
    const erin = await signUp(stack);
    await addDefaultCard(erin);
    const stripeCustomerOf = async () =>
      (await platform.customers.search({ query: `metadata['vestibule_customer']:'user:${erin.userId}'` }, { stripeAccount: account })).data.map((c) => c.id);
    const [first] = await stripeCustomerOf();
    expect(await platform.customers.del(first!, {}, { stripeAccount: account })).toMatchObject({ id: first, deleted: true });

    expect((await billing("user", erin.userId, erin.headers)).json).toEqual({ has_customer: false, default_payment_method: null });
    expectKnownError(await switchTo(erin.userId, erin.headers, { from_product_id: "free", to_product_id: "pro" }), 400, "DEFAULT_PAYMENT_METHOD_REQUIRED");
    const si = await setupIntent("user", erin.userId, erin.headers);
    expect(si.status).toBe(200);
    const owner = (await platform.setupIntents.retrieve(si.json.client_secret.split("_secret_")[0], {}, { stripeAccount: account })).customer;
    expect(owner).not.toBe(first);
    expect(await stripeCustomerOf()).toEqual([owner]);
    expect((await billing("user", erin.userId, erin.headers)).json).toEqual({ has_customer: true, default_payment_method: null });
    expect((await addDefaultCard(erin)).last4).toBe("4242");
  });
});

describe("switchSubscription and invoices", () => {
  let subscriptionId: string;

  it("refuses switches the rules forbid, with the catalogue's errors", async () => {
    const carol = await signUp(stack);
    expectKnownError(await switchTo(carol.userId, carol.headers, { from_product_id: "free", to_product_id: "pro" }), 400, "DEFAULT_PAYMENT_METHOD_REQUIRED");
    const noCard = await switchTo(carol.userId, carol.headers, { from_product_id: "free", to_product_id: "pro" });
    expect(noCard.json.details).toEqual({ customer_type: "user", customer_id: carol.userId });
    // payments.blockNewPurchases refuses a switch before anything else is looked at.
    const block = (on: boolean) => call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify({ "payments.blockNewPurchases": on }) } });
    expect((await block(true)).status).toBe(200);
    try {
      expectKnownError(await switchTo(carol.userId, carol.headers, { from_product_id: "free", to_product_id: "pro" }), 403, "NEW_PURCHASES_BLOCKED");
    } finally {
      expect((await block(false)).status).toBe(200);
    }
    // The current SDK's errors (a seed-era caller gets them in the offer dialect, like every payments call).
    const current = { ...alice.headers, "x-stack-client-version": "js @stackframe/js@2.8.108" };
    const unknown = await switchTo(alice.userId, current, { from_product_id: "free", to_product_id: "nope" });
    expectKnownError(unknown, 400, "PRODUCT_DOES_NOT_EXIST");
    expect(unknown.json.details).toEqual({ product_id: "nope", context: null });
    expectKnownError(await switchTo(alice.userId, current, { from_product_id: "free", to_product_id: "team-plan" }), 400, "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH");
    expectKnownError(await switchTo(alice.userId, alice.headers, { from_product_id: "free", to_product_id: "nope" }), 400, "OFFER_DOES_NOT_EXIST");
    const texts = async (body: Record<string, unknown>) => {
      const r = await switchTo(alice.userId, alice.headers, body);
      return `${r.status} ${r.text}`;
    };
    expect(await texts({ from_product_id: "pack", to_product_id: "pro" })).toBe("400 Products must be in the same product line to switch.");
    expect(await texts({ from_product_id: "pro", to_product_id: "pro" })).toBe("400 Product is already active.");
    expect(await texts({ from_product_id: "pro", to_product_id: "free" })).toBe("400 Include-by-default products cannot be selected for plan switching.");
    expect(await texts({ from_product_id: "pro", to_product_id: "max" })).toBe("400 This subscription cannot be switched.");
    expect(await texts({ from_product_id: "free", to_product_id: "max", price_id: "euro" })).toBe("400 Target price must include a USD amount.");
    expect(await texts({ from_product_id: "free", to_product_id: "max", price_id: "weekly" })).toBe("400 Price not found for target product.");
    expect(await texts({ from_product_id: "free", to_product_id: "max", quantity: 2 })).toBe("400 This product is not stackable; quantity must be 1");
    expectKnownError(await switchTo(alice.userId, alice.headers, { from_product_id: "free", to_product_id: "max", quantity: 0 }), 400, "SCHEMA_ERROR");
    expect(await credits(alice.userId)).toBe(5);
  });

  it("from the include-by-default plan: a Stripe subscription paid with the default card; its invoice is listed", async () => {
    const res = await switchTo(alice.userId, alice.headers, { from_product_id: "free", to_product_id: "pro" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true });
    const products = await api("GET", `/payments/products/user/${alice.userId}`, alice.headers);
    expect(products.json.items).toHaveLength(1);
    expect(products.json.items[0]).toMatchObject({ id: "pro", type: "subscription" });
    subscriptionId = products.json.items[0].subscription.subscription_id;
    expect(await credits(alice.userId)).toBe(100);

    const subs = await platform.subscriptions.list({ status: "all" }, { stripeAccount: account });
    const sub = subs.data.find((s) => s.metadata.vestibule_product_id === "pro")!;
    expect(sub).toMatchObject({ status: "active" });
    expect(sub.items.data[0]!.price).toMatchObject({ unit_amount: 1000, currency: "usd", recurring: { interval: "month", interval_count: 1 } });

    const list = await invoices("user", alice.userId, alice.headers);
    expect(list.status).toBe(200);
    expect(list.json).toEqual({
      items: [{ created_at_millis: expect.any(Number), status: "paid", amount_total: 1000, hosted_invoice_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/invoices\/in_/) }],
      is_paginated: true,
      pagination: { next_cursor: null },
    });
    expect(Math.abs(list.json.items[0].created_at_millis - Date.now())).toBeLessThan(60_000);
  });

  it("pro → max (yearly): the same Stripe subscription and purchase change price; the switch is an outbox event", async () => {
    const stripeSub = (await platform.subscriptions.list({}, { stripeAccount: account })).data.find((s) => s.metadata.vestibule_product_id === "pro")!;
    const res = await switchTo(alice.userId, alice.headers, { from_product_id: "pro", to_product_id: "max", price_id: "yearly" });
    expect(res.status).toBe(200);
    const products = await api("GET", `/payments/products/user/${alice.userId}`, alice.headers);
    expect(products.json.items).toHaveLength(1);
    expect(products.json.items[0]).toMatchObject({ id: "max", type: "subscription", subscription: { subscription_id: subscriptionId } });
    expect(await credits(alice.userId)).toBe(500);
    const after = await platform.subscriptions.retrieve(stripeSub.id, {}, { stripeAccount: account });
    expect(after.metadata).toMatchObject({ vestibule_product_id: "max", vestibule_price_id: "yearly" });
    expect(after.items.data[0]!.price).toMatchObject({ unit_amount: 30000, recurring: { interval: "year", interval_count: 1 } });
    expect(after.default_payment_method).toBe((await billing("user", alice.userId, server)).json.default_payment_method.id);

    const db = new pg.Client({ connectionString: stack.db.url });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM billing.outbox WHERE subject = 'billing.subscription.switched.v1'`);
      expect(rows[0].n).toBe(2);
    } finally {
      await db.end();
    }
    // The old plan is gone: switching from it again is refused.
    expect((await switchTo(alice.userId, alice.headers, { from_product_id: "pro", to_product_id: "max" })).status).toBe(400);

    // The current SDK's transactions: the purchase shows what was bought, and a product-change moved it to max.
    const { purchase, change } = await switchHistory(alice.userId);
    expect(purchase).toMatchObject({ type: "purchase", entries: [{ type: "product_grant", product_id: "pro", price_id: "monthly", subscription_id: subscriptionId }, { type: "money_transfer" }] });
    expect(change.entries).toEqual([
      { type: "product_revocation", adjusted_transaction_id: subscriptionId, adjusted_entry_index: 0, quantity: 1 },
      expect.objectContaining({ type: "product_grant", product_id: "max", price_id: "yearly", quantity: 1, subscription_id: subscriptionId, customer_id: alice.userId }),
    ]);
    expect(purchase.adjusted_by).toEqual([{ transaction_id: change.id, entry_index: 0 }]);
  });

  it("pages through invoices with a cursor; a cursor of another customer or a bad one is a 400", async () => {
    const stripeSub = (await platform.subscriptions.list({}, { stripeAccount: account })).data.find((s) => s.metadata.vestibule_product_id === "max")!;
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${stripe.url}/_local/subscriptions/${stripeSub.id}/advance`, { method: "POST", headers: { authorization: `Bearer ${stripe.secretKey}`, "stripe-account": account } });
      expect(r.status).toBe(200);
    }
    const first = await invoices("user", alice.userId, alice.headers, "?limit=2");
    expect(first.json.items.map((i: { amount_total: number }) => i.amount_total)).toEqual([30000, 30000]);
    expect(first.json.pagination.next_cursor).toMatch(/^in_/);
    const second = await invoices("user", alice.userId, alice.headers, `?limit=2&cursor=${first.json.pagination.next_cursor}`);
    expect(second.json.items.map((i: { amount_total: number }) => i.amount_total)).toEqual([1000]);
    expect(second.json.pagination.next_cursor).toBeNull();
    expect(second.json.items[0].status).toBe("paid");

    const bad = await invoices("user", alice.userId, alice.headers, "?cursor=nope");
    expect([bad.status, bad.text]).toEqual([400, "Invalid cursor"]);
    expect((await invoices("user", bob.userId, bob.headers, `?cursor=${first.json.pagination.next_cursor}`)).status).toBe(400);
    expectKnownError(await invoices("user", alice.userId, alice.headers, "?limit=101"), 400, "SCHEMA_ERROR");
    expect((await invoices("user", bob.userId, server)).json.items).toEqual([]);
  });
});

describe("cancelSubscription", () => {
  it("clients cancel only their own subscriptions; the Stripe subscription ends at the period's end", async () => {
    const cancel = (headers: Record<string, string>) => api("DELETE", `/payments/products/user/${alice.userId}/max`, headers);
    const foreign = await cancel(bob.headers);
    expect([foreign.status, foreign.text]).toEqual([403, "Clients can only manage their own subscriptions."]);
    expectKnownError(await cancel(client), 401, "USER_AUTHENTICATION_REQUIRED");
    expect((await api("DELETE", "/payments/products/custom/c-1/max", alice.headers)).status).toBe(403);
    const stripeSub = (await platform.subscriptions.list({}, { stripeAccount: account })).data.find((s) => s.metadata.vestibule_product_id === "max")!;
    expect(stripeSub.cancel_at_period_end).toBe(false);
    expect((await cancel(alice.headers)).json).toEqual({ success: true });
    expect((await platform.subscriptions.retrieve(stripeSub.id, {}, { stripeAccount: account })).cancel_at_period_end).toBe(true);
    const products = await api("GET", `/payments/products/user/${alice.userId}`, alice.headers);
    expect(products.json.items[0].subscription).toMatchObject({ cancel_at_period_end: true });
  });
});

describe("payment method configs (admin)", () => {
  it("reads and turns methods on and off on the connected account's default configuration", async () => {
    const res = await api("GET", "/internal/payments/method-configs", admin);
    expect(res.status).toBe(200);
    expect(res.json.config_id).toMatch(/^pmc_/);
    const byId = (json: { methods: { id: string }[] }) => Object.fromEntries(json.methods.map((m) => [m.id, m]));
    expect(byId(res.json).card).toEqual({ id: "card", name: "Cards", enabled: true, available: true, overridable: true });
    expect(byId(res.json).klarna).toMatchObject({ enabled: false });

    const patched = await api("PATCH", "/internal/payments/method-configs", admin, { config_id: res.json.config_id, updates: { klarna: "on", link: "off" } });
    expect(patched.status).toBe(200);
    expect(patched.json.success).toBe(true);
    const after = byId((await api("GET", "/internal/payments/method-configs", admin)).json);
    expect([after.klarna, after.link, after.card].map((m) => (m as unknown as { enabled: boolean }).enabled)).toEqual([true, false, true]);
    const stored = await platform.paymentMethodConfigurations.retrieve(res.json.config_id, {}, { stripeAccount: account });
    expect(stored.klarna?.display_preference.preference).toBe("on");

    const unknown = await api("PATCH", "/internal/payments/method-configs", admin, { config_id: res.json.config_id, updates: { carrier_pigeon: "on" } });
    expect([unknown.status, unknown.text]).toEqual([400, "Cannot update payment methods:\n  - carrier_pigeon: not a payment method of this configuration"]);
    expect((await api("PATCH", "/internal/payments/method-configs", admin, { config_id: "pmc_other", updates: { klarna: "off" } })).status).toBe(409);
    expectKnownError(await api("PATCH", "/internal/payments/method-configs", admin, { config_id: res.json.config_id, updates: { klarna: "maybe" } }), 400, "SCHEMA_ERROR");
    expectKnownError(await api("GET", "/internal/payments/method-configs", server), 401, "INSUFFICIENT_ACCESS_TYPE");
    expect(byId((await api("GET", "/internal/payments/method-configs", admin)).json).klarna).toMatchObject({ enabled: true });
  });
});

// Last: it leaves a second Stripe subscription of "max", which the tests above find by that metadata.
describe("a switch Stripe made that Vestibule did not record", () => {
  it("the subscription's webhook moves the purchase to the product its metadata names, with a product-change", async () => {
    const frank = await signUp(stack);
    await addDefaultCard(frank);
    expect((await switchTo(frank.userId, frank.headers, { from_product_id: "free", to_product_id: "pro" })).status).toBe(200);
    const [customer] = (await platform.customers.search({ query: `metadata['vestibule_customer']:'user:${frank.userId}'` }, { stripeAccount: account })).data;
    const [sub] = (await platform.subscriptions.list({ customer: customer!.id }, { stripeAccount: account })).data;
    expect(sub!.metadata.vestibule_product_id).toBe("pro");
    // As if switchSubscription's own transaction had failed after Stripe changed the subscription.
    await platform.subscriptions.update(sub!.id, { metadata: { vestibule_product_id: "max", vestibule_price_id: "monthly" } }, { stripeAccount: account });
    await stripe.webhooksIdle();
    const products = await api("GET", `/payments/products/user/${frank.userId}`, frank.headers);
    expect(products.json.items).toMatchObject([{ id: "max", type: "subscription" }]);
    expect(await credits(frank.userId)).toBe(500);
    const { purchase, change } = await switchHistory(frank.userId);
    expect(purchase.entries[0]).toMatchObject({ product_id: "pro" });
    expect(change.entries[1]).toMatchObject({ type: "product_grant", product_id: "max", price_id: "monthly" });
    // Redelivered or repeated, the webhook changes nothing more.
    await platform.subscriptions.update(sub!.id, { metadata: { vestibule_product_id: "max", vestibule_price_id: "monthly" } }, { stripeAccount: account });
    await stripe.webhooksIdle();
    expect((await switchHistory(frank.userId)).change.id).toBe(change.id);
  });
});
