import { ItemQuantityChangedSchema, PurchaseCreatedSchema, PurchaseRefundedSchema, SubscriptionSwitchedSchema, SubscriptionUpdatedSchema } from "@vestibule/proto/billing/v1/events";
import { defineEvent } from "@vestibule/shared/events";

/** Events billing publishes through its outbox. */
export const itemQuantityChanged = defineEvent("billing.item_quantity.changed.v1", ItemQuantityChangedSchema);
export const purchaseCreated = defineEvent("billing.purchase.created.v1", PurchaseCreatedSchema);
export const subscriptionUpdated = defineEvent("billing.subscription.updated.v1", SubscriptionUpdatedSchema);
export const purchaseRefunded = defineEvent("billing.purchase.refunded.v1", PurchaseRefundedSchema);
export const subscriptionSwitched = defineEvent("billing.subscription.switched.v1", SubscriptionSwitchedSchema);
