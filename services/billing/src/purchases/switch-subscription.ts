import type Stripe from "stripe";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError } from "@vestibule/shared/errors";
import { subscriptionSwitched } from "../events.ts";
import type { CustomerType, Offer, Price } from "../offers/offer-rules.ts";
import type { BillingRuntime } from "../runtime.ts";
import { defaultPaymentMethod, existingStripeCustomer } from "../stripe/stripe-customers.ts";
import { minorUnits } from "../stripe/stripe-settings.ts";
import { isPurchaseActive } from "../items/ledger-rules.ts";
import { toPurchaseFacts } from "./purchase-facts.ts";
import { purchaseStore, type PurchaseRow } from "./purchase-store.ts";
import { recordPurchase } from "./record-purchase.ts";
import { changeProduct } from "./purchase-changes.ts";

export interface SwitchRequest {
  readonly projectId: string;
  readonly customerType: string;
  readonly customerId: string;
  readonly fromProductId: string;
  readonly toProductId: string;
  readonly priceId: string;
  readonly quantity?: number;
  /** The configuration version the caller has seen (see PaymentsConfigCache). */
  readonly knownConfigVersion?: bigint;
}

const STRIPE_INTERVALS = new Set(["day", "week", "month", "year"]);
const bad = (message: string) => statusError(400, message);
const fromSeconds = (s: number | null | undefined) => (typeof s === "number" ? new Date(s * 1000) : null);

/** Stripe refused to charge the default card: a 400 with Stripe's reason (e.g. "Your card was declined."). */
async function charging<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const e = err as { type?: string; message?: string };
    if (e.type === "StripeCardError") throw bad(`The default payment method was declined: ${e.message ?? "card declined"}`);
    throw err;
  }
}

/** The configured product a switch names, of the customer's type (PRODUCT_* errors otherwise). */
function productOf(offers: ReadonlyMap<string, Offer>, id: string, req: SwitchRequest): Offer {
  const offer = offers.get(id);
  if (!offer) throw knownError("PRODUCT_DOES_NOT_EXIST", { product_id: id, context: null });
  if (offer.customerType !== req.customerType) {
    throw knownError("PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH", { product_id: id, customer_id: req.customerId, product_customer_type: offer.customerType, actual_customer_type: req.customerType as CustomerType });
  }
  return offer;
}

/** The target's recurring price (the named one, else its first in USD), which Stripe must be able to bill in USD. */
function targetPrice(to: Offer, priceId: string): Price & { interval: NonNullable<Price["interval"]> } {
  const recurring = to.prices.filter((p): p is Price & { interval: NonNullable<Price["interval"]> } => p.interval !== null);
  const price = priceId ? recurring.find((p) => p.id === priceId) : (recurring.find((p) => p.amounts.USD !== undefined) ?? recurring[0]);
  if (!price) throw bad("Price not found for target product.");
  if (price.amounts.USD === undefined) throw bad("Target price must include a USD amount.");
  if (!STRIPE_INTERVALS.has(price.interval[1])) throw bad(`Stripe cannot bill every ${price.interval[0]} ${price.interval[1]}.`);
  return price;
}

/**
 * switchSubscription (latest-sdk.md E): moves the customer's subscription to another product of the same product
 * line. The Stripe subscription's item changes to the target price (charged to the customer's default payment method,
 * DEFAULT_PAYMENT_METHOD_REQUIRED without one); from an include-by-default product a new Stripe subscription starts.
 * The purchase row and its event change in one transaction that holds the customer's lock, so two switches of one
 * customer never interleave. Answers the purchase id.
 */
export async function switchSubscription(rt: BillingRuntime, req: SwitchRequest): Promise<string> {
  const { ctx } = rt;
  const payments = await rt.config.get(req.projectId, Number(req.knownConfigVersion ?? 0n));
  if (payments.blockNewPurchases) throw knownError("NEW_PURCHASES_BLOCKED");
  const from = productOf(payments.offers, req.fromProductId, req);
  const to = productOf(payments.offers, req.toProductId, req);
  await rt.customers.require(req.projectId, req.customerType as CustomerType, req.customerId);
  if (!from.groupId || from.groupId !== to.groupId) throw bad("Products must be in the same product line to switch.");
  if (req.fromProductId === req.toProductId) throw bad("Product is already active.");
  if (to.includeByDefault) throw bad("Include-by-default products cannot be selected for plan switching.");
  if (!from.includeByDefault && !from.prices.some((p) => p.interval)) throw bad("This subscription cannot be switched.");
  const price = targetPrice(to, req.priceId);
  if (req.quantity !== undefined && req.quantity !== 1 && !to.stackable) throw bad("This product is not stackable; quantity must be 1");

  const ref = await existingStripeCustomer(rt, req);
  const card = ref ? await defaultPaymentMethod(ref) : undefined;
  if (!ref || !card) throw knownError("DEFAULT_PAYMENT_METHOD_REQUIRED", { customer_type: req.customerType as "user" | "team", customer_id: req.customerId });
  const opts = { stripeAccount: ref.account };

  return withTransaction(ctx.pool, async (tx) => {
    await purchaseStore.lockCustomer(tx, req.projectId, req.customerType, req.customerId);
    const now = new Date();
    const active = (await purchaseStore.customerPurchases(tx, req.projectId, req.customerType, req.customerId)).filter((p) => isPurchaseActive(toPurchaseFacts(p), now));
    if (active.some((p) => p.kind === "one_time" && p.offer.groupId === from.groupId)) throw bad("Customer already has a one-time purchase in this product line");
    const current: PurchaseRow | undefined = active.filter((p) => p.kind === "subscription" && p.offer_id === req.fromProductId).at(-1);
    if (!current && !from.includeByDefault) throw bad("This subscription cannot be switched.");
    if (current && !current.stripe_subscription_id) throw bad("This subscription was not paid through Stripe and cannot be switched.");
    // Held until commit: Stripe's customer.subscription.updated for this switch waits, then finds it recorded. Should
    // the commit fail after Stripe changed the subscription, that webhook records the switch instead.
    if (current) await purchaseStore.lockPurchase(tx, req.projectId, current.id);
    if (!current && active.some((p) => p.offer.groupId === from.groupId)) throw bad("This subscription cannot be switched.");
    const quantity = req.quantity ?? current?.quantity ?? 1;

    const product = await ref.stripe.products.create({ name: to.displayName || "Subscription" }, opts);
    const item = {
      price_data: {
        currency: "usd",
        unit_amount: minorUnits(price.amounts.USD!, 2),
        product: product.id,
        recurring: { interval: price.interval[1] as Stripe.SubscriptionUpdateParams.Item.PriceData.Recurring.Interval, interval_count: price.interval[0] },
      },
      quantity,
    };
    const metadata = { vestibule_project_id: req.projectId, vestibule_product_id: req.toProductId, vestibule_price_id: price.id };
    const periodEnd = (sub: Stripe.Subscription) => fromSeconds(sub.items.data[0]?.current_period_end ?? (sub as { current_period_end?: number }).current_period_end);

    if (current) {
      const existing = await ref.stripe.subscriptions.retrieve(current.stripe_subscription_id!, {}, opts);
      const existingItem = existing.items.data[0];
      if (!existingItem) throw new Error(`Stripe subscription ${existing.id} has no items`);
      const updated = await charging(() =>
        ref.stripe.subscriptions.update(
          existing.id,
          { items: [{ id: existingItem.id, ...item }], default_payment_method: card.id, payment_behavior: "error_if_incomplete", proration_behavior: "create_prorations", metadata },
          opts,
        ),
      );
      await changeProduct(ctx, tx, current, { offerId: req.toProductId, offer: to, priceId: price.id, quantity, currentPeriodEnd: periodEnd(updated) });
      return current.id;
    }

    // From an include-by-default product: a new subscription, paid now with the default card.
    const created = await charging(() =>
      ref.stripe.subscriptions.create({ customer: ref.customerId, items: [item], default_payment_method: card.id, payment_behavior: "error_if_incomplete", metadata }, opts),
    );
    const purchaseId = await recordPurchase(
      ctx,
      tx,
      {
        projectId: req.projectId,
        customerType: req.customerType,
        customerId: req.customerId,
        offerId: req.toProductId,
        offer: to,
        priceId: price.id,
        quantity,
        kind: "subscription",
        source: "purchase_page",
        testMode: false,
        currentPeriodEnd: periodEnd(created),
        stripeSubscriptionId: created.id,
      },
      () => {
        throw knownError("PRODUCT_ALREADY_GRANTED", { product_id: req.toProductId, customer_id: req.customerId });
      },
    );
    await ctx.outbox.enqueue(
      tx,
      subscriptionSwitched,
      { purchaseId, customerType: req.customerType, customerId: req.customerId, fromProductId: req.fromProductId, toProductId: req.toProductId, priceId: price.id, quantity },
      { projectId: req.projectId },
    );
    return purchaseId;
  });
}
