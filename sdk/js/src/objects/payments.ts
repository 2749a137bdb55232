/** The checkout URL of a customer (user, team or custom customer) for an offer. */
import type { ApiClient, Session as CoreSession } from "@vestibule/sdk-core";
import type { Json } from "../json.ts";

export async function createCheckoutUrl(api: ApiClient, session: CoreSession | null, customerType: string, customerId: string, options: { offerId: string } | { offer: Record<string, unknown> }) {
  const body: Json = { customer_type: customerType, customer_id: customerId };
  if ("offerId" in options) body.offer_id = options.offerId;
  else body.inline_offer = options.offer;
  return (await api.json<{ url: string }>("/payments/purchases/create-purchase-url", { method: "POST", body, session })).url;
}
