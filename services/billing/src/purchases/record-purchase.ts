import type { PoolClient } from "@vestibule/shared/db";
import { newId } from "@vestibule/shared/ids";
import type { ServiceContext } from "@vestibule/shared/service";
import { purchaseCreated, subscriptionUpdated } from "../events.ts";
import { toPurchaseFacts } from "./purchase-facts.ts";
import { alreadyOwnsNonStackable, conflictingGroupOffers } from "./purchase-rules.ts";
import { purchaseStore, type NewPurchase } from "./purchase-store.ts";

/**
 * Records a purchase with its event inside the caller's transaction: serialised per customer; when the customer owns
 * the non-stackable offer already `onOwned` decides (throw to refuse; return to record anyway, e.g. a payment Stripe
 * took); active purchases of other offers of the same group end (a switch). Answers the purchase id.
 */
export async function recordPurchase(ctx: Pick<ServiceContext, "outbox">, tx: PoolClient, p: Omit<NewPurchase, "id">, onOwned: () => void): Promise<string> {
  const id = newId();
  await purchaseStore.lockCustomer(tx, p.projectId, p.customerType, p.customerId);
  const owned = (await purchaseStore.customerPurchases(tx, p.projectId, p.customerType, p.customerId)).map(toPurchaseFacts);
  const now = new Date();
  if (alreadyOwnsNonStackable(p.offerId, p.offer, owned, now)) onOwned();
  const replaced = conflictingGroupOffers(p.offerId, p.offer, owned, now).map((c) => c.offerId);
  for (const ended of await purchaseStore.endActiveOffers(tx, p.projectId, p.customerType, p.customerId, replaced)) {
    await ctx.outbox.enqueue(tx, subscriptionUpdated, { purchaseId: ended, status: "canceled", cancelAtPeriodEnd: false }, { projectId: p.projectId });
  }
  await purchaseStore.insertPurchase(tx, { ...p, id });
  await ctx.outbox.enqueue(
    tx,
    purchaseCreated,
    {
      purchaseId: id,
      customerType: p.customerType,
      customerId: p.customerId,
      offerId: p.offerId ?? "",
      priceId: p.priceId ?? "",
      quantity: p.quantity,
      testMode: p.testMode,
      type: p.kind,
    },
    { projectId: p.projectId },
  );
  return id;
}
