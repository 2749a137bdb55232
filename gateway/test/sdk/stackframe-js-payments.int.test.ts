/**
 * Payments through the published Stack Auth SDKs, unchanged, against Vestibule (issue 16): @stackframe/js 2.8.41
 * (`getItem`, `item.tryDecreaseQuantity`, `createCheckoutUrl` with an offer) and the latest (`listProducts`,
 * `getBilling`, `grantProduct`, `createCheckoutUrl` with a product; a signed-in user's card, invoices and plan switch),
 * on the real billing service with the official `stripe` SDK pointed at the local Stripe server.
 */
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as latest from "@stackframe/js";
import type { LocalStripe } from "../../../deploy/src/stripe-local/index.ts";
import * as v2841 from "stackframe-js-2841";
import { call, headersFor, type Stack } from "../support.ts";
import { PAYMENTS_CONFIG, startPaymentsStack } from "../payments-support.ts";

let stack: Stack;
let stripe: LocalStripe;
beforeAll(async () => {
  ({ stack, stripe } = await startPaymentsStack("whsec_sdk_payments"));
  const admin = headersFor(stack.demo, "admin");
  const res = await call(stack, "PATCH", "/api/v1/internal/config/override", { headers: admin, body: { config_override_string: JSON.stringify(PAYMENTS_CONFIG) } });
  expect(res.status).toBe(200);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await stripe?.stop();
});

function options(extra: Record<string, unknown> = {}) {
  return {
    baseUrl: stack.url,
    projectId: stack.demo.projectId,
    publishableClientKey: stack.demo.publishableClientKey,
    tokenStore: "memory",
    noAutomaticPrefetch: true,
    ...extra,
  } as never;
}

describe("@stackframe/js 2.8.41", () => {
  const serverApp = () => new v2841.StackServerApp(options({ secretServerKey: stack.demo.secretServerKey }));

  it("getItem, increaseQuantity and tryDecreaseQuantity (false when insufficient, never below zero)", async () => {
    const app = serverApp();
    const item = await app.getItem({ itemId: "tokens", customCustomerId: "sdk-2841" });
    expect(item).toMatchObject({ displayName: "Tokens", quantity: 0, nonNegativeQuantity: 0 });
    await item.increaseQuantity(3);
    expect(await item.tryDecreaseQuantity(2)).toBe(true);
    expect(await item.tryDecreaseQuantity(2)).toBe(false);
    const after = await app.getItem({ itemId: "tokens", customCustomerId: "sdk-2841" });
    expect(after.quantity).toBe(1);
    await after.decreaseQuantity(5);
    const negative = await app.getItem({ itemId: "tokens", customCustomerId: "sdk-2841" });
    expect(negative).toMatchObject({ quantity: -4, nonNegativeQuantity: 0 });
  });

  it("user.getItem and user.createCheckoutUrl with an offer id; an unknown offer is the seed-era error", async () => {
    const app = serverApp();
    const user = await app.createUser({ displayName: "SDK buyer" });
    expect((await user.getItem("credits")).quantity).toBe(5);
    const url = await user.createCheckoutUrl({ offerId: "pro" });
    expect(url).toMatch(/\/handler\/purchase\/[^/]+$/);
    await expect(user.createCheckoutUrl({ offerId: "nope" })).rejects.toMatchObject({ errorCode: "OFFER_DOES_NOT_EXIST" });
  });
});

describe("@stackframe/js latest", () => {
  const serverApp = () => new latest.StackServerApp(options({ secretServerKey: stack.demo.secretServerKey }));

  it("grantProduct, listProducts, getBilling and createCheckoutUrl with a product id", async () => {
    const app = serverApp();
    const team = await app.createTeam({ displayName: "SDK team" });
    await app.grantProduct({ teamId: team.id, productId: "team-plan" });
    const products = await app.listProducts({ teamId: team.id });
    expect(products).toHaveLength(1);
    expect(products[0]).toMatchObject({ id: "team-plan", quantity: 1, displayName: "Team plan", customerType: "team", type: "subscription" });
    expect(products[0]!.subscription).toMatchObject({ cancelAtPeriodEnd: false, isCancelable: true });
    expect(products.nextCursor).toBeNull();
    expect((await app.getItem({ teamId: team.id, itemId: "seats" })).quantity).toBe(10);

    const user = await app.createUser({ displayName: "SDK latest buyer" });
    await user.grantProduct({ productId: "pack", quantity: 2 });
    expect((await user.getItem("credits")).quantity).toBe(25);
    expect(await user.getBilling()).toEqual({ hasCustomer: false, defaultPaymentMethod: null });
    const url = await user.createCheckoutUrl({ productId: "pro" });
    expect(url).toMatch(/\/handler\/purchase\/[^/]+$/);
    await expect(user.createCheckoutUrl({ productId: "nope" })).rejects.toMatchObject({ errorCode: "PRODUCT_DOES_NOT_EXIST" });
  });
});

describe("@stackframe/js latest: a signed-in user's billing", () => {
  it("getBilling, createPaymentMethodSetupIntent, setDefaultPaymentMethodFromSetupIntent, switchSubscription and listInvoices", async () => {
    // The project's Stripe account (the dashboard's onboarding).
    const admin = headersFor(stack.demo, "admin");
    const setup = await call(stack, "POST", "/api/v1/internal/payments/setup", { headers: admin, body: {} });
    expect(setup.status).toBe(200);
    expect((await fetch(new URL(setup.json.url), { method: "POST", body: new URLSearchParams({}) })).status).toBe(200);

    const app = new latest.StackClientApp(options());
    const email = `sdk-billing-${Date.now()}@example.com`;
    expect((await app.signUpWithCredential({ email, password: "billing please 1", verificationCallbackUrl: "http://localhost:3000/handler/email-verification", noRedirect: true })).status).toBe("ok");
    const user = (await app.getUser({ or: "throw" }))!;
    expect(await user.getBilling()).toEqual({ hasCustomer: false, defaultPaymentMethod: null });

    const intent = await user.createPaymentMethodSetupIntent();
    expect(intent).toEqual({ clientSecret: expect.stringMatching(/^seti_.+_secret_/), stripeAccountId: expect.stringMatching(/^acct_/) });
    // The browser confirms the card with Stripe.js on the connected account.
    const browser = new Stripe(stripe.publishableKey, { host: stripe.host, port: stripe.port, protocol: "http" });
    const setupIntentId = intent.clientSecret.split("_secret_")[0]!;
    const confirmed = await browser.setupIntents.confirm(
      setupIntentId,
      { client_secret: intent.clientSecret, payment_method_data: { type: "card", card: { number: "4242424242424242", exp_month: 11, exp_year: 2041, cvc: "123" } } } as Stripe.SetupIntentConfirmParams,
      { stripeAccount: intent.stripeAccountId },
    );
    expect(confirmed.status).toBe("succeeded");
    const card = await user.setDefaultPaymentMethodFromSetupIntent(setupIntentId);
    expect(card).toEqual({ id: expect.stringMatching(/^pm_/), brand: "visa", last4: "4242", exp_month: 11, exp_year: 2041 });
    expect(await user.getBilling()).toEqual({ hasCustomer: true, defaultPaymentMethod: card });

    expect(await user.listInvoices()).toEqual(Object.assign([], { nextCursor: null }));
    await user.switchSubscription({ fromProductId: "free", toProductId: "pro" });
    const products = await user.listProducts();
    expect(products.map((p) => p.id)).toEqual(["pro"]);
    expect(products[0]).toMatchObject({ type: "subscription", subscription: { cancelAtPeriodEnd: false } });
    expect((await user.getItem("credits")).quantity).toBe(100);
    const invoices = await user.listInvoices();
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ status: "paid", amountTotal: 1000, hostedInvoiceUrl: expect.stringContaining("/invoices/in_") });
    expect(invoices[0]!.createdAt).toBeInstanceOf(Date);
    expect(invoices.nextCursor).toBeNull();

    // Another customer's billing is not the client's to see.
    await expect(app.listInvoices({ userId: "6f1d4c1e-1111-4111-8111-111111111111" })).rejects.toThrow(/Clients can only manage their own billing/);
  });
});
