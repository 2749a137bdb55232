import type { ServiceImpl } from "@connectrpc/connect";
import { ItemService } from "@vestibule/proto/billing/v1/item_service";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetItemResultSchema } from "@vestibule/proto/billing/v1/item_service";
import { Batch } from "@vestibule/shared/batch";
import { withTransaction } from "@vestibule/shared/db";
import { knownError, statusError, toItemError } from "@vestibule/shared/errors";
import { newId } from "@vestibule/shared/ids";
import { itemQuantityChanged } from "../events.ts";
import type { CustomerType } from "../offers/offer-rules.ts";
import type { ItemDefinition } from "../offers/payments-config.ts";
import { purchaseStore } from "../purchases/purchase-store.ts";
import { toPurchaseFacts } from "../purchases/purchase-facts.ts";
import type { BillingRuntime } from "../runtime.ts";
import { includedQuantity } from "./ledger-rules.ts";
import { itemStore, type CustomerItemKey } from "./item-store.ts";

/** Most item reads in one GetItems call. */
const MAX_GET_ITEMS = 256;

/** A customer's item, with the configuration version the caller has seen (see PaymentsConfigCache). */
type KeyWithVersion = CustomerItemKey & { readonly knownConfigVersion: bigint };

/** ItemService: customers' item quantities (the ledger). */
export function createItemService(rt: BillingRuntime): ServiceImpl<typeof ItemService> {
  const { ctx, config, customers } = rt;

  /** The configured item, after the customer type and existence checks. */
  async function resolve(req: KeyWithVersion): Promise<ItemDefinition> {
    const payments = await config.get(req.projectId, Number(req.knownConfigVersion));
    const item = payments.items.get(req.itemId);
    if (!item) throw knownError("ITEM_NOT_FOUND", { item_id: req.itemId });
    const type = req.customerType as CustomerType;
    if (item.customerType !== type) {
      throw knownError("ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH", {
        item_id: req.itemId,
        customer_id: req.customerId,
        item_customer_type: item.customerType,
        actual_customer_type: type,
      });
    }
    await customers.require(req.projectId, type, req.customerId);
    return item;
  }

  /** Quantity from purchases and include-by-default offers. */
  async function included(k: KeyWithVersion, db = ctx.pool): Promise<number> {
    const payments = await config.get(k.projectId, Number(k.knownConfigVersion));
    const rows = await purchaseStore.customerPurchases(db, k.projectId, k.customerType, k.customerId);
    return includedQuantity({
      itemId: k.itemId,
      customerType: k.customerType as CustomerType,
      purchases: rows.map(toPurchaseFacts),
      offers: payments.offers.values(),
      now: new Date(),
    });
  }

  return {
    async getItems(req) {
      if (req.requests.length > MAX_GET_ITEMS) throw statusError(400, `At most ${MAX_GET_ITEMS} item reads per call.`);
      // Each read answers as GetItem would; the ledger of every item is one query, each customer's purchases one.
      const batch = new Batch<KeyWithVersion, { itemId: string; displayName: string; quantity: bigint }>(req.requests);
      const items = new Map<number, ItemDefinition>();
      await batch.each(batch.pending(), async (i) => {
        items.set(i, await resolve(batch.items[i]!));
      });
      const open = batch.pending();
      const ledgers = await batch.shared(() => itemStore.ledgerQuantities(ctx.pool, open.map((i) => batch.items[i]!)), open);
      const fromPurchases = new Map<string, Promise<number>>();
      if (ledgers) await batch.each(open, async (i, k) => {
        const r = batch.items[i]!;
        const key = [r.projectId, r.customerType, r.customerId, r.itemId].join("\u0000");
        let p = fromPurchases.get(key);
        if (!p) fromPurchases.set(key, (p = included(r)));
        const item = items.get(i)!;
        batch.succeed(i, { itemId: item.id, displayName: item.displayName, quantity: BigInt(ledgers[k]! + (await p)) });
      });
      return {
        results: batch.outcomes().map(
          (o): MessageInitShape<typeof GetItemResultSchema> => ("ok" in o ? { outcome: { case: "ok", value: o.ok } } : { outcome: { case: "error", value: toItemError(o.error) } }),
        ),
      };
    },

    async getItem(req) {
      const item = await resolve(req);
      const [ledger, fromPurchases] = await Promise.all([itemStore.ledgerQuantity(ctx.pool, req), included(req)]);
      return { itemId: item.id, displayName: item.displayName, quantity: BigInt(ledger + fromPurchases) };
    },

    async updateItemQuantity(req) {
      await resolve(req);
      const delta = Number(req.delta);
      const expiresAt = req.expiresAtMillis === undefined ? null : new Date(Number(req.expiresAtMillis));
      const fromPurchases = await included(req);
      const id = newId();
      await withTransaction(ctx.pool, async (tx) => {
        const ledger = await itemStore.lockLedgerQuantity(tx, req);
        if (!req.allowNegative && delta < 0 && ledger + fromPurchases + delta < 0) {
          throw knownError("ITEM_QUANTITY_INSUFFICIENT_AMOUNT", { item_id: req.itemId, customer_id: req.customerId, quantity: delta });
        }
        await itemStore.insertChange(tx, id, req, { delta, expiresAt, description: req.description || null });
        await ctx.outbox.enqueue(
          tx,
          itemQuantityChanged,
          { changeId: id, customerType: req.customerType, customerId: req.customerId, itemId: req.itemId, delta: BigInt(delta) },
          { projectId: req.projectId },
        );
      });
      return { changeId: id };
    },
  };
}
