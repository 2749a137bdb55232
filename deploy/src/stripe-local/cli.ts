/**
 * `node --import tsx deploy/src/stripe-local/cli.ts [--port 8118] [--webhook-url URL] [--webhook-secret whsec_...]`:
 * the local Stripe-compatible server alone (also from STRIPE_LOCAL_PORT, STRIPE_WEBHOOK_URL, STRIPE_WEBHOOK_SECRET).
 * Prints the variables to give billing and the gateway.
 */
import { parseArgs } from "node:util";
import { LOCAL_STRIPE_DEFAULT_PORT, startLocalStripe } from "./index.ts";

const { values } = parseArgs({
  options: { port: { type: "string" }, host: { type: "string" }, "webhook-url": { type: "string" }, "webhook-secret": { type: "string" } },
});
const env = process.env;
const stripe = await startLocalStripe({
  port: Number(values.port ?? env.STRIPE_LOCAL_PORT ?? LOCAL_STRIPE_DEFAULT_PORT),
  host: values.host ?? "127.0.0.1",
  webhookUrl: values["webhook-url"] ?? env.STRIPE_WEBHOOK_URL,
  webhookSecret: values["webhook-secret"] ?? env.STRIPE_WEBHOOK_SECRET ?? "whsec_vestibule_local",
  log: (line) => process.stdout.write(`local stripe | ${line}\n`),
});
process.stdout.write(
  [
    `local Stripe-compatible server on ${stripe.url} (Stripe.js stand-in at ${stripe.stripeJsUrl})`,
    `  STRIPE_API_URL=${stripe.url}`,
    `  STRIPE_SECRET_KEY=${stripe.secretKey}`,
    `  STRIPE_PUBLISHABLE_KEY=${stripe.publishableKey}`,
    `  STRIPE_WEBHOOK_SECRET=${stripe.webhookSecret}`,
    `  webhooks → ${values["webhook-url"] ?? env.STRIPE_WEBHOOK_URL ?? "(none: set --webhook-url)"}`,
    "",
  ].join("\n"),
);
const stop = (): void => void stripe.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
