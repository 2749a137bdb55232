import type { OwnedProduct, Transaction } from "@vestibule/proto/billing/v1/purchase_service";

/** Wire views of billing's answers (snake_case, contract §10 and latest-sdk.md E). */

function parseJson(text: string): unknown {
  return text ? (JSON.parse(text) as unknown) : null;
}

/** A customer's product (current SDK `listProducts` item). */
export function ownedProductView(p: OwnedProduct): Record<string, unknown> {
  const subscription =
    p.type === "subscription"
      ? {
          subscription_id: p.subscriptionId || null,
          current_period_end: p.currentPeriodEndMillis === undefined ? null : new Date(Number(p.currentPeriodEndMillis)).toISOString(),
          cancel_at_period_end: p.cancelAtPeriodEnd,
          is_cancelable: true,
        }
      : null;
  return { id: p.productId || null, quantity: p.quantity, product: parseJson(p.productJson), type: p.type, subscription, switch_options: [] };
}

/** A seed-era admin transaction (`GET /internal/payments/transactions`). */
export function seedTransactionView(t: Transaction): Record<string, unknown> {
  const isChange = t.type === "item_quantity_change";
  return {
    id: t.id,
    type: t.type,
    created_at_millis: Number(t.createdAtMillis),
    customer_type: t.customerType,
    customer_id: t.customerId,
    quantity: Number(t.quantity),
    test_mode: t.testMode,
    offer_display_name: isChange ? null : t.offerDisplayName || null,
    price: parseJson(t.priceJson),
    status: isChange ? null : t.status || null,
    ...(isChange
      ? {
          item_id: t.itemId,
          ...(t.description ? { description: t.description } : {}),
          ...(t.expiresAtMillis !== undefined ? { expires_at_millis: Number(t.expiresAtMillis) } : {}),
        }
      : {}),
  };
}

/** The product_grant entry of a purchase or product change: its product, price and quantity, on `ref`. */
function productGrantEntry(t: Transaction, ref: { subscription_id: string } | { one_time_purchase_id: string }): Record<string, unknown> {
  return {
    type: "product_grant",
    adjusted_transaction_id: null,
    adjusted_entry_index: null,
    customer_type: t.customerType,
    customer_id: t.customerId,
    product_id: t.offerId || null,
    product: parseJson(t.offerJson),
    price_id: t.priceId || null,
    quantity: Number(t.quantity),
    ...ref,
  };
}

/** A current-SDK admin transaction (entry-based shape, latest-sdk.md E) of a seed-era transaction row. */
export function entryTransactionView(t: Transaction): Record<string, unknown> {
  const customer = { customer_type: t.customerType, customer_id: t.customerId };
  const at = Number(t.createdAtMillis);
  if (t.type === "item_quantity_change") {
    return {
      id: t.id,
      created_at_millis: at,
      effective_at_millis: at,
      type: "manual-item-quantity-change",
      ...customer,
      entries: [{ type: "item_quantity_change", adjusted_transaction_id: null, adjusted_entry_index: null, ...customer, item_id: t.itemId, quantity: Number(t.quantity) }],
      adjusted_by: [],
      test_mode: false,
    };
  }
  if (t.type === "refund" || t.type === "chargeback") return refundTransactionView(t);
  if (t.type === "product-change") return productChangeTransactionView(t);
  const price = parseJson(t.priceJson) as Record<string, unknown> | null;
  const charged = price ? Object.fromEntries(Object.entries(price).filter(([k]) => /^[A-Z]{3}$/.test(k))) : {};
  const entries: Record<string, unknown>[] = [productGrantEntry(t, t.type === "subscription" ? { subscription_id: t.id } : { one_time_purchase_id: t.id })];
  if (!t.testMode && Object.keys(charged).length > 0) {
    entries.push({ type: "money_transfer", adjusted_transaction_id: null, adjusted_entry_index: null, ...customer, charged_amount: charged, net_amount: charged });
  }
  return {
    id: t.id,
    created_at_millis: at,
    effective_at_millis: at,
    type: "purchase",
    ...customer,
    entries,
    // Its refund and chargeback transactions (Vestibule's, and those made in Stripe's dashboard or by a dispute,
    // recorded from Stripe's webhooks), then its product changes: each revokes the grant (entry 0).
    adjusted_by: [...t.refundIds, ...t.productChangeIds].map((id) => ({ transaction_id: id, entry_index: 0 })),
    test_mode: t.testMode,
  };
}

/**
 * A refund or chargeback (current shape): a money_transfer entry giving `refund_amount_usd` back (money amounts are
 * non-negative; the transaction type says which way it flows) against the purchase's money_transfer entry (index 1), and a
 * product_revocation of the purchase's grant (entry 0) when the refund ended the purchase now.
 */
function refundTransactionView(t: Transaction): Record<string, unknown> {
  const customer = { customer_type: t.customerType, customer_id: t.customerId };
  const at = Number(t.createdAtMillis);
  const entries: Record<string, unknown>[] = [];
  if (t.refundAmountUsd && !/^0(\.0+)?$/.test(t.refundAmountUsd)) {
    const amount = { USD: t.refundAmountUsd };
    entries.push({ type: "money_transfer", adjusted_transaction_id: t.refundedPurchaseId, adjusted_entry_index: 1, ...customer, charged_amount: amount, net_amount: amount });
  }
  if (t.refundEndAction === "now") {
    entries.push({ type: "product_revocation", adjusted_transaction_id: t.refundedPurchaseId, adjusted_entry_index: 0, quantity: Number(t.quantity) });
  }
  return { id: t.id, created_at_millis: at, effective_at_millis: at, type: t.type, ...customer, entries, adjusted_by: [], test_mode: false };
}

/**
 * A switch of a subscription (current shape, "product-change"): the grant the subscription had is revoked (its
 * purchase's entry 0) and the new product is granted on the same subscription.
 */
function productChangeTransactionView(t: Transaction): Record<string, unknown> {
  const customer = { customer_type: t.customerType, customer_id: t.customerId };
  const at = Number(t.createdAtMillis);
  const entries = [
    { type: "product_revocation", adjusted_transaction_id: t.changedPurchaseId, adjusted_entry_index: 0, quantity: Number(t.previousQuantity) },
    productGrantEntry(t, { subscription_id: t.changedPurchaseId }),
  ];
  return { id: t.id, created_at_millis: at, effective_at_millis: at, type: "product-change", ...customer, entries, adjusted_by: [], test_mode: t.testMode };
}
