import { randomUUID } from "node:crypto";
import { withTransaction, type PoolClient } from "@vestibule/shared/db";
import { statusError } from "@vestibule/shared/errors";
import type { ServiceContext } from "@vestibule/shared/service";
import { subscriptionSwitched, subscriptionUpdated } from "../events.ts";
import type { BillingRuntime } from "../runtime.ts";
import { requireStripe } from "../stripe/stripe-settings.ts";
import { stripeStore } from "../stripe/stripe-store.ts";
import { productChangeStore, type ProductState } from "./product-change-store.ts";
import { purchaseStore, type PurchaseRow } from "./purchase-store.ts";

/** Cancels a customer's subscription to a product at the end of its period (and Stripe's subscription, if any). */
export async function cancelSubscription(
  rt: BillingRuntime,
  req: { projectId: string; customerType: string; customerId: string; productId: string; subscriptionId: string },
): Promise<void> {
  const { ctx } = rt;
  const now = Date.now();
  const sub = (await purchaseStore.customerPurchases(ctx.pool, req.projectId, req.customerType, req.customerId)).find(
    (p) =>
      p.kind === "subscription" &&
      p.status === "active" &&
      (p.ended_at === null || p.ended_at.getTime() > now) &&
      p.offer_id === req.productId &&
      (!req.subscriptionId || p.id === req.subscriptionId),
  );
  if (!sub) throw statusError(404, "This customer has no active subscription to this product.");
  if (sub.stripe_subscription_id) {
    const account = await stripeStore.accountOf(ctx.pool, req.projectId);
    await requireStripe(rt).client.subscriptions.update(sub.stripe_subscription_id, { cancel_at_period_end: true }, { stripeAccount: account });
  }
  await withTransaction(ctx.pool, async (tx) => {
    await purchaseStore.updateSubscription(tx, sub.id, { cancelAtPeriodEnd: true, endedAt: sub.current_period_end ?? new Date() });
    await ctx.outbox.enqueue(tx, subscriptionUpdated, { purchaseId: sub.id, status: "active", cancelAtPeriodEnd: true }, { projectId: req.projectId });
  });
}

/**
 * Moves a subscription purchase to another product of its product line (a switch): the purchase row, a
 * product-change transaction keeping what it had before, and billing.subscription.switched.v1, all in the caller's
 * transaction, which holds the purchase's row lock.
 */
export async function changeProduct(ctx: ServiceContext, tx: PoolClient, current: PurchaseRow, to: ProductState & { offerId: string; priceId: string; currentPeriodEnd: Date | null }): Promise<void> {
  await purchaseStore.switchProduct(tx, current.id, to);
  await productChangeStore.insert(tx, {
    id: randomUUID(),
    projectId: current.project_id,
    purchaseId: current.id,
    from: { offerId: current.offer_id, offer: current.offer, priceId: current.price_id, quantity: current.quantity },
    to,
  });
  await ctx.outbox.enqueue(
    tx,
    subscriptionSwitched,
    { purchaseId: current.id, customerType: current.customer_type, customerId: current.customer_id, fromProductId: current.offer_id ?? "", toProductId: to.offerId, priceId: to.priceId, quantity: to.quantity },
    { projectId: current.project_id },
  );
}
