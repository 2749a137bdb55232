/**
 * Stripe Connect: connected accounts, onboarding links (a local page completes onboarding) and embedded-component
 * account sessions.
 */
import { randomBytes } from "node:crypto";
import { base, metadata, obj, snapshot, str, type Ctx } from "./context.ts";
import { StripeApiError, nowSeconds, type StripeObject } from "./store.ts";

const DUE = ["business_profile.url", "external_account", "tos_acceptance.date"];

function platformOnly(ctx: Ctx): void {
  if (ctx.account) throw new StripeApiError(400, "invalid_request_error", "Connected accounts cannot manage other accounts.", { code: "parameter_invalid" });
}

export function createAccount(ctx: Ctx): StripeObject {
  platformOnly(ctx);
  const type = str(ctx.params, "type") ?? "standard";
  if (!["standard", "express", "custom"].includes(type)) throw new StripeApiError(400, "invalid_request_error", `Invalid type: must be one of standard, express, or custom`, { param: "type" });
  const account = base("acct", "account", {
    type,
    country: str(ctx.params, "country") ?? "US",
    email: str(ctx.params, "email") ?? null,
    default_currency: "usd",
    business_type: str(ctx.params, "business_type") ?? null,
    capabilities: Object.fromEntries(Object.keys(obj(ctx.params, "capabilities")).map((c) => [c, "inactive"])),
    charges_enabled: false,
    payouts_enabled: false,
    details_submitted: false,
    controller: obj(ctx.params, "controller"),
    requirements: { currently_due: DUE, eventually_due: DUE, past_due: [], disabled_reason: "requirements.past_due" },
    metadata: metadata(ctx.params),
  });
  return ctx.state.store.put(account, null);
}

export function retrieveAccount(ctx: Ctx, id: string): StripeObject {
  return ctx.state.store.get("account", id, null);
}

export function updateAccount(ctx: Ctx, id: string): StripeObject {
  platformOnly(ctx);
  const account = ctx.state.store.get("account", id, null);
  account.metadata = metadata(ctx.params, account.metadata);
  return account;
}

/** What a finished onboarding does: enables charges and payouts and sends `account.updated`. */
export function completeOnboarding(ctx: Ctx, id: string): StripeObject {
  const account = ctx.state.store.get("account", id, null);
  const previous = snapshot(account, ["charges_enabled", "payouts_enabled", "details_submitted", "requirements"]);
  Object.assign(account, {
    charges_enabled: true,
    payouts_enabled: true,
    details_submitted: true,
    capabilities: Object.fromEntries(Object.keys(account.capabilities as object).map((c) => [c, "active"])),
    requirements: { currently_due: [], eventually_due: [], past_due: [], disabled_reason: null },
  });
  ctx.state.emit("account.updated", account, account.id, previous);
  return account;
}

export function createAccountLink(ctx: Ctx): StripeObject {
  platformOnly(ctx);
  const account = ctx.state.store.get("account", str(ctx.params, "account", true), null, "account");
  const returnUrl = str(ctx.params, "return_url");
  const refreshUrl = str(ctx.params, "refresh_url");
  const type = str(ctx.params, "type", true)!;
  if (!["account_onboarding", "account_update"].includes(type)) throw new StripeApiError(400, "invalid_request_error", `Invalid type: must be one of account_onboarding or account_update`, { param: "type" });
  const url = new URL(`/connect/onboarding/${account.id}`, ctx.state.baseUrl);
  if (returnUrl) url.searchParams.set("return_url", returnUrl);
  if (refreshUrl) url.searchParams.set("refresh_url", refreshUrl);
  const created = nowSeconds();
  return { object: "account_link", created, expires_at: created + 300, url: url.toString() } as unknown as StripeObject;
}

export function createAccountSession(ctx: Ctx): StripeObject {
  platformOnly(ctx);
  const account = ctx.state.store.get("account", str(ctx.params, "account", true), null, "account");
  const components = obj(ctx.params, "components");
  return {
    object: "account_session",
    account: account.id,
    client_secret: `accs_secret__${randomBytes(18).toString("base64url")}`,
    expires_at: nowSeconds() + 1800,
    livemode: false,
    components,
  } as unknown as StripeObject;
}

/** The page an account link opens: "Complete onboarding" returns to the platform's return URL. */
export function onboardingPage(accountId: string, returnUrl: string | null): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Local Stripe: onboarding</title></head><body style="font:16px system-ui;max-width:32rem;margin:3rem auto;padding:0 1rem">
<h1>Local Stripe onboarding</h1><p>Connected account <code>${esc(accountId)}</code> (development stand-in for Stripe's hosted onboarding).</p>
<form method="post"><input type="hidden" name="return_url" value="${esc(returnUrl ?? "")}">
<button type="submit" style="font:inherit;padding:.5rem 1rem">Complete onboarding</button></form></body></html>`;
}
