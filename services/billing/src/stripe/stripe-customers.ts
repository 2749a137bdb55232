import { createHash } from "node:crypto";
import type Stripe from "stripe";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { PaymentMethodSchema } from "@vestibule/proto/billing/v1/purchase_service";
import { knownError } from "@vestibule/shared/errors";
import type { BillingRuntime } from "../runtime.ts";
import { requireStripe } from "./stripe-settings.ts";
import { stripeStore } from "./stripe-store.ts";

/** A billing customer's Stripe customer on the project's connected account. */
export interface StripeCustomerRef {
  readonly stripe: Stripe;
  readonly account: string;
  readonly customerId: string;
}

export interface CustomerKey {
  readonly projectId: string;
  readonly customerType: string;
  readonly customerId: string;
}

/** The project's connected account, or STRIPE_ACCOUNT_INFO_NOT_FOUND. */
export async function connectedAccount(rt: BillingRuntime, projectId: string): Promise<string> {
  const account = await stripeStore.accountOf(rt.ctx.pool, projectId);
  if (!account) throw knownError("STRIPE_ACCOUNT_INFO_NOT_FOUND");
  return account;
}

/**
 * The customer's Stripe customer, when it has one on the project's current connected account (a customer created on
 * an account the project no longer uses does not count). Undefined without Stripe, an account or a customer.
 */
export async function existingStripeCustomer(rt: BillingRuntime, key: CustomerKey): Promise<StripeCustomerRef | undefined> {
  if (!rt.stripe) return undefined;
  const account = await stripeStore.accountOf(rt.ctx.pool, key.projectId);
  if (!account) return undefined;
  const row = await stripeStore.customerOf(rt.ctx.pool, key.projectId, key.customerType, key.customerId);
  if (!row || row.stripe_account_id !== account) return undefined;
  return { stripe: rt.stripe.client, account, customerId: row.stripe_customer_id };
}

/**
 * The customer's Stripe customer, created on the connected account (and remembered) when it has none, or when the one
 * remembered is `replacing` (deleted in Stripe's dashboard: Stripe answers "No such customer" for it).
 */
export async function ensureStripeCustomer(rt: BillingRuntime, key: CustomerKey, replacing?: string): Promise<StripeCustomerRef> {
  const stripe = requireStripe(rt).client;
  const account = await connectedAccount(rt, key.projectId);
  const existing = await stripeStore.customerOf(rt.ctx.pool, key.projectId, key.customerType, key.customerId);
  if (existing && existing.stripe_account_id === account && existing.stripe_customer_id !== replacing) return { stripe, account, customerId: existing.stripe_customer_id };
  const created = await stripe.customers.create(
    { metadata: { vestibule_project_id: key.projectId, vestibule_customer: `${key.customerType}:${key.customerId}` } },
    // Concurrent first calls for one customer get one Stripe customer (Stripe replays the first answer); a
    // replacement has its own key, or Stripe would replay the deleted customer.
    { stripeAccount: account, idempotencyKey: `vestibule-customer-${createHash("sha256").update(JSON.stringify([account, key.projectId, key.customerType, key.customerId, replacing ?? null])).digest("hex")}` },
  );
  const row = { stripe_account_id: account, stripe_customer_id: created.id };
  // A customer of an account the project no longer uses is replaced by the new account's.
  const stored = await stripeStore.saveCustomer(rt.ctx.pool, key.projectId, key.customerType, key.customerId, row, { replaceOtherAccount: existing !== undefined, replacing });
  return { stripe, account, customerId: stored.stripe_customer_id };
}

/** Stripe's "no such object" (an id of another account, a deleted customer, or none at all). */
export const isStripeMissing = (err: unknown): boolean =>
  (err as { statusCode?: number; code?: string }).statusCode === 404 || (err as { code?: string }).code === "resource_missing";

/**
 * Runs `use` with the customer's Stripe customer (created when it has none). When Stripe answers that the customer
 * named in the call does not exist (deleted in Stripe's dashboard), a new Stripe customer takes its place and `use`
 * runs once more with it.
 */
export async function withStripeCustomer<T>(rt: BillingRuntime, key: CustomerKey, use: (ref: StripeCustomerRef) => Promise<T>): Promise<T> {
  const ref = await ensureStripeCustomer(rt, key);
  try {
    return await use(ref);
  } catch (err) {
    if (!isStripeMissing(err) || (err as { param?: string }).param !== "customer") throw err;
    return use(await ensureStripeCustomer(rt, key, ref.customerId));
  }
}

/** A payment method as the SDK shows it (card brand, last 4 digits, expiry; empty/0 for a method without a card). */
export function paymentMethodSummary(pm: Stripe.PaymentMethod): MessageInitShape<typeof PaymentMethodSchema> {
  return { id: pm.id, brand: pm.card?.brand ?? "", last4: pm.card?.last4 ?? "", expMonth: pm.card?.exp_month ?? 0, expYear: pm.card?.exp_year ?? 0 };
}

/**
 * The Stripe customer's default payment method (its invoice settings), undefined when it has none; `null` when the
 * Stripe customer itself is gone (deleted in Stripe's dashboard).
 */
export async function defaultPaymentMethod(ref: StripeCustomerRef): Promise<MessageInitShape<typeof PaymentMethodSchema> | undefined | null> {
  let customer: Stripe.Customer | Stripe.DeletedCustomer;
  try {
    customer = await ref.stripe.customers.retrieve(ref.customerId, { expand: ["invoice_settings.default_payment_method"] }, { stripeAccount: ref.account });
  } catch (err) {
    if (isStripeMissing(err)) return null;
    throw err;
  }
  if ((customer as Stripe.DeletedCustomer).deleted) return null;
  const pm = (customer as Stripe.Customer).invoice_settings?.default_payment_method;
  if (!pm) return undefined;
  const method = typeof pm === "string" ? await ref.stripe.paymentMethods.retrieve(pm, {}, { stripeAccount: ref.account }) : pm;
  return paymentMethodSummary(method);
}
