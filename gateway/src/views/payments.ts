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
