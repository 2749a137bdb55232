import type { ServiceImpl } from "@connectrpc/connect";
import { Dialect, PurchaseService } from "@vestibule/proto/billing/v1/purchase_service";
import { withTransaction } from "@vestibule/shared/db";
import { knownError } from "@vestibule/shared/errors";
import { newId } from "@vestibule/shared/ids";
import { hashSecret, randomCode } from "@vestibule/shared/secrets";
import { offerToWire, type CustomerType, type Offer, type Price } from "../offers/offer-rules.ts";
import type { BillingRuntime } from "../runtime.ts";
import { resolveOffer } from "./offer-resolution.ts";
import { toPurchaseFacts } from "./purchase-facts.ts";
import { alreadyOwnsNonStackable, choosePrice, conflictingGroupOffers, firstPeriodEnd } from "./purchase-rules.ts";
import { recordPurchase } from "./record-purchase.ts";
import { cancelSubscription } from "./purchase-changes.ts";
import { refundPurchase } from "./refunds.ts";
import { createPurchaseSession } from "../stripe/purchase-session.ts";
import { stripeStore } from "../stripe/stripe-store.ts";
import { purchaseStore, type NewPurchase, type PurchaseCodeRow } from "./purchase-store.ts";
import { listTransactions } from "./transactions.ts";
import { switchSubscription } from "./switch-subscription.ts";
import { createSetupIntent, getCustomerBilling, listInvoices, setDefaultFromSetupIntent } from "../customers/customer-billing.ts";

/** PurchaseService: purchase codes, test-mode purchases, grants and the customer's products. */
export function createPurchaseService(rt: BillingRuntime): ServiceImpl<typeof PurchaseService> {
  const { ctx, config, customers, settings } = rt;

  async function codeRow(fullCode: string): Promise<PurchaseCodeRow> {
    const row = await purchaseStore.codeByHash(ctx.pool, hashSecret(fullCode.trim()));
    if (!row) throw knownError("VERIFICATION_CODE_NOT_FOUND");
    if (row.expires_at.getTime() <= Date.now()) throw knownError("VERIFICATION_CODE_EXPIRED");
    return row;
  }

  /** Stack's `payments.blockNewPurchases`: what would start a purchase is refused; grants by the server are not. */
  async function requireNewPurchasesOpen(projectId: string, knownConfigVersion = 0n): Promise<void> {
    if ((await config.get(projectId, Number(knownConfigVersion))).blockNewPurchases) throw knownError("NEW_PURCHASES_BLOCKED");
  }

  async function record(p: Omit<NewPurchase, "id">, onOwned: () => never): Promise<string> {
    return withTransaction(ctx.pool, (tx) => recordPurchase(ctx, tx, p, onOwned));
  }

  function kindOf(price: Price | null): "one_time" | "subscription" {
    return price?.interval ? "subscription" : "one_time";
  }

  return {
    async createPurchaseUrl(req) {
      const offer = resolveOffer(await config.get(req.projectId, Number(req.knownConfigVersion)), { ...req, inlineJson: req.inlineOfferJson });
      await customers.require(req.projectId, req.customerType as CustomerType, req.customerId);
      const fullCode = `${req.projectId}_${randomCode(45)}`;
      await purchaseStore.insertCode(ctx.pool, {
        id: newId(),
        projectId: req.projectId,
        codeHash: hashSecret(fullCode),
        customerType: req.customerType,
        customerId: req.customerId,
        offerId: offer.id,
        offer,
        returnUrl: req.returnUrl || null,
        expiresAt: new Date(Date.now() + settings.purchaseCodeTtlMs),
      });
      return { url: `${settings.frontendsUrl}/handler/purchase/${encodeURIComponent(fullCode)}`, fullCode };
    },

    async validatePurchaseCode(req) {
      const code = await codeRow(req.fullCode);
      const owned = (await purchaseStore.customerPurchases(ctx.pool, code.project_id, code.customer_type, code.customer_id)).map(toPurchaseFacts);
      const now = new Date();
      const offer: Offer = { ...code.offer, prices: code.offer.prices.filter((p) => !p.serverOnly) };
      return {
        offerJson: JSON.stringify(offerToWire(offer)),
        offerId: code.offer_id ?? "",
        stripeAccountId: (await stripeStore.accountOf(ctx.pool, code.project_id)) ?? "",
        projectId: code.project_id,
        alreadyBoughtNonStackable: alreadyOwnsNonStackable(code.offer_id, code.offer, owned, now),
        conflictingGroupOffers: conflictingGroupOffers(code.offer_id, code.offer, owned, now),
        returnUrl: code.return_url ?? "",
      };
    },

    async createPurchaseSession(req) {
      const code = await codeRow(req.fullCode);
      await requireNewPurchasesOpen(code.project_id, req.knownConfigVersion);
      const quantity = req.quantity || 1;
      const price = choosePrice(code.offer, req.priceId, quantity);
      const owned = (await purchaseStore.customerPurchases(ctx.pool, code.project_id, code.customer_type, code.customer_id)).map(toPurchaseFacts);
      if (alreadyOwnsNonStackable(code.offer_id, code.offer, owned, new Date())) {
        throw knownError("SCHEMA_ERROR", { message: "Customer already has purchased this offer; this offer is not stackable" });
      }
      return { clientSecret: await createPurchaseSession(rt, code, price, quantity) };
    },

    async completeTestModePurchase(req) {
      const code = await codeRow(req.fullCode);
      if (code.project_id !== req.projectId) throw knownError("VERIFICATION_CODE_NOT_FOUND");
      await requireNewPurchasesOpen(code.project_id, req.knownConfigVersion);
      const quantity = req.quantity || 1;
      const price = choosePrice(code.offer, req.priceId, quantity);
      const purchaseId = await record(
        {
          projectId: code.project_id,
          customerType: code.customer_type,
          customerId: code.customer_id,
          offerId: code.offer_id,
          offer: code.offer,
          priceId: price.id,
          quantity,
          kind: kindOf(price),
          source: "test_mode",
          testMode: true,
          currentPeriodEnd: firstPeriodEnd(price, new Date()),
        },
        () => {
          throw knownError("SCHEMA_ERROR", { message: "Customer already has purchased this offer; this offer is not stackable" });
        },
      );
      return { purchaseId };
    },

    async grantProduct(req) {
      const offer = resolveOffer(await config.get(req.projectId, Number(req.knownConfigVersion)), {
        customerType: req.customerType,
        customerId: req.customerId,
        offerId: req.productId,
        inlineJson: req.inlineProductJson,
        dialect: req.dialect === Dialect.UNSPECIFIED ? Dialect.PRODUCT : req.dialect,
        accessType: "server",
      });
      await customers.require(req.projectId, req.customerType as CustomerType, req.customerId);
      const quantity = req.quantity || 1;
      if (quantity > 1 && !offer.stackable) throw knownError("SCHEMA_ERROR", { message: "This product is not stackable; quantity must be 1" });
      const price = offer.prices[0] ?? null;
      const kind = kindOf(price);
      const purchaseId = await record(
        {
          projectId: req.projectId,
          customerType: req.customerType,
          customerId: req.customerId,
          offerId: offer.id,
          offer,
          priceId: price?.id ?? null,
          quantity,
          kind,
          source: "api_grant",
          testMode: false,
          currentPeriodEnd: firstPeriodEnd(price, new Date()),
        },
        () => {
          throw knownError("PRODUCT_ALREADY_GRANTED", { product_id: offer.id ?? "", customer_id: req.customerId });
        },
      );
      return { purchaseId, subscriptionId: kind === "subscription" ? purchaseId : "" };
    },

    async listProducts(req) {
      await customers.require(req.projectId, req.customerType as CustomerType, req.customerId);
      const now = new Date();
      const rows = (await purchaseStore.customerPurchases(ctx.pool, req.projectId, req.customerType, req.customerId)).filter((r) =>
        toPurchaseFacts(r).status === "active" && (r.ended_at === null || r.ended_at > now),
      );
      const start = Math.max(0, Number.parseInt(req.cursor || "0", 10) || 0);
      const limit = req.limit > 0 ? req.limit : 100;
      const page = rows.slice(start, start + limit);
      return {
        products: page.map((r) => ({
          productId: r.offer_id ?? "",
          quantity: r.quantity,
          productJson: JSON.stringify(offerToWire(r.offer)),
          type: r.kind,
          subscriptionId: r.kind === "subscription" ? r.id : "",
          currentPeriodEndMillis: r.current_period_end ? BigInt(r.current_period_end.getTime()) : undefined,
          cancelAtPeriodEnd: r.cancel_at_period_end,
          purchaseId: r.id,
        })),
        nextCursor: start + limit < rows.length ? String(start + limit) : "",
      };
    },

    async listTransactions(req) {
      return listTransactions(ctx.pool, req);
    },

    async cancelSubscription(req) {
      await cancelSubscription(rt, req);
      return {};
    },

    async refundPurchase(req) {
      return { refundTransactionId: await refundPurchase(rt, req) };
    },

    async getCustomerBilling(req) {
      return getCustomerBilling(rt, req);
    },

    async createPaymentMethodSetupIntent(req) {
      return createSetupIntent(rt, req);
    },

    async setDefaultPaymentMethod(req) {
      return { defaultPaymentMethod: await setDefaultFromSetupIntent(rt, req, req.setupIntentId) };
    },

    async listInvoices(req) {
      return listInvoices(rt, req, { cursor: req.cursor, limit: req.limit > 0 ? Math.min(req.limit, 100) : 10 });
    },

    async switchSubscription(req) {
      return { purchaseId: await switchSubscription(rt, req) };
    },
  };
}
