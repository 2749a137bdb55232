import { startLocalStripe, type LocalStripe } from "../../deploy/src/stripe-local/index.ts";
import { startStack, type Stack } from "./support.ts";

/** A payments config for the payments tests (contract §13 keys, both dialects: `offers` and `products`). */
export const PAYMENTS_CONFIG = {
  "payments.items.credits": { displayName: "Credits", customerType: "user" },
  "payments.items.seats": { displayName: "Seats", customerType: "team" },
  "payments.items.tokens": { displayName: "Tokens", customerType: "custom" },
  "payments.groups.plans": { displayName: "Plans" },
  "payments.offers.free": {
    displayName: "Free",
    customerType: "user",
    groupId: "plans",
    prices: "include-by-default",
    includedItems: { credits: { quantity: 5, repeat: "never", expires: "when-purchase-expires" } },
  },
  "payments.offers.pro": {
    displayName: "Pro",
    customerType: "user",
    groupId: "plans",
    prices: { monthly: { USD: "10", interval: [1, "month"] } },
    includedItems: { credits: { quantity: 100, repeat: "never", expires: "when-purchase-expires" } },
  },
  "payments.offers.pack": {
    displayName: "Credit pack",
    customerType: "user",
    stackable: true,
    prices: { once: { USD: "5.50", EUR: "5" } },
    includedItems: { credits: { quantity: 10, repeat: "never", expires: "never" } },
  },
  "payments.offers.hidden": { displayName: "Hidden", customerType: "user", serverOnly: true, prices: { once: { USD: "1" } } },
  // The current dialect's key: read as an offer too.
  "payments.products.team-plan": {
    displayName: "Team plan",
    customerType: "team",
    catalogId: "plans",
    prices: { yearly: { USD: "100", interval: [1, "year"] } },
    includedItems: { seats: { quantity: 10, repeat: "never", expires: "when-purchase-expires" } },
  },
};


/**
 * A gateway with billing, teams and auth in process, pointed at a fresh local Stripe-compatible server whose webhook
 * deliveries come back to the gateway's Stripe route (signed with `webhookSecret`).
 */
export async function startPaymentsStack(webhookSecret: string): Promise<{ stack: Stack; stripe: LocalStripe }> {
  const stripe = await startLocalStripe({ webhookSecret, retryDelaysMs: [100, 500] });
  const stack = await startStack({
    billing: true,
    teams: true,
    auth: true,
    env: { STRIPE_API_URL: stripe.url, STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: stripe.webhookSecret },
  });
  stripe.setWebhookUrl(`${stack.url}/api/v1/integrations/stripe/webhooks`);
  return { stack, stripe };
}
