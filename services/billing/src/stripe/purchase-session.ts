import type Stripe from "stripe";
import { knownError } from "@vestibule/shared/errors";
import { CURRENCY_DECIMALS, type Price } from "../offers/offer-rules.ts";
import type { PurchaseCodeRow } from "../purchases/purchase-store.ts";
import type { BillingRuntime } from "../runtime.ts";
import { requireStripe } from "./stripe-settings.ts";
import { minorUnits } from "./stripe-settings.ts";
import { withStripeCustomer } from "./stripe-customers.ts";
import { stripeStore } from "./stripe-store.ts";
import type { PurchaseMetadata } from "./webhook-handler.ts";

const STRIPE_INTERVALS = new Set(["day", "week", "month", "year"]);

/**
 * Starts paying for a purchase code on the project's connected account: a PaymentIntent for a one-time price, an
 * incomplete Subscription (its first invoice's payment intent) for a recurring one. The purchase itself is recorded
 * when Stripe's webhook says the payment succeeded. Answers the client secret Stripe Elements confirms.
 */
export async function createPurchaseSession(rt: BillingRuntime, code: PurchaseCodeRow, price: Price, quantity: number): Promise<string> {
  const stripe = requireStripe(rt).client;
  const account = await stripeStore.accountOf(rt.ctx.pool, code.project_id);
  if (!account) throw knownError("STRIPE_ACCOUNT_INFO_NOT_FOUND");
  const currency = "USD" in price.amounts ? "USD" : Object.keys(price.amounts)[0]!;
  const unitAmount = minorUnits(price.amounts[currency]!, CURRENCY_DECIMALS[currency] ?? 2);
  const metadata: PurchaseMetadata = {
    vestibule_project_id: code.project_id,
    vestibule_purchase_code_id: code.id,
    vestibule_price_id: price.id,
    vestibule_quantity: String(quantity),
  };
  const opts = { stripeAccount: account };
  if (!price.interval) {
    const pi = await stripe.paymentIntents.create({ amount: unitAmount * quantity, currency: currency.toLowerCase(), metadata: { ...metadata } }, opts);
    return pi.client_secret!;
  }
  const [count, unit] = price.interval;
  if (!STRIPE_INTERVALS.has(unit)) throw knownError("SCHEMA_ERROR", { message: `Stripe cannot bill every ${count} ${unit}` });
  const product = await stripe.products.create({ name: code.offer.displayName || "Subscription" }, opts);
  const stripePrice = await stripe.prices.create(
    { product: product.id, unit_amount: unitAmount, currency: currency.toLowerCase(), recurring: { interval: unit as Stripe.PriceCreateParams.Recurring.Interval, interval_count: count } },
    opts,
  );
  // The customer's one Stripe customer: its default payment method, invoices and later switches all hang off it.
  const customerKey = { projectId: code.project_id, customerType: code.customer_type, customerId: code.customer_id };
  const sub = await withStripeCustomer(rt, customerKey, (customer) =>
    stripe.subscriptions.create(
      {
        customer: customer.customerId,
        items: [{ price: stripePrice.id, quantity }],
        payment_behavior: "default_incomplete",
        // The card of the first payment pays the renewals.
        payment_settings: { save_default_payment_method: "on_subscription" },
        metadata: { ...metadata },
        expand: ["latest_invoice.confirmation_secret"],
      },
      opts,
    ),
  );
  const invoice = sub.latest_invoice as Stripe.Invoice | null;
  const secret = invoice?.confirmation_secret?.client_secret;
  if (!secret) throw new Error(`Stripe subscription ${sub.id} has no payment to confirm`);
  return secret;
}
