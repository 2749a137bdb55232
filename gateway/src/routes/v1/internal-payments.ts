import { Type } from "typebox";
import { knownError } from "@vestibule/shared/errors";
import { NonEmptyString, Obj, OneOf, Optional } from "../../validation/index.ts";
import { callerGeneration } from "../../http/generation.ts";
import { entryTransactionView, seedTransactionView } from "../../views/payments.ts";
import { defineRoute } from "../route.ts";

const ADMIN = ["admin"] as const;

/** Current-SDK transaction types → the seed-era filter billing knows ("none": a type this service never records). */
const CURRENT_TYPES: Readonly<Record<string, string>> = {
  purchase: "purchase",
  "manual-item-quantity-change": "item_quantity_change",
  "subscription-cancellation": "none",
  "subscription-renewal": "none",
  refund: "refund",
  chargeback: "chargeback",
  "product-change": "product-change",
};

/** Admin payments (contract §10): test-mode purchases, the transactions list, the Stripe account. */
export const testModePurchaseRoute = defineRoute({
  method: "POST",
  path: "/internal/payments/test-mode-purchase-session",
  summary: "Complete the purchase of a purchase code without Stripe (test mode)",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: { body: Obj({ full_code: NonEmptyString(), price_id: Type.String(), quantity: Optional(Type.Integer({ minimum: 1 })) }) },
  async handler({ auth, body, clients }) {
    await clients.purchases.completeTestModePurchase({
      projectId: auth.projectId,
      fullCode: body.full_code,
      priceId: body.price_id,
      quantity: body.quantity ?? 1,
      knownConfigVersion: auth.project.project.version,
    });
    return { json: { success: true } };
  },
});

export const listTransactionsRoute = defineRoute({
  method: "GET",
  path: "/internal/payments/transactions",
  summary: "Purchases and item quantity changes, newest first (seed-era envelope)",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: {
    query: Obj({
      cursor: Optional(Type.String()),
      limit: Optional(Type.String()),
      // Seed-era values (subscription, one_time, item_quantity_change) or current ones (purchase, manual-item-quantity-change, ...).
      type: Optional(Type.String()),
      customer_type: Optional(OneOf(["user", "team", "custom"] as const)),
      customer_id: Optional(Type.String()),
    }),
  },
  async handler({ auth, query, clients, req }) {
    // The current SDK reads entry-based transactions from the same path; seed-era callers keep their shape.
    const current = callerGeneration(req) === "current";
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on ${req.method} ${req.url.split("?")[0]}:\n  - query.limit must be an integer between 1 and 200` });
    }
    const type = query.type === undefined ? "" : (CURRENT_TYPES[query.type] ?? query.type);
    if (!["", "subscription", "one_time", "item_quantity_change", "purchase", "none", ...(current ? ["refund", "chargeback", "product-change"] : [])].includes(type)) {
      throw knownError("SCHEMA_ERROR", { message: `Request validation failed on ${req.method} ${req.url.split("?")[0]}:\n  - query.type must be one of the following values: subscription, one_time, item_quantity_change` });
    }
    const r =
      type === "none"
        ? { transactions: [], nextCursor: "" }
        : await clients.purchases.listTransactions({
            projectId: auth.projectId,
            cursor: query.cursor ?? "",
            limit,
            type,
            customerType: query.customer_type ?? "",
            customerId: query.customer_id ?? "",
            // 2.8.41 knows no refund transactions: only current callers see them.
            includeRefunds: current,
          });
    return { json: { transactions: r.transactions.map(current ? entryTransactionView : seedTransactionView), next_cursor: r.nextCursor || null } };
  },
});

export const stripeAccountInfoRoute = defineRoute({
  method: "GET",
  path: "/internal/payments/stripe/account-info",
  summary: "The project's Stripe account (STRIPE_ACCOUNT_INFO_NOT_FOUND until onboarded)",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: {},
  async handler({ auth, clients }) {
    const r = await clients.stripe.getStripeAccountInfo({ projectId: auth.projectId });
    return { json: { account_id: r.accountId, charges_enabled: r.chargesEnabled, details_submitted: r.detailsSubmitted, payouts_enabled: r.payoutsEnabled } };
  },
});

export const paymentsSetupRoute = defineRoute({
  method: "POST",
  path: "/internal/payments/setup",
  summary: "Connect the project's Stripe account: answers the onboarding link",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: { body: Optional(Obj({})) },
  async handler({ auth, clients }) {
    const { url } = await clients.stripe.setUpPayments({ projectId: auth.projectId, returnUrl: "" });
    return { json: { url } };
  },
});

export const stripeWidgetsSessionRoute = defineRoute({
  method: "POST",
  path: "/internal/payments/stripe-widgets/account-session",
  summary: "A session for Stripe's embedded account widgets",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: { body: Optional(Obj({})) },
  async handler({ auth, clients }) {
    const { clientSecret } = await clients.stripe.createAccountSession({ projectId: auth.projectId });
    return { json: { client_secret: clientSecret } };
  },
});

export const refundTransactionRoute = defineRoute({
  method: "POST",
  path: "/internal/payments/transactions/refund",
  summary: "Refund a purchase, partly or fully (through Stripe when it was paid there), and/or end it",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: {
    body: Obj({
      type: OneOf(["one-time-purchase", "subscription"] as const),
      id: Type.String(),
      invoice_id: Optional(Type.String()),
      // A USD money amount; billing applies the spec's money rules and the refundable remainder.
      amount_usd: Type.String(),
      end_action: Optional(OneOf(["now", "at-period-end"] as const)),
    }),
  },
  async handler({ auth, body, clients }) {
    const r = await clients.purchases.refundPurchase({
      projectId: auth.projectId,
      type: body.type,
      purchaseId: body.id,
      amountUsd: body.amount_usd,
      invoiceId: body.invoice_id ?? "",
      endAction: body.end_action ?? "",
    });
    return { json: { success: true, refund_transaction_id: r.refundTransactionId } };
  },
});

const methodConfigsView = (r: { configId: string; methods: readonly { id: string; name: string; enabled: boolean; available: boolean; overridable: boolean }[] }) => ({
  config_id: r.configId,
  methods: r.methods.map((m) => ({ id: m.id, name: m.name, enabled: m.enabled, available: m.available, overridable: m.overridable })),
});

export const getMethodConfigsRoute = defineRoute({
  method: "GET",
  path: "/internal/payments/method-configs",
  summary: "Which payment methods checkout offers (the connected account's payment method configuration)",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: {},
  async handler({ auth, clients }) {
    return { json: methodConfigsView(await clients.stripe.getPaymentMethodConfigs({ projectId: auth.projectId })) };
  },
});

export const updateMethodConfigsRoute = defineRoute({
  method: "PATCH",
  path: "/internal/payments/method-configs",
  summary: "Turn payment methods on or off",
  tags: ["Payments (admin)"],
  access: ADMIN,
  schemas: { body: Obj({ config_id: NonEmptyString(), updates: Type.Record(Type.String(), OneOf(["on", "off"] as const)) }) },
  async handler({ auth, body, clients }) {
    const updates = Object.fromEntries(Object.entries(body.updates).map(([id, v]) => [id, v === "on"]));
    const r = await clients.stripe.updatePaymentMethodConfigs({ projectId: auth.projectId, configId: body.config_id, updates });
    return { json: { success: true, ...methodConfigsView(r) } };
  },
});

export const internalPaymentsRoutes = [
  refundTransactionRoute,
  testModePurchaseRoute,
  listTransactionsRoute,
  stripeAccountInfoRoute,
  paymentsSetupRoute,
  stripeWidgetsSessionRoute,
  getMethodConfigsRoute,
  updateMethodConfigsRoute,
];
