/**
 * Which offer/product a request names (configured id or inline body) and whether the caller may use it for the
 * customer, with the errors of the caller's dialect: offer fields in → OFFER_* out, product fields → PRODUCT_*.
 */
import { Dialect } from "@vestibule/proto/billing/v1/purchase_service";
import { knownError } from "@vestibule/shared/errors";
import { inlineOfferProblems, readOffer, type CustomerType, type Offer } from "../offers/offer-rules.ts";
import type { PaymentsConfig } from "../offers/payments-config.ts";

export interface OfferRequest {
  readonly customerType: string;
  readonly customerId: string;
  readonly offerId: string;
  readonly inlineJson: string;
  readonly dialect: Dialect;
  readonly accessType: string;
}

function schemaError(lines: string[]): never {
  throw knownError("SCHEMA_ERROR", { message: `Request validation failed:\n${lines.map((l) => `  - ${l}`).join("\n")}` });
}

export function resolveOffer(payments: PaymentsConfig, req: OfferRequest): Offer {
  const product = req.dialect === Dialect.PRODUCT;
  const accessType = req.accessType === "client" || req.accessType === "admin" ? req.accessType : "server";
  let offer: Offer;
  if (req.offerId) {
    const found = payments.offers.get(req.offerId);
    if (!found || (found.serverOnly && accessType === "client")) {
      throw product
        ? knownError("PRODUCT_DOES_NOT_EXIST", { product_id: req.offerId, context: found ? "server_only" : null })
        : knownError("OFFER_DOES_NOT_EXIST", { offer_id: req.offerId, access_type: accessType });
    }
    offer = found;
  } else if (req.inlineJson) {
    const field = product ? "product_inline" : "offer_inline";
    if (accessType === "client") {
      schemaError([`${field}: inline ${product ? "products" : "offers"} need server access; call with a server key or use the ${product ? "product_id" : "offer_id"} field`]);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(req.inlineJson);
    } catch {
      schemaError([`${field} is not valid JSON`]);
    }
    const problems = inlineOfferProblems(raw, field);
    if (problems.length > 0) schemaError(problems);
    offer = readOffer(null, raw as Record<string, unknown>, { inline: true });
  } else {
    schemaError([product ? "one of product_id or product_inline is required" : "one of offer_id or offer_inline is required"]);
  }
  const actual = req.customerType as CustomerType;
  if (offer.customerType !== actual) {
    const id = offer.id;
    throw product
      ? knownError("PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH", { product_id: id, customer_id: req.customerId, product_customer_type: offer.customerType, actual_customer_type: actual })
      : knownError("OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH", { offer_id: id, customer_id: req.customerId, offer_customer_type: offer.customerType, actual_customer_type: actual });
  }
  return offer;
}
