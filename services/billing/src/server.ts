import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ItemService } from "@vestibule/proto/billing/v1/item_service";
import { PurchaseService } from "@vestibule/proto/billing/v1/purchase_service";
import { StripeService } from "@vestibule/proto/billing/v1/stripe_service";
import { ProjectDeletedSchema } from "@vestibule/proto/identity/v1/events";
import { consumeEvents, defineEvent, type Subscription } from "@vestibule/shared/events";
import type { ServiceDefinition } from "@vestibule/shared/service";
import { createItemService } from "./items/item-service.ts";
import { itemStore } from "./items/item-store.ts";
import { createPurchaseService } from "./purchases/purchase-service.ts";
import { purchaseStore } from "./purchases/purchase-store.ts";
import { billingRuntime } from "./runtime.ts";
import { createStripeService } from "./stripe/stripe-service.ts";
import { stripeStore } from "./stripe/stripe-store.ts";

const projectDeleted = defineEvent("identity.project.deleted.v1", ProjectDeletedSchema);

/**
 * The billing service: customers' item quantities (the ledger), offers/products from the project config, purchase
 * codes, purchases and subscriptions (public contract §10, latest-sdk.md E). Follows identity.project.* to keep each
 * project's payments config current and deletes a deleted project's ledger and purchases.
 */
export const billingService: ServiceDefinition = {
  name: "billing",
  migrationsDir: join(dirname(fileURLToPath(import.meta.url)), "..", "migrations"),
  serviceNames: [ItemService.typeName, PurchaseService.typeName, StripeService.typeName],
  routes(router, ctx) {
    const rt = billingRuntime(ctx);
    router.service(ItemService, createItemService(rt));
    router.service(PurchaseService, createPurchaseService(rt));
    router.service(StripeService, createStripeService(rt));
  },
  async start(ctx) {
    const rt = billingRuntime(ctx);
    const subs: Subscription[] = [];
    try {
      subs.push(await rt.config.subscribe(ctx.bus));
      subs.push(
        await consumeEvents({
          bus: ctx.bus,
          pool: ctx.pool,
          log: ctx.log,
          consumer: "billing-identity-project-deleted",
          event: projectDeleted,
          handler: async ({ payload, envelope }, tx) => {
            const projectId = payload.projectId || envelope.projectId;
            if (!projectId) return;
            await itemStore.deleteProject(tx, projectId);
            await purchaseStore.deleteProject(tx, projectId);
            await stripeStore.deleteProject(tx, projectId);
          },
        }),
      );
    } catch (err) {
      await Promise.all(subs.map((s) => s.stop().catch(() => {})));
      throw err;
    }
    return async () => {
      await Promise.all(subs.map((s) => s.stop()));
    };
  },
};
