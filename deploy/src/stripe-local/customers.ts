/**
 * Customers, card payment methods (Stripe's test cards) and setup intents.
 */
import { base, bool, checkClientSecret, metadata, obj, str, type Ctx } from "./context.ts";
import { StripeApiError, invalid, listPage, newId, type StripeObject } from "./store.ts";

/** Stripe's test cards: number → [brand, decline code or null]. Any other Luhn-valid number pays. */
const TEST_CARDS: Record<string, [string, string | null]> = {
  "4242424242424242": ["visa", null],
  "4000056655665556": ["visa", null],
  "5555555555554444": ["mastercard", null],
  "378282246310005": ["amex", null],
  "4000000000000002": ["visa", "generic_decline"],
  "4000000000009995": ["visa", "insufficient_funds"],
  "4000000000009987": ["visa", "lost_card"],
  "4000000000000069": ["visa", "expired_card"],
};
/** Stripe's test payment-method and token ids. */
const TEST_TOKENS: Record<string, string> = {
  pm_card_visa: "4242424242424242",
  pm_card_mastercard: "5555555555554444",
  pm_card_chargeDeclined: "4000000000000002",
  pm_card_chargeDeclinedInsufficientFunds: "4000000000009995",
  tok_visa: "4242424242424242",
  tok_mastercard: "5555555555554444",
  tok_chargeDeclined: "4000000000000002",
};

function luhn(n: string): boolean {
  let sum = 0;
  for (let i = 0; i < n.length; i++) {
    let d = Number(n[n.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

const DECLINE_MESSAGES: Record<string, string> = {
  generic_decline: "Your card was declined.",
  insufficient_funds: "Your card has insufficient funds.",
  lost_card: "Your card was declined.",
  expired_card: "Your card has expired.",
};
export const declineMessage = (code: string): string => DECLINE_MESSAGES[code] ?? "Your card was declined.";

function cardPaymentMethod(ctx: Ctx, card: Record<string, unknown>, billing: Record<string, unknown> = {}): StripeObject {
  let number = typeof card.number === "string" ? card.number.replace(/\s+/g, "") : undefined;
  if (!number && typeof card.token === "string") number = TEST_TOKENS[card.token];
  if (!number || !/^\d{12,19}$/.test(number) || !luhn(number)) {
    throw new StripeApiError(402, "card_error", "Your card number is incorrect.", { code: "incorrect_number", param: "number" });
  }
  const expMonth = Number(card.exp_month ?? 12);
  const expYear = Number(card.exp_year ?? new Date().getFullYear() + 5);
  const fullYear = expYear < 100 ? 2000 + expYear : expYear;
  if (!(expMonth >= 1 && expMonth <= 12)) throw new StripeApiError(402, "card_error", "Your card's expiration month is invalid.", { code: "invalid_expiry_month", param: "exp_month" });
  const now = new Date();
  if (fullYear < now.getFullYear() || (fullYear === now.getFullYear() && expMonth < now.getMonth() + 1)) {
    throw new StripeApiError(402, "card_error", "Your card's expiration year is invalid.", { code: "invalid_expiry_year", param: "exp_year" });
  }
  const [brand, outcome] = TEST_CARDS[number] ?? [number.startsWith("5") ? "mastercard" : number.startsWith("3") ? "amex" : "visa", null];
  const pm = base("pm", "payment_method", {
    type: "card",
    card: { brand, last4: number.slice(-4), exp_month: expMonth, exp_year: fullYear, country: "US", funding: "credit", checks: { cvc_check: "pass" } },
    billing_details: { email: null, name: null, phone: null, address: null, ...billing },
    customer: null,
    metadata: {},
  });
  ctx.state.cardOutcome.set(pm.id, outcome);
  return ctx.state.store.put(pm, ctx.account);
}

/** `payment_method` (an id or a test id such as pm_card_visa) or `payment_method_data[card][...]` → a payment method. */
export function resolvePaymentMethod(ctx: Ctx, param = "payment_method"): StripeObject | null {
  const id = str(ctx.params, param);
  if (id) {
    if (TEST_TOKENS[id]) return cardPaymentMethod(ctx, { token: id });
    return ctx.state.store.get("payment_method", id, ctx.account, param);
  }
  const data = obj(ctx.params, `${param}_data`);
  if (Object.keys(data).length === 0) return null;
  if (data.type !== "card") throw invalid("Only card payment methods are supported by the local Stripe server.", `${param}_data[type]`);
  return cardPaymentMethod(ctx, (data.card ?? {}) as Record<string, unknown>, (data.billing_details ?? {}) as Record<string, unknown>);
}

export function attach(ctx: Ctx, pm: StripeObject, customerId: string): void {
  if (pm.customer === customerId) return;
  if (pm.customer) throw invalid("The payment method you provided has already been attached to a customer.", "payment_method");
  pm.customer = customerId;
  ctx.state.emit("payment_method.attached", pm, ctx.account);
}

// ---- customers ----------------------------------------------------------------------------------------------

export function createCustomer(ctx: Ctx): StripeObject {
  const customer = base("cus", "customer", {
    email: str(ctx.params, "email") ?? null,
    name: str(ctx.params, "name") ?? null,
    description: str(ctx.params, "description") ?? null,
    metadata: metadata(ctx.params),
    invoice_settings: { default_payment_method: null },
    currency: null,
    delinquent: false,
  });
  ctx.state.store.put(customer, ctx.account);
  const pm = resolvePaymentMethod(ctx);
  if (pm) attach(ctx, pm, customer.id);
  updateInvoiceSettings(ctx, customer);
  ctx.state.emit("customer.created", customer, ctx.account);
  return customer;
}

function updateInvoiceSettings(ctx: Ctx, customer: StripeObject): void {
  const settings = obj(ctx.params, "invoice_settings");
  if (settings.default_payment_method === undefined) return;
  const id = settings.default_payment_method;
  if (id === "") {
    (customer.invoice_settings as Record<string, unknown>).default_payment_method = null;
    return;
  }
  const pm = ctx.state.store.get("payment_method", id, ctx.account, "invoice_settings[default_payment_method]");
  if (pm.customer !== customer.id) throw invalid(`The customer does not have a payment method with the ID ${pm.id}. The payment method must be attached to the customer.`, "invoice_settings[default_payment_method]");
  (customer.invoice_settings as Record<string, unknown>).default_payment_method = pm.id;
}

/** A live customer of the caller's account (a deleted one is "No such customer", as for every use but GET). */
export const retrieveCustomer = (ctx: Ctx, id: string, param = "id"): StripeObject => ctx.state.store.get("customer", id, ctx.account, param);

/** `GET /v1/customers/:id`: as Stripe answers, a deleted customer is `{id, object: "customer", deleted: true}`. */
export function getCustomer(ctx: Ctx, id: string): StripeObject {
  const found = ctx.state.store.find(id);
  if (found && found.obj.object === "customer" && found.obj.deleted === true && found.account === ctx.account) return found.obj;
  return retrieveCustomer(ctx, id);
}

/** `DELETE /v1/customers/:id`: the customer becomes a deleted stub; its subscriptions are not touched here. */
export function deleteCustomer(ctx: Ctx, id: string): StripeObject {
  const customer = retrieveCustomer(ctx, id);
  const stub: StripeObject = { id: customer.id, object: "customer", deleted: true };
  ctx.state.store.put(stub, ctx.account);
  ctx.state.emit("customer.deleted", customer, ctx.account);
  return stub;
}

export function updateCustomer(ctx: Ctx, id: string): StripeObject {
  const customer = retrieveCustomer(ctx, id);
  for (const f of ["email", "name", "description"]) if (ctx.params[f] !== undefined) customer[f] = str(ctx.params, f) ?? null;
  if (ctx.params.metadata !== undefined) customer.metadata = metadata(ctx.params, customer.metadata);
  updateInvoiceSettings(ctx, customer);
  ctx.state.emit("customer.updated", customer, ctx.account);
  return customer;
}

export function listCustomers(ctx: Ctx): unknown {
  const email = str(ctx.params, "email");
  return listPage(ctx.state.store.list("customer", ctx.account, (c) => !email || c.email === email), ctx.params, "/v1/customers");
}

/** `customers.search`: clauses `metadata['k']:'v'`, `email:'x'`, `name:'x'` joined with AND. */
export function searchCustomers(ctx: Ctx): unknown {
  const query = str(ctx.params, "query", true)!;
  const clauses = query.split(/\s+AND\s+/i).map((c) => {
    const m = /^(?:metadata\[['"](.+?)['"]\]|(email|name|id)):['"](.*)['"]$/.exec(c.trim());
    if (!m) throw invalid(`Invalid search query: ${query}`, "query");
    return (o: StripeObject) => (m[1] ? (o.metadata as Record<string, string>)[m[1]] === m[3] : o[m[2]!] === m[3]);
  });
  const data = ctx.state.store.list("customer", ctx.account, (o) => clauses.every((f) => f(o)));
  return { object: "search_result", data, has_more: false, next_page: null, url: "/v1/customers/search" };
}

// ---- payment methods ----------------------------------------------------------------------------------------

export function createPaymentMethod(ctx: Ctx): StripeObject {
  if ((str(ctx.params, "type") ?? "card") !== "card") throw invalid("Only card payment methods are supported by the local Stripe server.", "type");
  return cardPaymentMethod(ctx, obj(ctx.params, "card"), obj(ctx.params, "billing_details"));
}

export const retrievePaymentMethod = (ctx: Ctx, id: string): StripeObject => ctx.state.store.get("payment_method", id, ctx.account);

export function attachPaymentMethod(ctx: Ctx, id: string): StripeObject {
  const pm = retrievePaymentMethod(ctx, id);
  const customer = ctx.state.store.get("customer", str(ctx.params, "customer", true), ctx.account, "customer");
  attach(ctx, pm, customer.id);
  return pm;
}

export function detachPaymentMethod(ctx: Ctx, id: string): StripeObject {
  const pm = retrievePaymentMethod(ctx, id);
  if (!pm.customer) throw invalid("The payment method you provided is not attached to a customer so detachment is impossible.");
  pm.customer = null;
  ctx.state.emit("payment_method.detached", pm, ctx.account);
  return pm;
}

export function listPaymentMethods(ctx: Ctx, customerId?: string): unknown {
  const customer = customerId ?? str(ctx.params, "customer");
  if (customer) retrieveCustomer(ctx, customer, "customer");
  return listPage(ctx.state.store.list("payment_method", ctx.account, (p) => !customer || p.customer === customer), ctx.params, "/v1/payment_methods");
}

// ---- setup intents ------------------------------------------------------------------------------------------

export function createSetupIntent(ctx: Ctx): StripeObject {
  const customer = str(ctx.params, "customer");
  if (customer) retrieveCustomer(ctx, customer, "customer");
  const id = newId("seti");
  const si = ctx.state.store.put(
    {
      id,
      object: "setup_intent",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      client_secret: `${id}_secret_${newId("s").slice(2)}`,
      customer: customer ?? null,
      payment_method: null,
      payment_method_types: ["card"],
      status: "requires_payment_method",
      usage: str(ctx.params, "usage") ?? "off_session",
      last_setup_error: null,
      metadata: metadata(ctx.params),
    },
    ctx.account,
  );
  ctx.state.emit("setup_intent.created", si, ctx.account);
  if (bool(ctx.params, "confirm")) return confirmSetupIntent(ctx, id);
  return si;
}

export function retrieveSetupIntent(ctx: Ctx, id: string): StripeObject {
  const si = ctx.state.store.get("setup_intent", id, ctx.account);
  checkClientSecret(ctx, si);
  return si;
}

export function confirmSetupIntent(ctx: Ctx, id: string): StripeObject {
  const si = retrieveSetupIntent(ctx, id);
  if (si.status === "succeeded") throw new StripeApiError(400, "invalid_request_error", "You cannot confirm this SetupIntent because it has already succeeded.", { code: "setup_intent_unexpected_state", setup_intent: si });
  const pm = resolvePaymentMethod(ctx) ?? (si.payment_method ? ctx.state.store.get("payment_method", si.payment_method, ctx.account) : null);
  if (!pm) throw new StripeApiError(400, "invalid_request_error", "You cannot confirm this SetupIntent because it's missing a payment method.", { code: "setup_intent_unexpected_state", setup_intent: si });
  si.payment_method = pm.id;
  const decline = ctx.state.cardOutcome.get(pm.id) ?? null;
  if (decline) {
    si.status = "requires_payment_method";
    si.last_setup_error = { type: "card_error", code: "card_declined", decline_code: decline, message: declineMessage(decline), payment_method: pm };
    ctx.state.emit("setup_intent.setup_failed", si, ctx.account);
    throw new StripeApiError(402, "card_error", declineMessage(decline), { code: "card_declined", decline_code: decline, setup_intent: si });
  }
  if (si.customer) attach(ctx, pm, si.customer as string);
  si.status = "succeeded";
  si.last_setup_error = null;
  ctx.state.emit("setup_intent.succeeded", si, ctx.account);
  return si;
}

