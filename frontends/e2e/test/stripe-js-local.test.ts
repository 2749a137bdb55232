/**
 * The local Stripe server's Stripe.js stand-in (served at <local stripe>/v3, what the purchase page loads in
 * development and tests) in Chromium: it mounts a card form, refuses an incomplete card like Stripe.js, and confirms a
 * payment intent against the local server with the publishable key and the client secret: a declined test card gives
 * the decline message, 4242… pays.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Stripe from "stripe";
import { startLocalStripe, type LocalStripe } from "../../../deploy/src/stripe-local/index.ts";
import { launchBrowser, type Browser } from "../src/browser.ts";

let local: LocalStripe;
let stripe: Stripe;
let browser: Browser;

beforeAll(async () => {
  local = await startLocalStripe({ webhookSecret: "whsec_stripe_js_test" });
  stripe = new Stripe(local.secretKey, { host: "127.0.0.1", port: local.port, protocol: "http" });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

describe("local Stripe.js stand-in", () => {
  it("mounts a card form and confirms a connected account's payment intent: incomplete, declined, then paid", async () => {
    const account = await stripe.accounts.create({ type: "express" });
    const pi = await stripe.paymentIntents.create({ amount: 1234, currency: "usd" }, { stripeAccount: account.id });
    const page = await browser.newPage();
    await page.goto(`${local.url}/v3`);
    await page.setContent(`<!doctype html><html><body><div id="slot"></div><script src="${local.stripeJsUrl}"></script></body></html>`);
    await page.waitForFunction("typeof window.Stripe === 'function'");
    await page.evaluate(`(() => {
      const s = window.Stripe(${JSON.stringify(local.publishableKey)}, { stripeAccount: ${JSON.stringify(account.id)} });
      const elements = s.elements({ clientSecret: ${JSON.stringify(pi.client_secret)} });
      elements.create("payment").mount("#slot");
      window.__confirm = () => s.confirmPayment({ elements, redirect: "if_required", confirmParams: { return_url: location.href } });
    })()`);
    const confirm = () => page.evaluate("window.__confirm()") as Promise<{ error?: { type: string; code?: string; message: string }; paymentIntent?: { status: string } }>;

    await page.getByLabel("Card number").fill("4242 4242");
    expect(await confirm()).toMatchObject({ error: { type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete." } });

    await page.getByLabel("Card number").fill("4000 0000 0000 0002");
    await page.getByLabel("Expiry (MM / YY)").fill("12 / 40");
    await page.getByLabel("CVC").fill("123");
    expect(await confirm()).toMatchObject({ error: { type: "card_error", code: "card_declined", message: "Your card was declined." } });

    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    expect(await confirm()).toMatchObject({ paymentIntent: { status: "succeeded" } });
    const paid = await stripe.paymentIntents.retrieve(pi.id, {}, { stripeAccount: account.id });
    expect(paid).toMatchObject({ status: "succeeded", amount_received: 1234 });
    const charge = await stripe.charges.retrieve(paid.latest_charge as string, {}, { stripeAccount: account.id });
    expect(charge.payment_method_details?.card?.last4).toBe("4242");
    expect(browser.errors.filter((e) => !e.includes("402"))).toEqual([]);
    await page.close();
  });
});
