import type Stripe from "stripe";
import { withTransaction, type PoolClient } from "@vestibule/shared/db";
import { statusError } from "@vestibule/shared/errors";
import { subscriptionUpdated } from "../events.ts";
import { changeProduct } from "../purchases/purchase-changes.ts";
import { purchaseStore, type PurchaseRow } from "../purchases/purchase-store.ts";
import { recordPurchase } from "../purchases/record-purchase.ts";
import { recordRefundMadeInStripe } from "../purchases/refunds.ts";
import type { BillingRuntime } from "../runtime.ts";
import { stripeIdOf, type StripeSettings } from "./stripe-settings.ts";

/** Metadata billing puts on its payment intents and subscriptions: the purchase code, price and quantity. */
export interface PurchaseMetadata {
  readonly vestibule_project_id: string;
  readonly vestibule_purchase_code_id: string;
  readonly vestibule_price_id: string;
  readonly vestibule_quantity: string;
}

const fromSeconds = (s: number | null | undefined) => (typeof s === "number" ? new Date(s * 1000) : null);

/**
 * A Stripe webhook delivery: verified with the Stripe signature scheme (bad or missing → plain 400, nothing changes),
 * then handled in one transaction with the event id recorded, so a redelivered event changes nothing. Paid payment
 * intents and first subscription invoices create purchases; later invoices renew; subscription updates follow
 * cancel-at-period-end and ends; refunds made in Stripe's dashboard and disputes become refund transactions that end
 * the purchase.
 */
export async function handleStripeWebhook(rt: BillingRuntime, stripe: StripeSettings, payload: Uint8Array, signature: string): Promise<{ handled: boolean; eventType: string }> {
  let event: Stripe.Event;
  try {
    event = stripe.client.webhooks.constructEvent(Buffer.from(payload), signature, stripe.webhookSecret);
  } catch {
    throw statusError(400, "Invalid Stripe webhook signature");
  }
  const { ctx } = rt;
  return withTransaction(ctx.pool, async (tx) => {
    if (!(await purchaseStore.claimStripeEvent(tx, event.id, event.type))) return { handled: false, eventType: event.type };
    switch (event.type) {
      case "payment_intent.succeeded": {
        const pi = event.data.object;
        const md = pi.metadata as Partial<PurchaseMetadata>;
        if (md.vestibule_purchase_code_id) await purchaseFromCode(rt, tx, md as PurchaseMetadata, { stripePaymentIntentId: pi.id, periodEnd: null });
        break;
      }
      case "invoice.paid": {
        const invoice = event.data.object as Stripe.Invoice & { subscription?: string };
        const details = invoice.parent?.subscription_details;
        const subscriptionId = (typeof details?.subscription === "string" ? details.subscription : details?.subscription?.id) ?? invoice.subscription;
        if (!subscriptionId) break;
        const periodEnd = fromSeconds(invoice.lines?.data?.[0]?.period?.end ?? invoice.period_end);
        const existing = await purchaseStore.purchaseBySubscription(tx, subscriptionId);
        if (existing) {
          await purchaseStore.updateSubscription(tx, existing.id, { currentPeriodEnd: periodEnd });
          await ctx.outbox.enqueue(tx, subscriptionUpdated, { purchaseId: existing.id, status: "renewed", cancelAtPeriodEnd: existing.cancel_at_period_end }, { projectId: existing.project_id });
        } else {
          const md = (details?.metadata ?? {}) as Partial<PurchaseMetadata>;
          if (md.vestibule_purchase_code_id) await purchaseFromCode(rt, tx, md as PurchaseMetadata, { stripeSubscriptionId: subscriptionId, periodEnd });
        }
        break;
      }
      case "customer.subscription.updated":
      case "customer.subscription.deleted": {
        const sub = event.data.object as Stripe.Subscription & { current_period_end?: number };
        // Locked: a refund ending this subscription (it cancels it in Stripe, whose event may arrive before the
        // refund commits) is read once committed, and its "refunded" status kept.
        const existing = await purchaseStore.purchaseBySubscription(tx, sub.id, true);
        if (!existing) break;
        const ended = event.type === "customer.subscription.deleted" || sub.status === "canceled";
        if (!ended) await recordUnrecordedSwitch(rt, tx, existing, sub);
        await purchaseStore.updateSubscription(tx, existing.id, {
          cancelAtPeriodEnd: sub.cancel_at_period_end,
          endedAt: ended ? (fromSeconds(sub.ended_at) ?? new Date()) : sub.cancel_at_period_end ? fromSeconds(sub.current_period_end) : null,
          // A subscription ended by a refund stays "refunded" when Stripe reports its cancellation.
          status: existing.status === "refunded" ? "refunded" : ended ? "canceled" : "active",
        });
        await ctx.outbox.enqueue(tx, subscriptionUpdated, { purchaseId: existing.id, status: ended ? "canceled" : sub.status, cancelAtPeriodEnd: sub.cancel_at_period_end }, { projectId: existing.project_id });
        break;
      }
      case "charge.refunded": {
        // Refunds made through Vestibule are recorded (under the purchase's row lock) with their amounts; a refund
        // made elsewhere (Stripe's dashboard), beyond what was recorded, becomes a refund transaction of its own.
        const charge = event.data.object;
        const pi = stripeIdOf(charge.payment_intent);
        if (!pi) break;
        const newest = charge.refunds?.data?.[0]?.id ?? null;
        await recordRefundMadeInStripe(rt, tx, pi, { extraCents: (recorded) => (charge.amount_refunded ?? 0) - recorded, stripeRefundId: newest, transactionType: "refund" });
        break;
      }
      case "charge.dispute.created": {
        // A chargeback takes the disputed amount back: a chargeback transaction that ends the purchase.
        const dispute = event.data.object;
        const pi = stripeIdOf(dispute.payment_intent);
        if (!pi) break;
        await recordRefundMadeInStripe(rt, tx, pi, { extraCents: () => dispute.amount ?? 0, stripeRefundId: null, transactionType: "chargeback" });
        break;
      }
      default:
        break;
    }
    return { handled: true, eventType: event.type };
  });
}

/**
 * A switch Stripe made that the purchase does not show (switchSubscription changed the Stripe subscription, then its
 * own transaction failed to commit): the subscription's metadata names the product it was switched to, and the
 * purchase follows it, with its product-change transaction. The caller holds the purchase's row lock, so a switch
 * still committing is waited for and then found recorded.
 */
async function recordUnrecordedSwitch(rt: BillingRuntime, tx: PoolClient, existing: PurchaseRow, sub: Stripe.Subscription): Promise<void> {
  const md = (sub.metadata ?? {}) as Partial<Record<"vestibule_product_id" | "vestibule_price_id", string>>;
  const productId = md.vestibule_product_id;
  if (!productId || productId === existing.offer_id || existing.status !== "active") return;
  const offer = (await rt.config.get(existing.project_id)).offers.get(productId);
  if (!offer) {
    rt.ctx.log.warn({ project_id: existing.project_id, purchase_id: existing.id, product_id: productId }, "Stripe switched a subscription to a product the project no longer has; left as it was");
    return;
  }
  const item = sub.items?.data?.[0];
  await changeProduct(rt.ctx, tx, existing, {
    offerId: productId,
    offer,
    priceId: md.vestibule_price_id ?? existing.price_id ?? "",
    quantity: item?.quantity ?? existing.quantity,
    currentPeriodEnd: fromSeconds(item?.current_period_end),
  });
}

async function purchaseFromCode(
  rt: BillingRuntime,
  tx: PoolClient,
  md: PurchaseMetadata,
  link: { stripePaymentIntentId?: string; stripeSubscriptionId?: string; periodEnd: Date | null },
): Promise<void> {
  const code = await purchaseStore.codeById(tx, md.vestibule_purchase_code_id);
  if (!code) {
    rt.ctx.log.warn({ purchase_code_id: md.vestibule_purchase_code_id }, "Stripe payment for an unknown purchase code");
    return;
  }
  await recordPurchase(
    rt.ctx,
    tx,
    {
      projectId: code.project_id,
      customerType: code.customer_type,
      customerId: code.customer_id,
      offerId: code.offer_id,
      offer: code.offer,
      priceId: md.vestibule_price_id,
      quantity: Math.max(1, Number(md.vestibule_quantity) || 1),
      kind: link.stripeSubscriptionId ? "subscription" : "one_time",
      source: "purchase_page",
      testMode: false,
      currentPeriodEnd: link.periodEnd,
      stripePaymentIntentId: link.stripePaymentIntentId ?? null,
      stripeSubscriptionId: link.stripeSubscriptionId ?? null,
    },
    // Stripe took the money: the purchase is recorded even if the customer owned the offer meanwhile.
    () => rt.ctx.log.warn({ purchase_code_id: code.id }, "paid purchase of a non-stackable offer the customer already owns"),
  );
}
