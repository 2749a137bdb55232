import { ProjectService } from "@vestibule/proto/identity/v1/project_service";
import { createServiceClient } from "@vestibule/shared/rpc";
import { peerUrl, type ServiceContext } from "@vestibule/shared/service";
import { Customers } from "./customers/customers.ts";
import { PaymentsConfigCache } from "./offers/payments-config-cache.ts";
import { stripeFromEnv, type StripeSettings } from "./stripe/stripe-settings.ts";

/** Billing settings from the environment (read once per service instance). */
export interface BillingSettings {
  /** Base URL of the hosted pages; purchase URLs are `<frontendsUrl>/handler/purchase/<full_code>`. */
  readonly frontendsUrl: string;
  /** Lifetime of a purchase code. */
  readonly purchaseCodeTtlMs: number;
}

/** What billing's RPCs and consumers share, built once per service instance. */
export interface BillingRuntime {
  readonly ctx: ServiceContext;
  readonly config: PaymentsConfigCache;
  readonly customers: Customers;
  readonly settings: BillingSettings;
  /** Undefined when STRIPE_SECRET_KEY is unset: everything but Stripe payments works. */
  readonly stripe: StripeSettings | undefined;
}

const runtimes = new WeakMap<ServiceContext, BillingRuntime>();

export function billingRuntime(ctx: ServiceContext): BillingRuntime {
  let rt = runtimes.get(ctx);
  if (rt) return rt;
  const projects = createServiceClient(ProjectService, { baseUrl: peerUrl("identity", ctx.env), caller: "billing", secret: ctx.config.serviceSecret });
  rt = {
    ctx,
    config: new PaymentsConfigCache(projects),
    customers: new Customers(ctx),
    settings: {
      frontendsUrl: (ctx.env.VESTIBULE_FRONTENDS_URL ?? "http://localhost:8101").replace(/\/+$/, ""),
      purchaseCodeTtlMs: 24 * 3600 * 1000,
    },
    stripe: stripeFromEnv(ctx.env),
  };
  runtimes.set(ctx, rt);
  return rt;
}
