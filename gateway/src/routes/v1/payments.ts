import { Type } from "typebox";
import { Dialect } from "@vestibule/proto/billing/v1/purchase_service";
import { isUuid } from "@vestibule/shared/ids";
import { knownError } from "@vestibule/shared/errors";
import { FreeformObj, NonEmptyString, Obj, OneOf, Optional, PageLimit, QueryBoolean } from "../../validation/index.ts";
import { requireCustomerAccess } from "../../auth/customer-access.ts";
import { callerGeneration } from "../../http/generation.ts";
import { ownedProductView } from "../../views/payments.ts";
import { defineRoute } from "../route.ts";

const ANY = ["client", "server", "admin"] as const;
const SERVER = ["server", "admin"] as const;
const CustomerType = OneOf(["user", "team", "custom"] as const);
const ItemParams = Obj({ customer_type: CustomerType, customer_id: Type.String(), item_id: Type.String() });
const CustomerParams = Obj({ customer_type: CustomerType, customer_id: Type.String() });
const InlineOffer = FreeformObj({});

/**
 * Payments for apps (contract §10, latest-sdk.md E): item quantities, purchase URLs and the hosted purchase page's
 * calls, and the current SDK's products. Billing owns all of it; these handlers only translate.
 *
 * Who may read a customer's items and products with a client key: current-SDK callers, as the current Stack API
 * answers, only their own user's and those of teams they administer (requireCustomerAccess). Seed-era callers, as
 * contract §10 says, any customer's: the published 2.8.41 `StackServerApp.getItem` sends a client request without a
 * user, so refusing it would break every 2.8.41 server app. As anyone can call in the seed dialect, a publishable key
 * can read any customer's quantities and products until 2.8.41 support ends (SECURITY.md). A purchase URL a client may
 * create for any customer in both generations, as Stack does (paying for someone discloses nothing).
 */
export const getItemRoute = defineRoute({
  method: "GET",
  path: "/payments/items/:customer_type/:customer_id/:item_id",
  summary: "A customer's quantity of an item",
  tags: ["Payments"],
  access: ANY,
  schemas: { params: ItemParams },
  async handler({ auth, params, itemReads, teams, req }) {
    if (callerGeneration(req) === "current") {
      await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only access their own user or team items.");
    }
    const item = await itemReads.get({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      itemId: params.item_id,
      knownConfigVersion: auth.project.project.version,
    });
    return { json: { id: item.itemId, display_name: item.displayName, quantity: Number(item.quantity) } };
  },
});

export const updateItemQuantityRoute = defineRoute({
  method: "POST",
  path: "/payments/items/:customer_type/:customer_id/:item_id/update-quantity",
  summary: "Change a customer's quantity of an item (never below zero unless allow_negative)",
  tags: ["Payments"],
  access: SERVER,
  schemas: {
    params: ItemParams,
    query: Obj({ allow_negative: QueryBoolean() }),
    body: Obj({ delta: Type.Integer(), expires_at: Optional(Type.String()), description: Optional(Type.String()) }),
  },
  async handler({ auth, params, query, body, clients, req }) {
    let expiresAtMillis: bigint | undefined;
    if (body.expires_at !== undefined) {
      const t = Date.parse(body.expires_at);
      if (Number.isNaN(t)) {
        throw knownError("SCHEMA_ERROR", { message: `Request validation failed on ${req.method} ${req.url.split("?")[0]}:\n  - body.expires_at must be a valid date string` });
      }
      expiresAtMillis = BigInt(t);
    }
    const { changeId } = await clients.items.updateItemQuantity({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      itemId: params.item_id,
      delta: BigInt(body.delta),
      allowNegative: query.allow_negative,
      expiresAtMillis,
      description: body.description ?? "",
      knownConfigVersion: auth.project.project.version,
    });
    return { json: { id: changeId } };
  },
});

export const createPurchaseUrlRoute = defineRoute({
  method: "POST",
  path: "/payments/purchases/create-purchase-url",
  summary: "A hosted purchase page URL for an offer/product and a customer",
  tags: ["Payments"],
  access: ANY,
  schemas: {
    body: Obj({
      customer_type: CustomerType,
      customer_id: Type.String(),
      offer_id: Optional(Type.String()),
      offer_inline: Optional(InlineOffer),
      inline_offer: Optional(InlineOffer),
      product_id: Optional(Type.String()),
      product_inline: Optional(InlineOffer),
      return_url: Optional(Type.String()),
    }),
  },
  async handler({ auth, body, clients }) {
    const product = body.product_id !== undefined || body.product_inline !== undefined;
    const inline = product ? body.product_inline : (body.offer_inline ?? body.inline_offer);
    const { url } = await clients.purchases.createPurchaseUrl({
      projectId: auth.projectId,
      customerType: body.customer_type,
      customerId: body.customer_id,
      offerId: (product ? body.product_id : body.offer_id) ?? "",
      inlineOfferJson: inline === undefined ? "" : JSON.stringify(inline),
      dialect: product ? Dialect.PRODUCT : Dialect.OFFER,
      accessType: auth.type,
      returnUrl: body.return_url ?? "",
      knownConfigVersion: auth.project.project.version,
    });
    return { json: { url } };
  },
});

export const validatePurchaseCodeRoute = defineRoute({
  method: "POST",
  path: "/payments/purchases/validate-code",
  summary: "What the hosted purchase page shows for a purchase code",
  tags: ["Payments"],
  access: "none",
  schemas: { body: Obj({ full_code: NonEmptyString() }) },
  async handler({ body, clients }) {
    const r = await clients.purchases.validatePurchaseCode({ fullCode: body.full_code });
    const offer = JSON.parse(r.offerJson) as unknown;
    const conflicts = r.conflictingGroupOffers.map((c) => ({ offer_id: c.offerId, display_name: c.displayName }));
    return {
      json: {
        offer,
        product: offer,
        stripe_account_id: r.stripeAccountId,
        project_id: r.projectId,
        already_bought_non_stackable: r.alreadyBoughtNonStackable,
        conflicting_group_offers: conflicts,
        conflicting_products: conflicts.map((c) => ({ product_id: c.offer_id, display_name: c.display_name })),
        test_mode: r.stripeAccountId === "",
      },
    };
  },
});

export const purchaseSessionRoute = defineRoute({
  method: "POST",
  path: "/payments/purchases/purchase-session",
  summary: "Start paying for a purchase code through Stripe; answers the client secret",
  tags: ["Payments"],
  access: "none",
  schemas: { body: Obj({ full_code: NonEmptyString(), price_id: Type.String(), quantity: Optional(Type.Integer({ minimum: 1 })) }) },
  async handler({ body, clients, projects }) {
    // No project keys on this route: the code names its project (`<project id>_<45 characters>`), whose configuration
    // version this gateway knows (it saw a config change made through it), so blockNewPurchases applies at once.
    const code = body.full_code.trim();
    const projectId = code.length > 46 && code[code.length - 46] === "_" ? code.slice(0, -46) : "";
    const project = isUuid(projectId) || projectId === "internal" ? await projects.get(projectId).catch(() => null) : null;
    const { clientSecret } = await clients.purchases.createPurchaseSession({
      fullCode: body.full_code,
      priceId: body.price_id,
      quantity: body.quantity ?? 1,
      knownConfigVersion: project?.project.version ?? 0n,
    });
    return { json: { client_secret: clientSecret } };
  },
});

export const grantProductRoute = defineRoute({
  method: "POST",
  path: "/payments/products/:customer_type/:customer_id",
  summary: "Grant a product to a customer without payment",
  tags: ["Payments"],
  access: SERVER,
  schemas: {
    params: CustomerParams,
    body: Obj({
      product_id: Optional(Type.String()),
      product_inline: Optional(InlineOffer),
      offer_id: Optional(Type.String()),
      offer_inline: Optional(InlineOffer),
      quantity: Optional(Type.Integer({ minimum: 1 })),
    }),
  },
  async handler({ auth, params, body, clients }) {
    const offer = body.offer_id !== undefined || body.offer_inline !== undefined;
    const inline = offer ? body.offer_inline : body.product_inline;
    const r = await clients.purchases.grantProduct({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      productId: (offer ? body.offer_id : body.product_id) ?? "",
      inlineProductJson: inline === undefined ? "" : JSON.stringify(inline),
      quantity: body.quantity ?? 1,
      dialect: offer ? Dialect.OFFER : Dialect.PRODUCT,
      knownConfigVersion: auth.project.project.version,
    });
    return { json: { success: true, ...(r.subscriptionId ? { subscription_id: r.subscriptionId } : {}) } };
  },
});

export const listProductsRoute = defineRoute({
  method: "GET",
  path: "/payments/products/:customer_type/:customer_id",
  summary: "A customer's products (active purchases and subscriptions)",
  tags: ["Payments"],
  access: ANY,
  schemas: { params: CustomerParams, query: Obj({ cursor: Optional(Type.String()), limit: Optional(PageLimit()) }) },
  async handler({ auth, params, query, clients, teams, req }) {
    if (callerGeneration(req) === "current") {
      await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only access their own user or team products.");
    }
    const r = await clients.purchases.listProducts({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      cursor: query.cursor ?? "",
      limit: query.limit ?? 0,
    });
    return { json: { items: r.products.map(ownedProductView), is_paginated: true, pagination: { next_cursor: r.nextCursor || null } } };
  },
});

export const cancelSubscriptionRoute = defineRoute({
  method: "DELETE",
  path: "/payments/products/:customer_type/:customer_id/:product_id",
  summary: "Cancel the customer's subscription to a product at the end of its period",
  tags: ["Payments"],
  access: ANY,
  schemas: {
    params: Obj({ customer_type: CustomerType, customer_id: Type.String(), product_id: Type.String() }),
    query: Obj({ subscription_id: Optional(Type.String()) }),
  },
  async handler({ auth, params, query, clients, teams }) {
    await requireCustomerAccess(auth, teams, params.customer_type, params.customer_id, "Clients can only manage their own subscriptions.");
    await clients.purchases.cancelSubscription({
      projectId: auth.projectId,
      customerType: params.customer_type,
      customerId: params.customer_id,
      productId: params.product_id,
      subscriptionId: query.subscription_id ?? "",
    });
    return { json: { success: true } };
  },
});

export const paymentsRoutes = [
  cancelSubscriptionRoute,
  getItemRoute,
  updateItemQuantityRoute,
  createPurchaseUrlRoute,
  validatePurchaseCodeRoute,
  purchaseSessionRoute,
  grantProductRoute,
  listProductsRoute,
];
