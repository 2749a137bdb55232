/**
 * Payment intents (confirmed with test cards), their charges, refunds and (through a local helper) disputes.
 */
import { bool, checkClientSecret, int, metadata, str, type Ctx } from "./context.ts";
import { attach, declineMessage, resolvePaymentMethod, retrieveCustomer } from "./customers.ts";
import { StripeApiError, invalid, listPage, newId, nowSeconds, type StripeObject } from "./store.ts";

export function newPaymentIntent(ctx: Ctx, fields: { amount: number; currency: string; customer: string | null; metadata: Record<string, string>; description?: string | null; invoice?: string | null; setupFutureUsage?: string | null }): StripeObject {
  const id = newId("pi");
  return ctx.state.store.put(
    {
      id,
      object: "payment_intent",
      created: nowSeconds(),
      livemode: false,
      amount: fields.amount,
      amount_received: 0,
      currency: fields.currency,
      customer: fields.customer,
      description: fields.description ?? null,
      client_secret: `${id}_secret_${newId("s").slice(2)}`,
      status: "requires_payment_method",
      payment_method: null,
      payment_method_types: ["card"],
      latest_charge: null,
      last_payment_error: null,
      setup_future_usage: fields.setupFutureUsage ?? null,
      metadata: fields.metadata,
      ...(fields.invoice ? { invoice: fields.invoice } : {}),
    },
    ctx.account,
  );
}

export function createPaymentIntent(ctx: Ctx): StripeObject {
  const amount = int(ctx.params, "amount", true)!;
  if (amount < 1) throw invalid("This value must be greater than or equal to 1.", "amount");
  const currency = str(ctx.params, "currency", true)!.toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${currency}.`, "currency");
  const customer = str(ctx.params, "customer") ?? null;
  if (customer) retrieveCustomer(ctx, customer, "customer");
  const pi = newPaymentIntent(ctx, {
    amount,
    currency,
    customer,
    metadata: metadata(ctx.params),
    description: str(ctx.params, "description"),
    setupFutureUsage: str(ctx.params, "setup_future_usage"),
  });
  const pm = resolvePaymentMethod(ctx);
  if (pm) {
    pi.payment_method = pm.id;
    pi.status = "requires_confirmation";
  }
  ctx.state.emit("payment_intent.created", pi, ctx.account);
  if (bool(ctx.params, "confirm")) return confirmPaymentIntent({ ...ctx, params: { ...ctx.params, payment_method: undefined, payment_method_data: undefined } }, pi.id);
  return pi;
}

export function retrievePaymentIntent(ctx: Ctx, id: string): StripeObject {
  const pi = ctx.state.store.get("payment_intent", id, ctx.account);
  checkClientSecret(ctx, pi);
  return pi;
}

export function updatePaymentIntent(ctx: Ctx, id: string): StripeObject {
  const pi = retrievePaymentIntent(ctx, id);
  if (pi.status === "succeeded" || pi.status === "canceled") throw unexpectedState(pi, "update");
  const amount = int(ctx.params, "amount");
  if (amount !== undefined) pi.amount = amount;
  if (ctx.params.metadata !== undefined) pi.metadata = metadata(ctx.params, pi.metadata);
  return pi;
}

const unexpectedState = (pi: StripeObject, action: string): StripeApiError =>
  new StripeApiError(400, "invalid_request_error", `You cannot ${action} this PaymentIntent because it has a status of ${String(pi.status)}.`, { code: "payment_intent_unexpected_state", payment_intent: pi });

export function confirmPaymentIntent(ctx: Ctx, id: string): StripeObject {
  const pi = retrievePaymentIntent(ctx, id);
  if (pi.status === "succeeded" || pi.status === "canceled") throw unexpectedState(pi, "confirm");
  const pm = resolvePaymentMethod(ctx) ?? (pi.payment_method ? ctx.state.store.get("payment_method", pi.payment_method, ctx.account) : null);
  if (!pm) {
    throw new StripeApiError(400, "invalid_request_error", "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent, either update it with a payment method and then confirm it again, or confirm it again directly with a payment method.", { code: "payment_intent_unexpected_state", payment_intent: pi });
  }
  pi.payment_method = pm.id;
  const decline = ctx.state.cardOutcome.get(pm.id) ?? null;
  const charge = ctx.state.store.put(
    {
      id: newId("ch"),
      object: "charge",
      created: nowSeconds(),
      livemode: false,
      amount: pi.amount,
      amount_captured: decline ? 0 : pi.amount,
      amount_refunded: 0,
      currency: pi.currency,
      customer: pi.customer,
      payment_intent: pi.id,
      payment_method: pm.id,
      payment_method_details: { type: "card", card: pm.card },
      invoice: pi.invoice ?? null,
      paid: !decline,
      captured: !decline,
      refunded: false,
      disputed: false,
      status: decline ? "failed" : "succeeded",
      failure_code: decline ? "card_declined" : null,
      failure_message: decline ? declineMessage(decline) : null,
      metadata: pi.metadata,
    },
    ctx.account,
  );
  pi.latest_charge = charge.id;
  if (decline) {
    pi.status = "requires_payment_method";
    pi.last_payment_error = { type: "card_error", code: "card_declined", decline_code: decline, message: declineMessage(decline), charge: charge.id, payment_method: pm };
    ctx.state.emit("charge.failed", charge, ctx.account);
    ctx.state.emit("payment_intent.payment_failed", pi, ctx.account);
    throw new StripeApiError(402, "card_error", declineMessage(decline), { code: "card_declined", decline_code: decline, payment_intent: pi });
  }
  if (pi.customer && (pi.setup_future_usage || pi.invoice)) attach(ctx, pm, pi.customer as string);
  pi.status = "succeeded";
  pi.amount_received = pi.amount;
  pi.last_payment_error = null;
  ctx.state.emit("charge.succeeded", charge, ctx.account);
  ctx.state.emit("payment_intent.succeeded", pi, ctx.account);
  if (pi.invoice) ctx.state.onInvoicePaymentSucceeded?.(ctx, pi.invoice as string, pm.id);
  return pi;
}

export function cancelPaymentIntent(ctx: Ctx, id: string): StripeObject {
  const pi = retrievePaymentIntent(ctx, id);
  if (pi.status === "succeeded" || pi.status === "canceled") throw unexpectedState(pi, "cancel");
  pi.status = "canceled";
  pi.canceled_at = nowSeconds();
  ctx.state.emit("payment_intent.canceled", pi, ctx.account);
  return pi;
}

export function listPaymentIntents(ctx: Ctx): unknown {
  const customer = str(ctx.params, "customer");
  return listPage(ctx.state.store.list("payment_intent", ctx.account, (p) => !customer || p.customer === customer), ctx.params, "/v1/payment_intents");
}

export const retrieveCharge = (ctx: Ctx, id: string): StripeObject => ctx.state.store.get("charge", id, ctx.account);

// ---- refunds ------------------------------------------------------------------------------------------------

export function createRefund(ctx: Ctx): StripeObject {
  const piId = str(ctx.params, "payment_intent");
  const chargeId = str(ctx.params, "charge");
  if (!piId && !chargeId) throw new StripeApiError(400, "invalid_request_error", "One of the following params should be provided for this request: payment_intent or charge.", { code: "parameter_missing" });
  let charge: StripeObject;
  if (piId) {
    const pi = ctx.state.store.get("payment_intent", piId, ctx.account, "payment_intent");
    if (pi.status !== "succeeded" || !pi.latest_charge) throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, "payment_intent", "charge_not_refundable");
    charge = retrieveCharge(ctx, pi.latest_charge as string);
  } else charge = ctx.state.store.get("charge", chargeId, ctx.account, "charge");
  if (charge.status !== "succeeded") throw invalid(`Charge ${charge.id} has not succeeded and cannot be refunded.`, "charge", "charge_not_refundable");
  const remaining = (charge.amount as number) - (charge.amount_refunded as number);
  if (remaining === 0) throw invalid(`Charge ${charge.id} has already been refunded.`, undefined, "charge_already_refunded");
  const amount = int(ctx.params, "amount") ?? remaining;
  if (amount < 1) throw invalid("This value must be greater than or equal to 1.", "amount");
  if (amount > remaining) {
    const fmt = (n: number) => `${(n / 100).toFixed(2)}`;
    throw invalid(`Refund amount ($${fmt(amount)}) is greater than unrefunded amount on charge ($${fmt(remaining)})`, "amount", "amount_too_large");
  }
  const refund = ctx.state.store.put(
    {
      id: newId("re"),
      object: "refund",
      created: nowSeconds(),
      amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      reason: str(ctx.params, "reason") ?? null,
      status: "succeeded",
      metadata: metadata(ctx.params),
    },
    ctx.account,
  );
  const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
  charge.amount_refunded = (charge.amount_refunded as number) + amount;
  charge.refunded = charge.amount_refunded === charge.amount;
  ctx.state.emit("refund.created", refund, ctx.account);
  ctx.state.emit("charge.refunded", charge, ctx.account, previous);
  return refund;
}

export const retrieveRefund = (ctx: Ctx, id: string): StripeObject => ctx.state.store.get("refund", id, ctx.account);

export function listRefunds(ctx: Ctx): unknown {
  const pi = str(ctx.params, "payment_intent");
  return listPage(ctx.state.store.list("refund", ctx.account, (r) => !pi || r.payment_intent === pi), ctx.params, "/v1/refunds");
}

/** Local helper (`POST /_local/charges/:id/dispute`): the card holder disputes a charge → `charge.dispute.created`. */
export function disputeCharge(ctx: Ctx, id: string): StripeObject {
  const charge = retrieveCharge(ctx, id);
  if (charge.status !== "succeeded") throw invalid(`Charge ${charge.id} has not succeeded and cannot be disputed.`, "charge");
  const dispute = ctx.state.store.put(
    {
      id: newId("dp"),
      object: "dispute",
      created: nowSeconds(),
      livemode: false,
      amount: int(ctx.params, "amount") ?? charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      reason: str(ctx.params, "reason") ?? "fraudulent",
      status: "needs_response",
      metadata: {},
    },
    ctx.account,
  );
  charge.disputed = true;
  ctx.state.emit("charge.dispute.created", dispute, ctx.account);
  return dispute;
}
