import type { ServiceImpl } from "@connectrpc/connect";
import { StripeService } from "@vestibule/proto/billing/v1/stripe_service";
import { knownError, statusError } from "@vestibule/shared/errors";
import type { BillingRuntime } from "../runtime.ts";
import { requireStripe } from "./stripe-settings.ts";
import { stripeStore } from "./stripe-store.ts";
import { getMethodConfigs, updateMethodConfigs } from "./method-configs.ts";
import { handleStripeWebhook } from "./webhook-handler.ts";

/** StripeService: the project's connected account, onboarding, widgets, webhooks. */
export function createStripeService(rt: BillingRuntime): ServiceImpl<typeof StripeService> {
  const { ctx, settings } = rt;

  async function accountOf(projectId: string): Promise<string> {
    const account = await stripeStore.accountOf(ctx.pool, projectId);
    if (!account) throw knownError("STRIPE_ACCOUNT_INFO_NOT_FOUND");
    return account;
  }

  return {
    async setUpPayments(req) {
      const stripe = requireStripe(rt).client;
      let account = await stripeStore.accountOf(ctx.pool, req.projectId);
      if (!account) {
        const created = await stripe.accounts.create({ type: "express", metadata: { vestibule_project_id: req.projectId } });
        account = await stripeStore.saveAccount(ctx.pool, req.projectId, created.id);
      }
      const back = req.returnUrl || `${settings.frontendsUrl}/projects/${encodeURIComponent(req.projectId)}/payments`;
      const link = await stripe.accountLinks.create({ account, type: "account_onboarding", refresh_url: back, return_url: back });
      return { url: link.url };
    },

    async getStripeAccountInfo(req) {
      const account = await accountOf(req.projectId);
      const info = await requireStripe(rt).client.accounts.retrieve(account);
      return { accountId: info.id, chargesEnabled: info.charges_enabled, detailsSubmitted: info.details_submitted, payoutsEnabled: info.payouts_enabled };
    },

    async createAccountSession(req) {
      const account = await accountOf(req.projectId);
      const session = await requireStripe(rt).client.accountSessions.create({
        account,
        components: { payments: { enabled: true }, payouts: { enabled: true }, account_management: { enabled: true } },
      });
      return { clientSecret: session.client_secret };
    },

    async handleStripeWebhook(req) {
      return handleStripeWebhook(rt, requireStripe(rt), req.payload, req.signature);
    },

    async getPaymentMethodConfigs(req) {
      return getMethodConfigs(rt, req.projectId);
    },

    async updatePaymentMethodConfigs(req) {
      const { configId, methods } = await updateMethodConfigs(rt, req.projectId, req.configId, req.updates);
      return { configId, methods };
    },
  };
}
