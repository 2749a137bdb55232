/**
 * Products, prices, subscriptions and their invoices. A subscription's first invoice carries a payment intent
 * (`latest_invoice.confirmation_secret` / `.payment_intent`); paying it activates the subscription. The local helper
 * `POST /_local/subscriptions/:id/advance` ends the current period: renews (a new paid invoice) or, with
 * `cancel_at_period_end`, cancels.
 */
import { arr, base, bool, int, metadata, obj, str, snapshot, type Ctx, type LocalStripeState } from "./context.ts";
import { retrieveCustomer } from "./customers.ts";
import { confirmPaymentIntent, newPaymentIntent } from "./payments.ts";
import { StripeApiError, invalid, listPage, newId, nowSeconds, type StripeObject } from "./store.ts";

const INTERVALS = ["day", "week", "month", "year"];

export function createProduct(ctx: Ctx): StripeObject {
  const name = str(ctx.params, "name", true)!;
  const product = base("prod", "product", { name, active: true, description: str(ctx.params, "description") ?? null, metadata: metadata(ctx.params) });
  const id = str(ctx.params, "id");
  if (id) product.id = id;
  return ctx.state.store.put(product, ctx.account);
}

export const retrieveProduct = (ctx: Ctx, id: string): StripeObject => ctx.state.store.get("product", id, ctx.account);

function priceFrom(ctx: Ctx, p: Record<string, unknown>, param: string): StripeObject {
  const currency = String(p.currency ?? "").toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw new StripeApiError(400, "invalid_request_error", `Missing required param: ${param}[currency].`, { code: "parameter_missing", param: `${param}[currency]` });
  const unit = Number(p.unit_amount ?? (p.unit_amount_decimal !== undefined ? Math.round(Number(p.unit_amount_decimal)) : NaN));
  if (!Number.isInteger(unit) || unit < 0) throw invalid("Invalid integer: unit_amount", `${param}[unit_amount]`, "parameter_invalid_integer");
  let productId = typeof p.product === "string" ? p.product : undefined;
  if (productId) ctx.state.store.get("product", productId, ctx.account, `${param}[product]`);
  else {
    const data = (p.product_data ?? {}) as Record<string, unknown>;
    if (typeof data.name !== "string") throw new StripeApiError(400, "invalid_request_error", `Missing required param: ${param}[product].`, { code: "parameter_missing", param: `${param}[product]` });
    productId = createProduct({ ...ctx, params: { name: data.name, metadata: data.metadata ?? "" } }).id;
  }
  const r = p.recurring as Record<string, unknown> | undefined;
  let recurring: Record<string, unknown> | null = null;
  if (r && typeof r === "object") {
    if (!INTERVALS.includes(String(r.interval))) throw invalid(`Invalid recurring[interval]: must be one of day, month, week, or year`, `${param}[recurring][interval]`);
    recurring = { interval: r.interval, interval_count: Number(r.interval_count ?? 1), usage_type: "licensed" };
  }
  return ctx.state.store.put(
    base("price", "price", { active: true, currency, unit_amount: unit, product: productId, recurring, type: recurring ? "recurring" : "one_time", metadata: {} }),
    ctx.account,
  );
}

export const createPrice = (ctx: Ctx): StripeObject => priceFrom(ctx, ctx.params, "price_data");
export const retrievePrice = (ctx: Ctx, id: string): StripeObject => ctx.state.store.get("price", id, ctx.account);

function addInterval(fromSeconds: number, recurring: Record<string, unknown>): number {
  const d = new Date(fromSeconds * 1000);
  const n = Number(recurring.interval_count ?? 1);
  if (recurring.interval === "day") d.setUTCDate(d.getUTCDate() + n);
  else if (recurring.interval === "week") d.setUTCDate(d.getUTCDate() + 7 * n);
  else if (recurring.interval === "month") d.setUTCMonth(d.getUTCMonth() + n);
  else d.setUTCFullYear(d.getUTCFullYear() + n);
  return Math.floor(d.getTime() / 1000);
}

function subscriptionItems(ctx: Ctx, subId: string): StripeObject[] {
  const items = arr(ctx.params, "items");
  if (items.length === 0) throw new StripeApiError(400, "invalid_request_error", "Missing required param: items.", { code: "parameter_missing", param: "items" });
  return items.map((item, i) => {
    const price = typeof item.price === "string" ? ctx.state.store.get("price", item.price, ctx.account, `items[${i}][price]`) : priceFrom(ctx, (item.price_data ?? {}) as Record<string, unknown>, `items[${i}][price_data]`);
    if (!price.recurring) throw invalid("The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.", `items[${i}][price]`);
    const quantity = Number(item.quantity ?? 1);
    if (!Number.isInteger(quantity) || quantity < 1) throw invalid("Invalid integer: quantity", `items[${i}][quantity]`, "parameter_invalid_integer");
    return base("si", "subscription_item", { price, quantity, subscription: subId, metadata: {} });
  });
}

function setPeriod(sub: StripeObject, start: number): void {
  const items = (sub.items as { data: StripeObject[] }).data;
  const end = addInterval(start, (items[0]!.price as StripeObject).recurring as Record<string, unknown>);
  sub.current_period_start = start;
  sub.current_period_end = end;
  for (const item of items) Object.assign(item, { current_period_start: start, current_period_end: end });
}

function newInvoice(ctx: Ctx, sub: StripeObject, reason: string): StripeObject {
  const items = (sub.items as { data: StripeObject[] }).data;
  const lines = items.map((i) => ({ id: newId("il"), object: "line_item", amount: ((i.price as StripeObject).unit_amount as number) * (i.quantity as number), currency: (i.price as StripeObject).currency, quantity: i.quantity, price: i.price, period: { start: sub.current_period_start, end: sub.current_period_end } }));
  const total = lines.reduce((s, l) => s + l.amount, 0);
  const id = newId("in");
  const invoice = ctx.state.store.put(
    {
      id,
      object: "invoice",
      created: nowSeconds(),
      livemode: false,
      customer: sub.customer,
      subscription: sub.id,
      parent: { type: "subscription_details", subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      billing_reason: reason,
      currency: lines[0]!.currency,
      status: "open",
      total,
      subtotal: total,
      amount_due: total,
      amount_paid: 0,
      amount_remaining: total,
      period_start: sub.current_period_start,
      period_end: sub.current_period_end,
      hosted_invoice_url: new URL(`/invoices/${id}`, ctx.state.baseUrl).toString(),
      lines: { object: "list", data: lines, has_more: false, url: `/v1/invoices/${id}/lines` },
      payment_intent: null,
      metadata: {},
    },
    ctx.account,
  );
  ctx.state.emit("invoice.created", invoice, ctx.account);
  if (total > 0) {
    const pi = newPaymentIntent(ctx, { amount: total, currency: invoice.currency as string, customer: sub.customer as string, metadata: {}, invoice: id });
    invoice.payment_intent = pi.id;
    invoice._confirmation_secret = { client_secret: pi.client_secret, type: "payment_intent" };
  } else markPaid(ctx, invoice, null);
  return invoice;
}

function markPaid(ctx: Ctx, invoice: StripeObject, _pm: string | null): void {
  Object.assign(invoice, { status: "paid", amount_paid: invoice.amount_due, amount_remaining: 0, status_transitions: { paid_at: nowSeconds() } });
  ctx.state.emit("invoice.paid", invoice, ctx.account);
  ctx.state.emit("invoice.payment_succeeded", invoice, ctx.account);
}

/** Charges an invoice with a payment method now (renewals, subscriptions created with a default payment method). */
function payNow(ctx: Ctx, invoice: StripeObject, pm: string): void {
  if (!invoice.payment_intent) return;
  confirmPaymentIntent({ ...ctx, params: { payment_method: pm }, publishable: false }, invoice.payment_intent as string);
}

export function installInvoiceHook(state: LocalStripeState): void {
  state.onInvoicePaymentSucceeded = (ctx, invoiceId, pmId) => {
    const invoice = ctx.state.store.get("invoice", invoiceId, ctx.account);
    markPaid(ctx, invoice, pmId);
    const sub = ctx.state.store.get("subscription", invoice.subscription, ctx.account);
    const previous = snapshot(sub, ["status", "default_payment_method"]);
    if (sub._save_default_pm && !sub.default_payment_method) sub.default_payment_method = pmId;
    if (sub.status === "incomplete" || sub.status === "past_due") {
      sub.status = "active";
      ctx.state.emit("customer.subscription.updated", sub, ctx.account, previous);
    }
  };
}

function defaultPaymentMethod(ctx: Ctx, sub: StripeObject): string | null {
  if (sub.default_payment_method) return sub.default_payment_method as string;
  const customer = retrieveCustomer(ctx, sub.customer as string);
  return ((customer.invoice_settings as Record<string, unknown>).default_payment_method as string | null) ?? null;
}

export function createSubscription(ctx: Ctx): StripeObject {
  const customer = retrieveCustomer(ctx, str(ctx.params, "customer", true)!, "customer");
  const id = newId("sub");
  const items = subscriptionItems(ctx, id);
  const behavior = str(ctx.params, "payment_behavior") ?? "allow_incomplete";
  const trialDays = int(ctx.params, "trial_period_days");
  const pmParam = str(ctx.params, "default_payment_method");
  if (pmParam) ctx.state.store.get("payment_method", pmParam, ctx.account, "default_payment_method");
  const sub = ctx.state.store.put(
    {
      id,
      object: "subscription",
      created: nowSeconds(),
      livemode: false,
      customer: customer.id,
      status: "incomplete",
      items: { object: "list", data: items, has_more: false, url: `/v1/subscription_items?subscription=${id}` },
      cancel_at_period_end: bool(ctx.params, "cancel_at_period_end") ?? false,
      canceled_at: null,
      ended_at: null,
      default_payment_method: pmParam ?? null,
      latest_invoice: null,
      trial_end: null,
      metadata: metadata(ctx.params),
      _save_default_pm: (obj(ctx.params, "payment_settings").save_default_payment_method ?? "off") === "on_subscription",
    },
    ctx.account,
  );
  setPeriod(sub, nowSeconds());
  if (trialDays && trialDays > 0) {
    sub.status = "trialing";
    sub.trial_end = nowSeconds() + trialDays * 86400;
    sub.current_period_end = sub.trial_end;
    const invoice = newInvoice({ ...ctx }, { ...sub, items: { data: items.map((i) => ({ ...i, price: { ...(i.price as object), unit_amount: 0 } })) } } as StripeObject, "subscription_create");
    sub.latest_invoice = invoice.id;
    ctx.state.emit("customer.subscription.created", sub, ctx.account);
    return sub;
  }
  const invoice = newInvoice(ctx, sub, "subscription_create");
  sub.latest_invoice = invoice.id;
  ctx.state.emit("customer.subscription.created", sub, ctx.account);
  if (invoice.status === "paid") sub.status = "active";
  else if (behavior !== "default_incomplete") {
    const pm = defaultPaymentMethod(ctx, sub);
    if (!pm) {
      if (behavior === "error_if_incomplete") throw invalid("This customer has no attached payment source or default payment method.", undefined, "resource_missing");
    } else {
      try {
        payNow(ctx, invoice, pm);
      } catch (err) {
        if (behavior === "error_if_incomplete") throw err;
      }
    }
  }
  return sub;
}

export const retrieveSubscription = (ctx: Ctx, id: string): StripeObject => ctx.state.store.get("subscription", id, ctx.account);

export function updateSubscription(ctx: Ctx, id: string): StripeObject {
  const sub = retrieveSubscription(ctx, id);
  if (sub.status === "canceled") throw invalid("A canceled subscription can only update its cancellation_details and metadata.", undefined, "subscription_canceled");
  const previous = snapshot(sub, ["cancel_at_period_end", "items", "metadata", "default_payment_method"]);
  const cancel = bool(ctx.params, "cancel_at_period_end");
  if (cancel !== undefined) sub.cancel_at_period_end = cancel;
  if (ctx.params.metadata !== undefined) sub.metadata = metadata(ctx.params, sub.metadata);
  const pm = str(ctx.params, "default_payment_method");
  if (pm) sub.default_payment_method = ctx.state.store.get("payment_method", pm, ctx.account, "default_payment_method").id;
  if (ctx.params.items !== undefined) {
    const current = (sub.items as { data: StripeObject[] }).data;
    const next = subscriptionItems(ctx, sub.id);
    // Items naming an existing id replace it; with no ids the new list replaces the old (a plan switch).
    (sub.items as { data: StripeObject[] }).data = next.map((n, i) => {
      const itemId = arr(ctx.params, "items")[i]?.id;
      const old = typeof itemId === "string" ? current.find((c) => c.id === itemId) : undefined;
      return old ? { ...n, id: old.id } : n;
    });
    setPeriod(sub, sub.current_period_start as number);
  }
  ctx.state.emit("customer.subscription.updated", sub, ctx.account, previous);
  return sub;
}

export function cancelSubscription(ctx: Ctx, id: string): StripeObject {
  const sub = retrieveSubscription(ctx, id);
  if (sub.status === "canceled") throw invalid(`No such subscription: '${id}'`, "id", "resource_missing");
  const previous = snapshot(sub, ["status", "canceled_at", "ended_at"]);
  Object.assign(sub, { status: "canceled", canceled_at: nowSeconds(), ended_at: nowSeconds() });
  ctx.state.emit("customer.subscription.deleted", sub, ctx.account, previous);
  return sub;
}

export function listSubscriptions(ctx: Ctx): unknown {
  const customer = str(ctx.params, "customer");
  const status = str(ctx.params, "status");
  return listPage(
    ctx.state.store.list("subscription", ctx.account, (s) => (!customer || s.customer === customer) && (status === "all" || (status ? s.status === status : s.status !== "canceled"))),
    ctx.params,
    "/v1/subscriptions",
  );
}

/** Local helper: the period ends now. Renews (charging the default payment method) or ends a cancelling one. */
export function advanceSubscription(ctx: Ctx, id: string): StripeObject {
  const sub = retrieveSubscription(ctx, id);
  if (sub.status === "canceled") throw invalid("This subscription is canceled.", "id");
  if (sub.cancel_at_period_end) return cancelSubscription(ctx, id);
  const previous = snapshot(sub, ["current_period_start", "current_period_end", "latest_invoice", "status"]);
  setPeriod(sub, sub.current_period_end as number);
  if (sub.status === "trialing") sub.status = "active";
  const invoice = newInvoice(ctx, sub, "subscription_cycle");
  sub.latest_invoice = invoice.id;
  const pm = defaultPaymentMethod(ctx, sub);
  if (invoice.status !== "paid") {
    try {
      if (!pm) throw new Error("no payment method");
      payNow(ctx, invoice, pm);
    } catch {
      sub.status = "past_due";
      ctx.state.emit("invoice.payment_failed", invoice, ctx.account);
    }
  }
  ctx.state.emit("customer.subscription.updated", sub, ctx.account, previous);
  return sub;
}

export const retrieveInvoice = (ctx: Ctx, id: string): StripeObject => ctx.state.store.get("invoice", id, ctx.account);

export function listInvoices(ctx: Ctx): unknown {
  const customer = str(ctx.params, "customer");
  const subscription = str(ctx.params, "subscription");
  const status = str(ctx.params, "status");
  return listPage(
    ctx.state.store.list("invoice", ctx.account, (i) => (!customer || i.customer === customer) && (!subscription || i.subscription === subscription) && (!status || i.status === status)),
    ctx.params,
    "/v1/invoices",
  );
}
