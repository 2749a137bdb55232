import Stripe from "stripe";
import { statusError } from "@vestibule/shared/errors";

/** Stripe settings from the environment: the API (STRIPE_API_URL names a local Stripe-compatible server; unset = the real API), keys. */
export interface StripeSettings {
  readonly client: Stripe;
  readonly webhookSecret: string;
}

/** The platform's Stripe client, or undefined when STRIPE_SECRET_KEY is unset (payments through Stripe then answer 503 text). */
export function stripeFromEnv(env: Readonly<Record<string, string | undefined>>): StripeSettings | undefined {
  const key = env.STRIPE_SECRET_KEY;
  if (!key) return undefined;
  const api = env.STRIPE_API_URL ? new URL(env.STRIPE_API_URL) : undefined;
  const client = new Stripe(key, {
    maxNetworkRetries: 2,
    ...(api
      ? { host: api.hostname, port: Number(api.port || (api.protocol === "https:" ? 443 : 80)), protocol: api.protocol === "https:" ? "https" : "http" }
      : {}),
  });
  return { client, webhookSecret: env.STRIPE_WEBHOOK_SECRET ?? "" };
}

/** The platform's Stripe settings, or a plain 503 when the platform runs without Stripe. */
export function requireStripe(rt: { readonly stripe: StripeSettings | undefined }): StripeSettings {
  if (!rt.stripe) throw statusError(503, "Payments through Stripe are not configured on this platform (STRIPE_SECRET_KEY).");
  return rt.stripe;
}

/** An amount in a currency's minor units ("9.99" USD → 999; "500" JPY → 500). */
export function minorUnits(amount: string, decimals: number): number {
  const [whole, fraction = ""] = amount.split(".");
  return Number(whole) * 10 ** decimals + Number((fraction + "0".repeat(decimals)).slice(0, decimals) || "0");
}

/** The id of a field Stripe answers either as an id or as the expanded object. */
export const stripeIdOf = (v: string | { id: string } | null | undefined): string | null => (typeof v === "string" ? v : (v?.id ?? null));
