import { Type } from "typebox";
import { apiKeyIdOf } from "../../auth/api-key-checks.ts";
import { rawBodyOf } from "../../http/body.ts";
import { Obj } from "../../validation/index.ts";
import { defineRoute } from "../route.ts";

/**
 * `POST /integrations/credential-scanning/revoke`: called by secret scanners (e.g. GitHub secret scanning) that found
 * a user or team API key in public. No project headers are needed: the key itself says where it belongs. The key is
 * revoked at once (every gateway stops accepting it when the event arrives) and its owners are e-mailed. A public
 * key answers PUBLIC_API_KEY_CANNOT_BE_REVOKED; an unknown one API_KEY_NOT_FOUND; an already revoked key succeeds.
 */
export const credentialScanningRevokeRoute = defineRoute({
  method: "POST",
  path: "/integrations/credential-scanning/revoke",
  summary: "Revoke a leaked API key reported by a secret scanner",
  tags: ["Integrations"],
  access: "none",
  schemas: { body: Obj({ api_key: Type.String() }) },
  async handler({ body, clients, apiKeyChecks }) {
    await clients.apiKeys.revokeLeakedApiKey({ apiKey: body.api_key });
    const keyId = apiKeyIdOf(body.api_key);
    if (keyId) apiKeyChecks.invalidate(keyId);
    return { json: { success: true } };
  },
});

/**
 * `POST /integrations/stripe/webhooks`: Stripe's event deliveries. The raw body and the `Stripe-Signature` header go to
 * billing, which verifies the signature (bad or missing → plain 400, nothing changes) and handles each event id once.
 */
export const stripeWebhookRoute = defineRoute({
  method: "POST",
  path: "/integrations/stripe/webhooks",
  summary: "Stripe webhook deliveries (signed)",
  tags: ["Integrations"],
  access: "none",
  schemas: {},
  async handler({ req, clients }) {
    const signature = req.headers["stripe-signature"];
    const r = await clients.stripe.handleStripeWebhook({ payload: rawBodyOf(req) ?? new Uint8Array(), signature: typeof signature === "string" ? signature : "" });
    return { json: { received: true, duplicate: !r.handled } };
  },
});
