/**
 * The REST surface: `[method, path pattern, handler, publishable-key allowed]`. Path parameters are the object id
 * (and a second segment where a route has one).
 */
import type { Handler } from "./context.ts";
import * as connect from "./connect.ts";
import * as customers from "./customers.ts";
import * as payments from "./payments.ts";
import * as billing from "./billing.ts";
import * as pmc from "./payment-method-configurations.ts";

export interface Route {
  readonly method: "GET" | "POST" | "DELETE";
  readonly pattern: RegExp;
  readonly handler: Handler;
  readonly publishable?: boolean;
}

const r = (method: Route["method"], path: string, handler: Handler, publishable = false): Route => ({
  method,
  pattern: new RegExp(`^${path.replace(/:id/g, "([^/]+)")}$`),
  handler,
  publishable,
});

export const ROUTES: readonly Route[] = [
  r("POST", "/v1/accounts", connect.createAccount),
  r("GET", "/v1/accounts/:id", connect.retrieveAccount),
  r("POST", "/v1/accounts/:id", connect.updateAccount),
  r("POST", "/v1/account_links", connect.createAccountLink),
  r("POST", "/v1/account_sessions", connect.createAccountSession),

  r("POST", "/v1/customers", customers.createCustomer),
  r("GET", "/v1/customers", customers.listCustomers),
  r("GET", "/v1/customers/search", customers.searchCustomers),
  r("GET", "/v1/customers/:id", customers.getCustomer),
  r("DELETE", "/v1/customers/:id", customers.deleteCustomer),
  r("POST", "/v1/customers/:id", customers.updateCustomer),
  r("GET", "/v1/customers/:id/payment_methods", (ctx, id) => customers.listPaymentMethods(ctx, id)),

  r("POST", "/v1/payment_methods", customers.createPaymentMethod, true),
  r("GET", "/v1/payment_methods", (ctx) => customers.listPaymentMethods(ctx)),
  r("GET", "/v1/payment_methods/:id", customers.retrievePaymentMethod),
  r("POST", "/v1/payment_methods/:id/attach", customers.attachPaymentMethod),
  r("POST", "/v1/payment_methods/:id/detach", customers.detachPaymentMethod),

  r("POST", "/v1/setup_intents", customers.createSetupIntent),
  r("GET", "/v1/setup_intents/:id", customers.retrieveSetupIntent, true),
  r("POST", "/v1/setup_intents/:id/confirm", customers.confirmSetupIntent, true),

  r("POST", "/v1/payment_intents", payments.createPaymentIntent),
  r("GET", "/v1/payment_intents", payments.listPaymentIntents),
  r("GET", "/v1/payment_intents/:id", payments.retrievePaymentIntent, true),
  r("POST", "/v1/payment_intents/:id", payments.updatePaymentIntent),
  r("POST", "/v1/payment_intents/:id/confirm", payments.confirmPaymentIntent, true),
  r("POST", "/v1/payment_intents/:id/cancel", payments.cancelPaymentIntent),
  r("GET", "/v1/charges/:id", payments.retrieveCharge),
  r("POST", "/v1/refunds", payments.createRefund),
  r("GET", "/v1/refunds", payments.listRefunds),
  r("GET", "/v1/refunds/:id", payments.retrieveRefund),

  r("POST", "/v1/products", billing.createProduct),
  r("GET", "/v1/products/:id", billing.retrieveProduct),
  r("POST", "/v1/prices", billing.createPrice),
  r("GET", "/v1/prices/:id", billing.retrievePrice),
  r("POST", "/v1/subscriptions", billing.createSubscription),
  r("GET", "/v1/subscriptions", billing.listSubscriptions),
  r("GET", "/v1/subscriptions/:id", billing.retrieveSubscription),
  r("POST", "/v1/subscriptions/:id", billing.updateSubscription),
  r("DELETE", "/v1/subscriptions/:id", billing.cancelSubscription),
  r("GET", "/v1/invoices", billing.listInvoices),
  r("GET", "/v1/invoices/:id", billing.retrieveInvoice),

  r("GET", "/v1/payment_method_configurations", pmc.listPaymentMethodConfigurations),
  r("POST", "/v1/payment_method_configurations", pmc.createPaymentMethodConfiguration),
  r("GET", "/v1/payment_method_configurations/:id", pmc.retrievePaymentMethodConfiguration),
  r("POST", "/v1/payment_method_configurations/:id", pmc.updatePaymentMethodConfiguration),

  // Local helpers (not Stripe's API): what happens outside the API in real Stripe, for tests and development.
  r("POST", "/_local/accounts/:id/complete-onboarding", connect.completeOnboarding),
  r("POST", "/_local/charges/:id/dispute", payments.disputeCharge),
  r("POST", "/_local/subscriptions/:id/advance", billing.advanceSubscription),
];
