import { Type } from "typebox";
import type { PaymentMethod } from "@vestibule/proto/billing/v1/purchase_service";
import { requireCustomerAccess } from "../../auth/customer-access.ts";
import { NonEmptyString, Obj, OneOf, Optional, QueryInteger } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

const ANY = ["client", "server", "admin"] as const;
/** Stripe customers exist for users and teams only. */
const BillingParams = Obj({ customer_type: OneOf(["user", "team"] as const), customer_id: Type.String() });

/** A payment method as the current SDK reads it (`null` fields for a method that is not a card). */
function paymentMethodView(m: PaymentMethod | undefined): Record<string, unknown> | null {
  if (!m) return null;
  return { id: m.id, brand: m.brand || null, last4: m.last4 || null, exp_month: m.expMonth || null, exp_year: m.expYear || null };
}

/**
 * A user's or team's billing through its Stripe customer (latest-sdk.md E: getBilling, createPaymentMethodSetupIntent,
 * setDefaultPaymentMethodFromSetupIntent, listInvoices, switchSubscription). Clients act only on their own user and
 * teams they administer (requireCustomerAccess); billing owns the rest.
 */
export const customerBillingRoute = defineRoute({
  method: "GET",
  path: "/payments/billing/:customer_type/:customer_id",
  summary: "Whether the customer has a Stripe customer, and its default payment method",
  tags: ["Payments"],
  access: ANY,
  schemas: { params: BillingParams },
  async handler({ auth, params, clients, teams }) {
    await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only manage their own billing.");
    const r = await clients.purchases.getCustomerBilling({ projectId: auth.projectId, customerType: params.customer_type, customerId: params.customer_id });
    return { json: { has_customer: r.hasCustomer, default_payment_method: paymentMethodView(r.defaultPaymentMethod) } };
  },
});

export const paymentMethodSetupIntentRoute = defineRoute({
  method: "POST",
  path: "/payments/payment-method/:customer_type/:customer_id/setup-intent",
  summary: "A Stripe setup intent for a new card of the customer (Stripe.js confirms it on the connected account)",
  tags: ["Payments"],
  access: ANY,
  schemas: { params: BillingParams, body: Optional(Obj({})) },
  async handler({ auth, params, clients, teams }) {
    await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only manage their own payment method.");
    const r = await clients.purchases.createPaymentMethodSetupIntent({ projectId: auth.projectId, customerType: params.customer_type, customerId: params.customer_id });
    return { json: { client_secret: r.clientSecret, stripe_account_id: r.stripeAccountId } };
  },
});

export const setDefaultPaymentMethodRoute = defineRoute({
  method: "POST",
  path: "/payments/payment-method/:customer_type/:customer_id/set-default",
  summary: "Make the card of a succeeded setup intent the customer's default payment method",
  tags: ["Payments"],
  access: ANY,
  schemas: { params: BillingParams, body: Obj({ setup_intent_id: NonEmptyString() }) },
  async handler({ auth, params, body, clients, teams }) {
    await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only manage their own payment method.");
    const r = await clients.purchases.setDefaultPaymentMethod({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      setupIntentId: body.setup_intent_id,
    });
    return { json: { success: true, default_payment_method: paymentMethodView(r.defaultPaymentMethod) } };
  },
});

export const listInvoicesRoute = defineRoute({
  method: "GET",
  path: "/payments/invoices/:customer_type/:customer_id",
  summary: "The customer's Stripe invoices, newest first",
  tags: ["Payments"],
  access: ANY,
  schemas: { params: BillingParams, query: Obj({ cursor: Optional(Type.String()), limit: Optional(QueryInteger({ minimum: 1, maximum: 100 })) }) },
  async handler({ auth, params, query, clients, teams }) {
    await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only manage their own billing.");
    const r = await clients.purchases.listInvoices({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      cursor: query.cursor ?? "",
      limit: query.limit ?? 10,
    });
    const items = r.invoices.map((i) => ({
      created_at_millis: Number(i.createdAtMillis),
      status: i.status || null,
      amount_total: Number(i.amountTotal),
      hosted_invoice_url: i.hostedInvoiceUrl || null,
    }));
    return { json: { items, is_paginated: true, pagination: { next_cursor: r.nextCursor || null } } };
  },
});

export const switchSubscriptionRoute = defineRoute({
  method: "POST",
  path: "/payments/products/:customer_type/:customer_id/switch",
  summary: "Move the customer's subscription to another product of the same product line",
  tags: ["Payments"],
  access: ANY,
  schemas: {
    params: BillingParams,
    body: Obj({
      from_product_id: NonEmptyString(),
      to_product_id: NonEmptyString(),
      price_id: Optional(NonEmptyString()),
      quantity: Optional(Type.Integer({ minimum: 1 })),
    }),
  },
  async handler({ auth, params, body, clients, teams }) {
    await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only manage their own subscriptions.");
    await clients.purchases.switchSubscription({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      fromProductId: body.from_product_id,
      toProductId: body.to_product_id,
      priceId: body.price_id ?? "",
      quantity: body.quantity,
      knownConfigVersion: auth.project.project.version,
    });
    return { json: { success: true } };
  },
});

export const paymentsBillingRoutes = [customerBillingRoute, paymentMethodSetupIntentRoute, setDefaultPaymentMethodRoute, listInvoicesRoute, switchSubscriptionRoute];
