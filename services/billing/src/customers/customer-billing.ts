import type Stripe from "stripe";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetCustomerBillingResponseSchema, InvoiceSchema, ListInvoicesResponseSchema, PaymentMethodSchema } from "@vestibule/proto/billing/v1/purchase_service";
import { statusError } from "@vestibule/shared/errors";
import type { CustomerType } from "../offers/offer-rules.ts";
import type { BillingRuntime } from "../runtime.ts";
import { defaultPaymentMethod, existingStripeCustomer, isStripeMissing, paymentMethodSummary, withStripeCustomer, type CustomerKey } from "../stripe/stripe-customers.ts";
import { stripeIdOf } from "../stripe/stripe-settings.ts";

/**
 * A user's or team's billing through its Stripe customer on the project's connected account (latest-sdk.md E):
 * whether it has one and its default card, setup intents for a new card, making a confirmed card the default, and
 * its invoices. Only users and teams have Stripe customers (the gateway refuses `custom`).
 */

const INVOICE_STATUSES = new Set(["draft", "open", "paid", "uncollectible", "void"]);


async function requireCustomer(rt: BillingRuntime, key: CustomerKey): Promise<void> {
  await rt.customers.require(key.projectId, key.customerType as CustomerType, key.customerId);
}

export async function getCustomerBilling(rt: BillingRuntime, key: CustomerKey): Promise<MessageInitShape<typeof GetCustomerBillingResponseSchema>> {
  await requireCustomer(rt, key);
  const ref = await existingStripeCustomer(rt, key);
  if (!ref) return { hasCustomer: false };
  const method = await defaultPaymentMethod(ref);
  // Deleted in Stripe's dashboard: no customer until the next setup intent creates one.
  if (method === null) return { hasCustomer: false };
  return { hasCustomer: true, defaultPaymentMethod: method };
}

/** A setup intent for a card of the customer (its Stripe customer is created when missing); Stripe.js confirms it. */
export async function createSetupIntent(rt: BillingRuntime, key: CustomerKey): Promise<{ clientSecret: string; stripeAccountId: string }> {
  await requireCustomer(rt, key);
  const { intent, ref } = await withStripeCustomer(rt, key, async (ref) => ({
    ref,
    intent: await ref.stripe.setupIntents.create(
      { customer: ref.customerId, usage: "off_session", metadata: { vestibule_customer: `${key.customerType}:${key.customerId}` } },
      { stripeAccount: ref.account },
    ),
  }));
  if (!intent.client_secret) throw new Error(`Stripe setup intent ${intent.id} has no client secret`);
  return { clientSecret: intent.client_secret, stripeAccountId: ref.account };
}

/**
 * Makes the card of a setup intent the customer's default payment method. The intent must be this customer's
 * (else 404: another customer's intent is not revealed) and have succeeded (else 400).
 */
export async function setDefaultFromSetupIntent(rt: BillingRuntime, key: CustomerKey, setupIntentId: string): Promise<MessageInitShape<typeof PaymentMethodSchema>> {
  await requireCustomer(rt, key);
  const notFound = () => statusError(404, `Setup intent ${JSON.stringify(setupIntentId)} not found for this customer.`);
  const ref = await existingStripeCustomer(rt, key);
  if (!ref || !/^seti_[A-Za-z0-9]+$/.test(setupIntentId)) throw notFound();
  let intent: Stripe.SetupIntent;
  try {
    intent = await ref.stripe.setupIntents.retrieve(setupIntentId, {}, { stripeAccount: ref.account });
  } catch (err) {
    if (isStripeMissing(err)) throw notFound();
    throw err;
  }
  const owner = stripeIdOf(intent.customer);
  if (owner !== ref.customerId) throw notFound();
  if (intent.status !== "succeeded") throw statusError(400, `The setup intent has not succeeded (status ${intent.status}); confirm it with Stripe.js first.`);
  const pmId = stripeIdOf(intent.payment_method);
  if (!pmId) throw statusError(400, "The setup intent has no payment method.");
  await ref.stripe.customers.update(ref.customerId, { invoice_settings: { default_payment_method: pmId } }, { stripeAccount: ref.account });
  const pm = await ref.stripe.paymentMethods.retrieve(pmId, {}, { stripeAccount: ref.account });
  return paymentMethodSummary(pm);
}

/** The customer's Stripe invoices, newest first; the cursor is the last invoice id of the previous page. */
export async function listInvoices(
  rt: BillingRuntime,
  key: CustomerKey,
  page: { cursor: string; limit: number },
): Promise<MessageInitShape<typeof ListInvoicesResponseSchema>> {
  await requireCustomer(rt, key);
  const invalidCursor = () => statusError(400, "Invalid cursor");
  if (page.cursor && !/^in_[A-Za-z0-9]+$/.test(page.cursor)) throw invalidCursor();
  const ref = await existingStripeCustomer(rt, key);
  if (!ref) {
    if (page.cursor) throw invalidCursor();
    return { invoices: [], nextCursor: "" };
  }
  let list: Stripe.ApiList<Stripe.Invoice>;
  try {
    if (page.cursor) {
      // A cursor must be one of this customer's invoices (Stripe would page from any invoice of the account).
      const pivot = await ref.stripe.invoices.retrieve(page.cursor, {}, { stripeAccount: ref.account });
      if (pivot.customer !== ref.customerId && (pivot.customer as { id?: string } | null)?.id !== ref.customerId) throw invalidCursor();
    }
    list = await ref.stripe.invoices.list(
      { customer: ref.customerId, limit: page.limit, ...(page.cursor ? { starting_after: page.cursor } : {}) },
      { stripeAccount: ref.account },
    );
  } catch (err) {
    if (isStripeMissing(err)) throw invalidCursor();
    throw err;
  }
  const invoices: MessageInitShape<typeof InvoiceSchema>[] = list.data.map((i) => ({
    id: i.id ?? "",
    createdAtMillis: BigInt(i.created * 1000),
    status: i.status && INVOICE_STATUSES.has(i.status) ? i.status : "",
    amountTotal: BigInt(i.total ?? 0),
    hostedInvoiceUrl: i.hosted_invoice_url ?? "",
  }));
  const last = list.data[list.data.length - 1];
  return { invoices, nextCursor: list.has_more && last?.id ? last.id : "" };
}
