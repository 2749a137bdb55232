/**
 * `npm start` in development: runs the local Stripe-compatible server (unless STRIPE_API_URL names another Stripe) and
 * returns the variables billing, the gateway and the frontends get. Webhooks go to the gateway's Stripe webhook route
 * (STRIPE_WEBHOOK_URL overrides it). Production mode never calls this: there STRIPE_API_URL is unset (the SDK's
 * default, the real API) and STRIPE_SECRET_KEY / STRIPE_PUBLISHABLE_KEY / STRIPE_WEBHOOK_SECRET are the account's.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { stateDir } from "../paths.ts";
import { LOCAL_STRIPE_DEFAULT_PORT, startLocalStripe, type LocalStripe } from "./index.ts";

/** The gateway route Stripe's webhooks are delivered to (relative to the gateway's public URL). */
export const STRIPE_WEBHOOK_PATH = "/api/latest/integrations/stripe/webhooks";

export interface LaunchedStripe {
  readonly stripe: LocalStripe;
  /** STRIPE_API_URL, STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_JS_URL. */
  readonly env: Record<string, string>;
}

export async function launchLocalStripe(env: Readonly<Record<string, string | undefined>>, host: string): Promise<LaunchedStripe> {
  const port = Number(env.STRIPE_LOCAL_PORT || LOCAL_STRIPE_DEFAULT_PORT);
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET || `whsec_${randomBytes(24).toString("base64url")}`;
  let stripe: LocalStripe;
  try {
    stripe = await startLocalStripe({ port, host, webhookSecret, webhookUrl: env.STRIPE_WEBHOOK_URL || undefined, stateFile: join(stateDir, "stripe-local.json") });
  } catch (err) {
    throw new Error(`the local Stripe server cannot listen on ${host}:${port} (${(err as Error).message}); set STRIPE_LOCAL_PORT`);
  }
  return {
    stripe,
    env: {
      STRIPE_API_URL: stripe.url,
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_JS_URL: stripe.stripeJsUrl,
    },
  };
}

/** Once the gateway's public URL is known: deliver webhooks there (unless STRIPE_WEBHOOK_URL was given). */
export function pointWebhooksAt(launched: LaunchedStripe, env: Readonly<Record<string, string | undefined>>, gatewayPublicUrl: string): string {
  const url = env.STRIPE_WEBHOOK_URL || `${gatewayPublicUrl.replace(/\/+$/, "")}${STRIPE_WEBHOOK_PATH}`;
  launched.stripe.setWebhookUrl(url);
  return url;
}
