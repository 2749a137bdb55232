import { randomUUID } from "node:crypto";
import type Stripe from "stripe";
import { withTransaction, type PoolClient } from "@vestibule/shared/db";
import { knownError } from "@vestibule/shared/errors";
import { purchaseRefunded, subscriptionUpdated } from "../events.ts";
import type { BillingRuntime } from "../runtime.ts";
import { requireStripe, stripeIdOf } from "../stripe/stripe-settings.ts";
import { stripeStore } from "../stripe/stripe-store.ts";
import { purchaseStore, type PurchaseRow } from "./purchase-store.ts";
import { checkRefundAmount, formatUsd, readRefundRequest } from "./refund-rules.ts";
import { refundStore, type RefundTransactionType } from "./refund-store.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What was paid for the part of the purchase being refunded: a Stripe payment intent (or nothing, for grants). */
interface Payment {
  readonly paidCents: number;
  readonly paymentIntentId: string | null;
  /** The subscription invoice refunded from; null for one-time purchases. */
  readonly invoiceId: string | null;
  /** Lower-case ISO code of what was paid ("usd"). */
  readonly currency: string;
}

const invoiceNotFound = (id: string) => knownError("SUBSCRIPTION_INVOICE_NOT_FOUND", { subscription_invoice_id: id });
const isMissing = (e: unknown) => (e as { code?: string; statusCode?: number }).code === "resource_missing" || (e as { statusCode?: number }).statusCode === 404;


async function paymentOf(rt: BillingRuntime, p: PurchaseRow & { stripe_payment_intent_id: string | null }, invoiceId: string, account: string | undefined): Promise<Payment> {
  const opts = { stripeAccount: account };
  if (p.kind === "one_time") {
    if (!p.stripe_payment_intent_id) return { paidCents: 0, paymentIntentId: null, invoiceId: null, currency: "usd" };
    const pi = await requireStripe(rt).client.paymentIntents.retrieve(p.stripe_payment_intent_id, {}, opts);
    return { paidCents: pi.amount_received, paymentIntentId: pi.id, invoiceId: null, currency: pi.currency.toLowerCase() };
  }
  if (!p.stripe_subscription_id) {
    // A granted subscription: nothing was paid, and it has no invoices.
    if (invoiceId) throw invoiceNotFound(invoiceId);
    return { paidCents: 0, paymentIntentId: null, invoiceId: null, currency: "usd" };
  }
  const stripe = requireStripe(rt).client;
  let invoice: Stripe.Invoice & { subscription?: string | { id: string } | null; payment_intent?: string | { id: string } | null };
  if (invoiceId) {
    try {
      invoice = await stripe.invoices.retrieve(invoiceId, {}, opts);
    } catch (e) {
      if (isMissing(e)) throw invoiceNotFound(invoiceId);
      throw e;
    }
    const sub = stripeIdOf(invoice.parent?.subscription_details?.subscription) ?? stripeIdOf(invoice.subscription);
    if (sub !== p.stripe_subscription_id) throw invoiceNotFound(invoiceId);
  } else {
    // Default: the latest paid invoice of the subscription (Stripe lists newest first).
    const latest = (await stripe.invoices.list({ subscription: p.stripe_subscription_id, status: "paid", limit: 1 }, opts)).data[0];
    if (!latest) return { paidCents: 0, paymentIntentId: null, invoiceId: null, currency: "usd" };
    invoice = latest;
  }
  const paid = invoice.status === "paid" ? invoice.amount_paid : 0;
  return { paidCents: paid, paymentIntentId: stripeIdOf(invoice.payment_intent), invoiceId: invoice.id ?? invoiceId, currency: invoice.currency.toLowerCase() };
}

/**
 * Admin refund of a purchase (`POST /internal/payments/transactions/refund`): a partial or full refund of the money
 * (through Stripe, on the payment intent that paid the purchase or the chosen subscription invoice) and/or the end of
 * the purchase (`end_action`: "now" ends it and cancels its Stripe subscription; "at-period-end" cancels a
 * subscription at the end of its period). One transaction holds the purchase's row lock from the amount check to the
 * refund row and its outbox events, so concurrent refunds cannot together exceed what was paid; Stripe is called
 * inside it (with an idempotency key per refund), so a Stripe error records nothing. Answers the refund's id.
 */
export async function refundPurchase(
  rt: BillingRuntime,
  req: { projectId: string; type: string; purchaseId: string; amountUsd: string; invoiceId: string; endAction: string },
): Promise<string> {
  const { ctx } = rt;
  const r = readRefundRequest(req);
  const notFound = () =>
    r.oneTime
      ? knownError("ONE_TIME_PURCHASE_NOT_FOUND", { one_time_purchase_id: req.purchaseId })
      : knownError("SUBSCRIPTION_INVOICE_NOT_FOUND", { subscription_invoice_id: req.purchaseId });
  if (!UUID.test(req.purchaseId)) throw notFound();
  const refundId = randomUUID();
  return withTransaction(ctx.pool, async (tx) => {
    const p = await purchaseStore.lockPurchase(tx, req.projectId, req.purchaseId);
    if (!p || p.kind !== (r.oneTime ? "one_time" : "subscription")) throw notFound();
    if (p.test_mode) throw knownError("TEST_MODE_PURCHASE_NON_REFUNDABLE");
    const alreadyRefunded = () =>
      r.oneTime ? knownError("ONE_TIME_PURCHASE_ALREADY_REFUNDED", { one_time_purchase_id: p.id }) : knownError("SUBSCRIPTION_ALREADY_REFUNDED", { subscription_id: p.id });
    // Ended by a refund before (or refunded outside Vestibule, in Stripe): no second end, no money we did not record.
    if (p.status === "refunded" && (r.endAction !== null || (await refundStore.countFor(tx, p.id)) === 0)) throw alreadyRefunded();
    const now = Date.now();
    const ended = p.status !== "active" || (p.ended_at !== null && p.ended_at.getTime() <= now);
    if (r.endAction !== null && ended) throw knownError("SCHEMA_ERROR", { message: "This purchase has already ended" });
    if (r.endAction === "at-period-end" && p.cancel_at_period_end) throw knownError("SCHEMA_ERROR", { message: "This subscription is already canceled at the end of its period" });

    const account = await stripeStore.accountOf(tx, req.projectId);
    const payment = r.cents > 0 || req.invoiceId ? await paymentOf(rt, p, req.invoiceId, account) : { paidCents: 0, paymentIntentId: null, invoiceId: null, currency: "usd" };
    if (r.cents > 0 && payment.currency !== "usd") {
      throw knownError("SCHEMA_ERROR", { message: `This purchase was paid in ${payment.currency.toUpperCase()}; only USD payments can be refunded with amount_usd` });
    }
    checkRefundAmount(r.cents, payment.paidCents, await refundStore.refundedCents(tx, p.id, payment.invoiceId), alreadyRefunded);

    let stripeRefundId: string | null = null;
    if (r.cents > 0 && payment.paymentIntentId) {
      const refund = await requireStripe(rt).client.refunds.create(
        { payment_intent: payment.paymentIntentId, amount: r.cents, metadata: { vestibule_refund_id: refundId, vestibule_purchase_id: p.id } },
        { stripeAccount: account, idempotencyKey: `vestibule-refund-${refundId}` },
      );
      stripeRefundId = refund.id;
    }
    await endPurchase(rt, tx, p, r.endAction, account);
    await refundStore.insert(tx, {
      id: refundId,
      projectId: req.projectId,
      purchaseId: p.id,
      invoiceId: payment.invoiceId,
      amountUsdCents: r.cents,
      endAction: r.endAction,
      stripeRefundId,
    });
    await ctx.outbox.enqueue(
      tx,
      purchaseRefunded,
      { refundId, purchaseId: p.id, customerType: p.customer_type, customerId: p.customer_id, amountUsd: formatUsd(r.cents), invoiceId: payment.invoiceId ?? "", endAction: r.endAction ?? "" },
      { projectId: req.projectId },
    );
    return refundId;
  });
}

async function endPurchase(rt: BillingRuntime, tx: PoolClient, p: PurchaseRow, endAction: "now" | "at-period-end" | null, account: string | undefined): Promise<void> {
  if (endAction === null) return;
  const { ctx } = rt;
  if (endAction === "now") {
    if (p.stripe_subscription_id) await requireStripe(rt).client.subscriptions.cancel(p.stripe_subscription_id, {}, { stripeAccount: account });
    await purchaseStore.updateSubscription(tx, p.id, { status: "refunded", endedAt: new Date() });
    if (p.kind === "subscription") await ctx.outbox.enqueue(tx, subscriptionUpdated, { purchaseId: p.id, status: "refunded", cancelAtPeriodEnd: p.cancel_at_period_end }, { projectId: p.project_id });
    return;
  }
  if (p.stripe_subscription_id) await requireStripe(rt).client.subscriptions.update(p.stripe_subscription_id, { cancel_at_period_end: true }, { stripeAccount: account });
  await purchaseStore.updateSubscription(tx, p.id, { cancelAtPeriodEnd: true, endedAt: p.current_period_end ?? new Date() });
  await ctx.outbox.enqueue(tx, subscriptionUpdated, { purchaseId: p.id, status: "active", cancelAtPeriodEnd: true }, { projectId: p.project_id });
}

/**
 * A refund or chargeback made outside Vestibule (in Stripe's dashboard, or a dispute: `transactionType`) of the
 * one-time purchase paid by this payment intent. What goes beyond the refunds Vestibule recorded (`extraCents` of the cents recorded so far,
 * read under the purchase's row lock) becomes a refund transaction of its own, ending the purchase, so the purchase's
 * `adjusted_by` names a real transaction. Amounts are in the charge's minor units (USD cents for USD payments).
 */
export async function recordRefundMadeInStripe(
  rt: BillingRuntime,
  tx: PoolClient,
  paymentIntentId: string,
  outcome: { extraCents: (recordedCents: number) => number; stripeRefundId: string | null; transactionType: RefundTransactionType },
): Promise<void> {
  const p = await refundStore.lockPurchaseByPaymentIntent(tx, paymentIntentId);
  if (!p) return;
  const cents = outcome.extraCents(await refundStore.refundedCents(tx, p.id, null));
  if (cents <= 0) return;
  const refundId = randomUUID();
  await purchaseStore.markRefundedByPaymentIntent(tx, paymentIntentId);
  await refundStore.insert(tx, { id: refundId, projectId: p.project_id, purchaseId: p.id, invoiceId: null, amountUsdCents: cents, endAction: "now", stripeRefundId: outcome.stripeRefundId, transactionType: outcome.transactionType });
  await rt.ctx.outbox.enqueue(
    tx,
    purchaseRefunded,
    { refundId, purchaseId: p.id, customerType: p.customer_type, customerId: p.customer_id, amountUsd: formatUsd(cents), invoiceId: "", endAction: "now" },
    { projectId: p.project_id },
  );
}
